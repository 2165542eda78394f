/**
 * Replaying a recorded job against another model, through the API against the fake provider: a
 * job on the pricier model, archived and then deleted from Temporal as retention would, replayed
 * on the cheaper one (all tasks, then a filter); the comparison side by side. A job started
 * straight through Temporal replays from its workflow input while Temporal keeps it, and not after.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delegationJob } from '../../workflows';
import type { JobComparison } from '../../schemas/replay';
import { pricedModel, startFakeProviderStack, type FakeProviderStack } from '../fake-provider-stack';
import { deleteLikeRetention, finalResult, pollUntil, testClient, uniqueId } from '../helpers';

let stack: FakeProviderStack;
let app: FastifyInstance;

beforeAll(async () => {
  stack = await startFakeProviderStack({ latencyMs: 20 }, (url) => [pricedModel(url, 'pricey', 40), pricedModel(url, 'cheap', 10)]);
  ({ app } = stack);
});

afterAll(() => stack?.stop());

const tasks = ['t1', 't2', 't3'].map((id, i) => ({ id, question: `question ${i}: ${'why '.repeat(10 + i * 20).trim()}`, agent: 'pricey' }));

/** The comparison once the replay has finished. */
async function comparisonOf(replayId: string): Promise<JobComparison> {
  for (;;) {
    const res = await app.inject({ method: 'GET', url: `/v1/jobs/${replayId}/comparison?waitSeconds=20` });
    if (res.statusCode === 200) return res.json() as JobComparison;
    expect(res.statusCode, res.body).toBe(202);
  }
}

/** Submits the fan-out on the pricier model and waits until it is archived. */
async function recordedJob(): Promise<string> {
  const jobId = uniqueId('replay-src');
  const res = await app.inject({ method: 'POST', url: '/v1/jobs', payload: { jobId, pattern: 'fanout', tasks, labels: { team: 'data' } } });
  expect(res.statusCode, res.body).toBe(201);
  expect((await finalResult(app, jobId)).statusCode).toBe(200);
  await pollUntil(async () => (await app.record.get('default', jobId)) !== undefined, `job ${jobId} never archived`, 30_000);
  return jobId;
}

describe('POST /v1/jobs/:jobId/replay', () => {
  let source: string;
  beforeAll(async () => {
    source = await recordedJob();
    // Temporal's retention deletes the job: the record's spec is what the replay runs
    await deleteLikeRetention([`job/default/${source}`]);
  });

  it('replays every subtask on the cheaper model; the comparison puts status, outputs, cost and latency side by side', async () => {
    const res = await app.inject({ method: 'POST', url: `/v1/jobs/${source}/replay`, payload: { agent: 'cheap' } });
    expect(res.statusCode, res.body).toBe(202);
    const accepted = res.json() as { jobId: string; replayOf: string; status: string; links: Record<string, string> };
    expect(accepted).toMatchObject({ jobId: `${source}-replay-1`, replayOf: source, status: 'running' });
    expect(accepted.links.comparison).toMatch(new RegExp(`/v1/jobs/${source}-replay-1/comparison$`));

    const c = await comparisonOf(accepted.jobId);
    expect(c).toMatchObject({ jobId: accepted.jobId, replayOf: source, overrides: { agent: 'cheap' } });
    expect(c.subtasks.map((s) => s.taskId).sort()).toEqual(['t1', 't2', 't3']);
    for (const s of c.subtasks) {
      expect(s.source).toMatchObject({ agentId: 'pricey', status: 'success', failureReason: null });
      expect(s.replay).toMatchObject({ agentId: 'cheap', status: 'success', failureReason: null });
      // the fake answers the same question the same way, whatever the model
      expect(s.outputsEqual).toBe(true);
      expect(s.replay!.tokens).toBe(s.source!.tokens);
      expect(s.replay!.costUsd).toBeCloseTo(s.source!.costUsd / 4, 9);
      expect(s.replay!.latencyMs).toBeGreaterThan(0);
    }
    expect(c.totals).toMatchObject({ compared: 3, outputsEqual: 3, costRatio: 0.25 });
    expect(c.totals.source).toMatchObject({ status: 'success', subtasks: 3, succeeded: 3 });
    expect(c.totals.replay).toMatchObject({ status: 'success', subtasks: 3, succeeded: 3 });
    expect(c.totals.replay.costUsd).toBeCloseTo(c.totals.source.costUsd / 4, 9);
    expect(c.totals.replay.tokens).toBe(c.totals.source.tokens);
    expect(c.totals.latencyRatio).toBeGreaterThan(0);

    // the replay is a job like any other, labelled with its source, and the same replay again is the same job
    await pollUntil(async () => (await app.record.get('default', accepted.jobId)) !== undefined, 'replay never archived', 30_000);
    expect((await app.record.get('default', accepted.jobId))!.labels).toEqual({ team: 'data', replayOf: source });
    const again = await app.inject({
      method: 'POST',
      url: `/v1/jobs/${source}/replay`,
      payload: { agent: 'cheap', jobId: accepted.jobId },
    });
    expect(again.statusCode, again.body).toBe(202);
    expect(again.json()).toMatchObject({ jobId: accepted.jobId, status: 'existing' });
  });

  it('replays only the tasks a filter names, on another model, under the next replay id', async () => {
    const res = await app.inject({ method: 'POST', url: `/v1/jobs/${source}/replay`, payload: { model: 'fake-mini', tasks: ['t2'] } });
    expect(res.statusCode, res.body).toBe(202);
    const { jobId } = res.json() as { jobId: string };
    expect(jobId).toMatch(new RegExp(`^${source}-replay-\\d+$`));
    const c = await comparisonOf(jobId);
    expect(c.overrides).toEqual({ model: 'fake-mini' });
    expect(c.subtasks.map((s) => s.taskId)).toEqual(['t2']);
    expect(c.subtasks[0]!.replay).toMatchObject({ agentId: 'pricey', status: 'success' });
    expect(c.totals.compared).toBe(1);
    expect(c.totals.costRatio).toBe(1);
  });

  it('answers 404 for an unknown job, 422 for a filter naming an unknown task, 404 for the comparison of a job that is no replay', async () => {
    const unknown = await app.inject({ method: 'POST', url: `/v1/jobs/${uniqueId('nope')}/replay`, payload: { agent: 'cheap' } });
    expect(unknown.statusCode, unknown.body).toBe(404);
    const badTask = await app.inject({
      method: 'POST',
      url: `/v1/jobs/${source}/replay`,
      payload: { agent: 'cheap', tasks: ['t1', 'zz'] },
    });
    expect(badTask.statusCode, badTask.body).toBe(422);
    expect(badTask.json().errors).toEqual([expect.objectContaining({ path: 'body.tasks[1]', message: expect.stringContaining('"zz"') })]);
    const badAgent = await app.inject({ method: 'POST', url: `/v1/jobs/${source}/replay`, payload: { agent: 'no-such-agent' } });
    expect(badAgent.statusCode, badAgent.body).toBe(422);
    expect(badAgent.json().errors).toEqual([expect.objectContaining({ path: 'body.agent' })]);
    const notReplay = await app.inject({ method: 'GET', url: `/v1/jobs/${source}/comparison` });
    expect(notReplay.statusCode, notReplay.body).toBe(404);
    expect(notReplay.json().detail).toMatch(/not a replay/);
  });
});

describe('a job started straight through Temporal', () => {
  it('replays from its workflow input while Temporal keeps it, and answers 409 once retention deleted it', async () => {
    const jobId = uniqueId('replay-direct');
    const client = await testClient();
    await client.workflow.execute(delegationJob, {
      taskQueue: stack.worker.taskQueue,
      workflowId: `job/default/${jobId}`,
      args: [{ spec: { jobId, pattern: 'fanout', tasks: tasks.slice(0, 1) }, tenant: 'default', maxDepth: 3 }],
    });
    const res = await app.inject({ method: 'POST', url: `/v1/jobs/${jobId}/replay`, payload: { agent: 'cheap' } });
    expect(res.statusCode, res.body).toBe(202);
    const c = await comparisonOf((res.json() as { jobId: string }).jobId);
    expect(c.subtasks).toEqual([expect.objectContaining({ taskId: 't1', outputsEqual: true })]);

    await pollUntil(async () => (await app.record.get('default', jobId)) !== undefined, 'never archived', 30_000);
    await deleteLikeRetention([`job/default/${jobId}`]);
    const gone = await app.inject({ method: 'POST', url: `/v1/jobs/${jobId}/replay`, payload: { agent: 'cheap' } });
    expect(gone.statusCode, gone.body).toBe(409);
    expect(gone.json().detail).toMatch(/keeps no spec/);
  });
});
