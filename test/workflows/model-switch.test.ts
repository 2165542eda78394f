/**
 * Model inheritance: a job's model switched mid-run reaches the children started after the
 * switch; a child already running keeps the model (and output cap) it started with.
 */
import { describe, expect, it } from 'vitest';
import type { JobResult } from '../../schemas';
import { createDelegateClient } from 'delegate/client';
import { finalResult, listeningApp, uniqueId, useApp, waitForSubtask } from '../helpers';
import { TEST_TENANTS } from '../tenants';
import { capturedBodies } from '../fake-llm';

const app = useApp();

/** The turns the fake LLM got for `model`, with their output cap. */
const captured = capturedBodies<{ max_tokens: number }>;

const task = (id: string) => ({ id, question: `review ${id}`, role: 'review', taskType: 'code_review', subject: 'PR 7' });

describe('model inheritance', () => {
  it('a switch mid-job reaches children started after it; the running child keeps its model and cap', async () => {
    const jobId = uniqueId('switch');
    // "+slow": the fake answers each turn after a second, so the first child is still running at the switch
    const before = `role+slow#${jobId}-a`;
    const after = `role#${jobId}-b`;
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        jobId,
        pattern: 'fanout',
        maxParallel: 1,
        model: before,
        maxOutputTokens: 100_000,
        tasks: [task('first'), task('second')],
      },
    });
    expect(res.statusCode).toBe(201);
    await waitForSubtask(jobId, 'first', { steps: 1 });

    const sw = await app.inject({ method: 'POST', url: `/v1/jobs/${jobId}/model`, payload: { model: after, maxOutputTokens: 120 } });
    expect(sw.statusCode).toBe(200);
    expect(sw.json()).toEqual({ jobId, model: after, maxOutputTokens: 120 });
    const atSwitch = (await captured(before)).length;

    const r = (await finalResult(app, jobId)).json() as JobResult;
    const [a, b] = r.results;
    expect(a).toMatchObject({ id: 'first', status: 'success', role: { model: before, maxOutputTokens: 300 } });
    expect(b).toMatchObject({ id: 'second', status: 'success', role: { model: after, maxOutputTokens: 120 } });
    // the running child went on with its own model after the switch: every turn of it, none of the second's
    const firstTurns = await captured(before);
    expect(firstTurns.length).toBe(a.metrics.steps);
    expect(firstTurns.length).toBeGreaterThan(atSwitch);
    expect(firstTurns.every((t) => t.max_tokens === 300)).toBe(true);
    const secondTurns = await captured(after);
    expect(secondTurns.length).toBe(b.metrics.steps);
    // the job's lower cap is authoritative for the child started after it
    expect(secondTurns.every((t) => t.max_tokens === 120)).toBe(true);
  });

  it("runs a plain llm child on the job's model too, under the job's cap", async () => {
    const jobId = uniqueId('jobmodel');
    const model = `scripted#${jobId}`;
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        jobId,
        pattern: 'fanout',
        model,
        maxOutputTokens: 50,
        tasks: [{ id: 'r', question: 'capital of Peru', agent: 'researcher' }],
      },
    });
    expect(res.statusCode).toBe(201);
    const r = (await finalResult(app, jobId)).json() as JobResult;
    expect(r.results[0]).toMatchObject({ status: 'success', metrics: { channelsHit: [model] } });
    expect((await captured(model)).map((t) => t.max_tokens)).toEqual([50]);
  });

  it('switches the model through the typed client', async () => {
    const { app: served, url } = await listeningApp({}, null);
    try {
      const delegate = createDelegateClient({ baseUrl: url, apiKey: TEST_TENANTS.default.key });
      const jobId = uniqueId('clientmodel');
      await delegate.submit({ jobId, pattern: 'fanout', maxParallel: 1, model: `role+slow#${jobId}`, tasks: [task('a'), task('b')] });
      await waitForSubtask(jobId, 'a', 'running');
      expect(await delegate.setModel(jobId, { model: `role#${jobId}-b` })).toEqual({ jobId, model: `role#${jobId}-b` });
      const r = await delegate.waitForResult(jobId);
      expect(r.results.map((t) => t.role?.model)).toEqual([`role+slow#${jobId}`, `role#${jobId}-b`]);
    } finally {
      await served.close();
    }
  });

  it('refuses an empty switch (400) and a switch of a finished job (409)', async () => {
    const jobId = uniqueId('switch-done');
    expect(
      (
        await app.inject({
          method: 'POST',
          url: '/v1/jobs',
          payload: { jobId, pattern: 'fanout', tasks: [{ id: 'e', question: 'q', agent: 'echo' }] },
        })
      ).statusCode,
    ).toBe(201);
    expect((await app.inject({ method: 'POST', url: `/v1/jobs/${jobId}/model`, payload: {} })).statusCode).toBe(400);
    await finalResult(app, jobId);
    const late = await app.inject({ method: 'POST', url: `/v1/jobs/${jobId}/model`, payload: { model: 'x' } });
    expect(late.statusCode).toBe(409);
  });
});
