/**
 * The child's model from the parent's latest request (protocol 3): a parent names its session
 * and current model on any request (headers on REST, `_meta` on MCP); a child its session's
 * job starts after that runs on it, whatever model the job was created with. The fake LLM
 * says which model each turn asked for.
 */
import { describe, expect, it } from 'vitest';
import type { JobResult } from '../../schemas';
import { createDelegateClient, type ParentContext } from 'delegate/client';
import { finalResult, listeningApp, uniqueId, useApp, waitForSubtask } from '../helpers';
import { TEST_TENANTS } from '../tenants';
import { capturedBodies } from '../fake-llm';

const app = useApp();

/** The turns the fake LLM got for `model`, with their output cap. */
const captured = capturedBodies<{ max_tokens: number }>;

const task = (id: string) => ({ id, question: `review ${id}`, role: 'review', taskType: 'code_review', subject: 'PR 7' });

/** Submits a two-task job created with model A in `session`, one child at a time, and waits until the first took a step. */
async function startInSession(jobId: string, session: string, modelA: string): Promise<void> {
  const res = await app.inject({
    method: 'POST',
    url: '/v1/jobs',
    headers: { 'delegate-parent-session': session },
    payload: { jobId, pattern: 'fanout', maxParallel: 1, model: modelA, tasks: [task('first'), task('second')] },
  });
  expect(res.statusCode, res.body).toBe(201);
  await waitForSubtask(jobId, 'first', { steps: 1 });
}

/** The second child ran on `model` (every turn of it the fake LLM got), the first on `before`. */
async function expectSecondOn(jobId: string, before: string, model: string): Promise<void> {
  const r = (await finalResult(app, jobId)).json() as JobResult;
  const [a, b] = r.results;
  expect(a).toMatchObject({ id: 'first', status: 'success', role: { model: before } });
  expect(b).toMatchObject({ id: 'second', status: 'success', role: { model } });
  expect((await captured(model)).length).toBe(b.metrics.steps);
}

describe("the child's model from the parent's latest request", () => {
  it('REST: a later request naming model B makes the next child run on B, though the job was created with A', async () => {
    const jobId = uniqueId('parent-rest');
    const session = uniqueId('session');
    const [modelA, modelB] = [`role+slow#${jobId}-a`, `role#${jobId}-b`];
    await startInSession(jobId, session, modelA);
    // any request of the parent carries its current model: here, a status read
    const read = await app.inject({
      method: 'GET',
      url: `/v1/jobs/${jobId}`,
      headers: { 'delegate-parent-session': session, 'delegate-parent-model': modelB },
    });
    expect(read.statusCode).toBe(200);
    await expectSecondOn(jobId, modelA, modelB);
  });

  it('MCP: `_meta` on a tool call names the model the next child runs on', async () => {
    const jobId = uniqueId('parent-mcp');
    const session = uniqueId('session');
    const [modelA, modelB] = [`role+slow#${jobId}-a`, `role#${jobId}-b`];
    await startInSession(jobId, session, modelA);
    const call = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'job_status',
          arguments: { jobId },
          _meta: { 'delegate/parentSession': session, 'delegate/parentModel': modelB },
        },
      },
    });
    expect(call.statusCode, call.body).toBe(200);
    await expectSecondOn(jobId, modelA, modelB);
  });

  it('the typed client: its `parent` option sends the model the harness runs on now', async () => {
    const { app: served, url } = await listeningApp({}, null);
    try {
      const jobId = uniqueId('parent-client');
      const [modelA, modelB] = [`role+slow#${jobId}-a`, `role#${jobId}-b`];
      const parent: ParentContext = { session: uniqueId('session') };
      const delegate = createDelegateClient({ baseUrl: url, apiKey: TEST_TENANTS.default.key, parent: () => parent });
      await delegate.submit({ jobId, pattern: 'fanout', maxParallel: 1, model: modelA, tasks: [task('first'), task('second')] });
      await waitForSubtask(jobId, 'first', 'running');
      // the harness switched models: its next request says so
      parent.model = modelB;
      await delegate.get(jobId);
      await expectSecondOn(jobId, modelA, modelB);
    } finally {
      await served.close();
    }
  });

  it("a job submitted in a session starts on the session's model, under the parent's lower cap", async () => {
    const jobId = uniqueId('parent-submit');
    const model = `scripted#${jobId}`;
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: {
        'delegate-parent-session': uniqueId('session'),
        'delegate-parent-model': model,
        'delegate-parent-max-output-tokens': '40',
      },
      payload: { jobId, pattern: 'fanout', model: 'not-this-one', tasks: [{ id: 'r', question: 'capital of Peru', agent: 'researcher' }] },
    });
    expect(res.statusCode, res.body).toBe(201);
    const r = (await finalResult(app, jobId)).json() as JobResult;
    expect(r.results[0]).toMatchObject({ status: 'success', metrics: { channelsHit: [model] } });
    expect((await captured(model)).map((t) => t.max_tokens)).toEqual([40]);
  });

  it('refuses a malformed parent header (400) and a model without a session', async () => {
    const bad = await app.inject({
      method: 'GET',
      url: '/v1/agents',
      headers: { 'delegate-parent-session': 's', 'delegate-parent-max-output-tokens': 'lots' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].path).toBe('headers.delegate-parent-max-output-tokens');
    const alone = await app.inject({ method: 'GET', url: '/v1/agents', headers: { 'delegate-parent-model': 'm' } });
    expect(alone.statusCode).toBe(400);
    expect(alone.json().errors[0].path).toBe('headers.delegate-parent-session');
  });
});
