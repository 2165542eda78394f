/**
 * MCP elicitation, with the SDK's own client over streamable HTTP: a client that declares
 * `elicitation` and waits on a job gets each of the job's approvals and questions as a form; its
 * answer goes to the same inbox (the same checks). A question answered so reaches the next step;
 * an answer that fails its schema is refused with the field path (asked again, the item still
 * pending); an approval is approved, a declined one rejected; a client without the capability
 * gets no form and the item waits for the inbox tools.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { expect, it, onTestFinished } from 'vitest';
import type { InboxItem, JobResult } from '../../schemas';
import { uniqueId, useListeningApp } from '../helpers';
import { authHeader, TEST_TENANTS } from '../tenants';
import { connectMcp } from './connect';

const listening = useListeningApp({}, null);

/** A client that elicits: each form goes to `answer`, which sees the form and returns the client's result. */
async function elicitingClient(answer: (form: ElicitRequest['params']) => Promise<ElicitResult>): Promise<Client> {
  const client = new Client({ name: 'delegate-elicit-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (req) => answer(req.params));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${listening.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${TEST_TENANTS.default.key}` } },
    }),
  );
  onTestFinished(() => client.close());
  return client;
}

/** The tool answer's JSON. */
const answerOf = (r: unknown) => JSON.parse((r as { content: { text: string }[] }).content[0].text) as Record<string, unknown>;

/** The job's inbox items in `state`, through the REST inbox. */
async function items(jobId: string, state = 'pending'): Promise<InboxItem[]> {
  const res = await listening.app.inject({
    method: 'GET',
    url: `/v1/approvals?jobId=${jobId}&state=${state}`,
    headers: authHeader('default'),
  });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { items: InboxItem[] }).items;
}

it('a question answered through elicitation reaches the next step; a bad answer is refused with its field path and the item stays pending', async () => {
  const jobId = uniqueId('elicit-ask');
  const answerSchema = { type: 'object', properties: { year: { type: 'integer', minimum: 1900 } }, required: ['year'] };
  const forms: ElicitRequest['params'][] = [];
  const pendingAtRetry: InboxItem[][] = [];
  const client = await elicitingClient(async (form): Promise<ElicitResult> => {
    forms.push(form);
    if (forms.length === 1) return { action: 'accept', content: { year: 'soon' as unknown as number } };
    pendingAtRetry.push(await items(jobId));
    return { action: 'accept', content: { year: 2024, note: 'from the person at the harness' } };
  });
  const r = await client.callTool({
    name: 'delegate_fanout',
    arguments: {
      jobId,
      tasks: [
        { id: 't', question: 'when?', agent: 'sim', params: { steps: 2, echoHuman: true, ask: { question: 'Which year?', answerSchema } } },
      ],
      waitSeconds: 60,
    },
  });
  const result = answerOf(r).result as JobResult;
  expect(result.results[0]).toMatchObject({ status: 'success', data: { answers: [{ year: 2024 }] } });

  expect(forms).toHaveLength(2);
  expect(forms[0]).toMatchObject({
    mode: 'form',
    requestedSchema: {
      type: 'object',
      properties: { year: { type: 'integer', minimum: 1900 }, note: { type: 'string' } },
      required: ['year'],
    },
  });
  expect(forms[0].message).toContain('Which year?');
  expect(forms[1].message).toMatch(/refused: body\.answer\.year: must be integer/);
  expect(pendingAtRetry[0].map((i) => i.kind)).toEqual(['question']);
  const [answered] = await items(jobId, 'answered');
  expect(answered).toMatchObject({ answer: { year: 2024 }, note: 'from the person at the harness', decidedBy: 'mcp:default' });
});

it('an approval approved through elicitation lets the task start; a declined one is rejected', async () => {
  const jobId = uniqueId('elicit-approve');
  const seen: string[] = [];
  const client = await elicitingClient(async (form) => {
    seen.push(form.message);
    const decline = form.message.includes('task no');
    return decline ? { action: 'decline' } : { action: 'accept', content: { decision: 'approve' } };
  });
  const r = await client.callTool({
    name: 'delegate_fanout',
    arguments: {
      jobId,
      maxParallel: 1,
      tasks: ['yes', 'no'].map((id) => ({
        id,
        question: 'needs a yes',
        agent: 'sim',
        params: { answer: id },
        approval: { beforeStart: true },
      })),
      waitSeconds: 60,
    },
  });
  const result = answerOf(r).result as JobResult;
  const byId = Object.fromEntries(result.results.map((t) => [t.id, t]));
  expect(byId.yes).toMatchObject({ status: 'success', data: 'yes' });
  expect(byId.no.status).not.toBe('success');
  expect(seen.find((m) => m.includes('task yes'))).toMatch(/^Approve task yes of job .* to start/);
  expect(await items(jobId, 'approved')).toMatchObject([{ taskId: 'yes', decidedBy: 'mcp:default' }]);
  expect(await items(jobId, 'rejected')).toMatchObject([{ taskId: 'no', note: 'declined through MCP elicitation' }]);
});

it('a client without elicitation gets no form: the question waits for the inbox tools', async () => {
  const client = await connectMcp(listening.url, 'http');
  const jobId = uniqueId('elicit-none');
  const r = await client.callTool({
    name: 'delegate_fanout',
    arguments: {
      jobId,
      tasks: [{ id: 't', question: 'when?', agent: 'sim', params: { steps: 2, ask: { question: 'Which year?' } } }],
      waitSeconds: 8,
    },
  });
  // a form sent to this client would have come back as an error, and the answer would say so (inbox)
  expect(answerOf(r)).toStrictEqual({ jobId, state: 'running', progress: expect.anything(), note: expect.any(String) });
  expect((await items(jobId)).map((i) => i.kind)).toEqual(['question']);
  await listening.app.inject({ method: 'POST', url: `/v1/jobs/${jobId}/cancel`, headers: authHeader('default') });
});
