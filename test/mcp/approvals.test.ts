/**
 * The inbox through MCP, with the SDK's own client over HTTP: a parent agent lists what its
 * job waits for and answers a subagent's question; an answer its schema refuses comes back as
 * a tool error naming the field.
 */
import { expect, it, onTestFinished } from 'vitest';
import type { InboxItem, JobResult } from '../../schemas';
import { useListeningApp, pollUntil, uniqueId } from '../helpers';
import { authHeader } from '../tenants';
import { connectMcp } from './connect';

const listening = useListeningApp({}, null);

const text = (r: unknown) => ((r as { content: { text: string }[] }).content[0]?.text ?? '') as string;

it('a question is listed by delegate_approvals and answered by delegate_decide', async () => {
  const client = await connectMcp(listening.url, 'http');
  onTestFinished(() => client.close());
  const jobId = uniqueId('mcp-ask');
  const answerSchema = { type: 'object', properties: { year: { type: 'integer' } }, required: ['year'] };
  const res = await listening.app.inject({
    method: 'POST',
    url: '/v1/jobs',
    headers: authHeader('default'),
    payload: {
      jobId,
      pattern: 'fanout',
      tasks: [
        { id: 't', question: 'when?', agent: 'sim', params: { steps: 2, echoHuman: true, ask: { question: 'Which year?', answerSchema } } },
      ],
    },
  });
  expect(res.statusCode, res.body).toBe(201);

  let items: InboxItem[] = [];
  await pollUntil(
    async () => {
      items = (JSON.parse(text(await client.callTool({ name: 'delegate_approvals', arguments: { jobId } }))) as { items: InboxItem[] })
        .items;
      return items.length === 1;
    },
    () => 'the question never reached the inbox',
    20_000,
  );
  expect(items[0]).toMatchObject({ kind: 'question', detail: { question: 'Which year?' } });

  const bad = await client.callTool({ name: 'delegate_decide', arguments: { id: items[0].id, answer: { year: 'soon' } } });
  expect(bad.isError).toBe(true);
  expect(text(bad)).toMatch(/422[\s\S]*body\.answer\.year: must be integer/);
  const ok = await client.callTool({
    name: 'delegate_decide',
    arguments: { id: items[0].id, answer: { year: 2024 }, note: 'from the parent' },
  });
  expect(ok.isError ?? false, text(ok)).toBe(false);
  expect(JSON.parse(text(ok))).toMatchObject({ state: 'answered', decidedBy: 'mcp:default' });

  const done = await listening.app.inject({
    method: 'GET',
    url: `/v1/jobs/${jobId}/result?waitSeconds=30`,
    headers: authHeader('default'),
  });
  expect((done.json() as JobResult).results[0].data).toMatchObject({ answers: [{ year: 2024 }] });
});
