/**
 * Hedged steps (TaskSpec.hedge) through the API against the fake provider, whose first call of a
 * question containing "slow" takes 30× its latency and whose repeats do not (`latencyTail.match`):
 * a task's hedge starts past its agent's p90 as the record measured it, answers first, and both
 * steps are booked; maxExtraCost 0 hedges nothing; a provider-limited agent's hedge goes through
 * the provider's queue like its step, and so does a hedge on such an agent named by `hedge.agent`
 * (whose winning answer hands it the task); the forecast puts the hedges' extra spend in the estimate, and
 * admission control refuses a hedged job its budget would fit unhedged.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobResult } from '../../schemas';
import { pricedModel, startFakeProviderStack, type FakeProviderStack } from '../fake-provider-stack';
import { finalResult, testClient, uniqueId } from '../helpers';

const LATENCY_MS = 100;
// sixty fast steps: a hedge answering at a loaded host's pace still ends far before it
const SLOW_MS = LATENCY_MS * 60;
let stack: FakeProviderStack;
let app: FastifyInstance;
// agents of this run only: the record's statistics of earlier runs do not reach them
const TAIL = uniqueId('tail');
const LIMITED = uniqueId('limited');
/** An agent no test gives history: its hedges wait `afterMs`. */
const FRESH = uniqueId('fresh');

beforeAll(async () => {
  stack = await startFakeProviderStack({ latencyMs: LATENCY_MS, latencyTail: { factor: SLOW_MS / LATENCY_MS, match: 'slow' } }, (url) => [
    pricedModel(url, TAIL, 10),
    pricedModel(url, FRESH, 10),
    pricedModel(url, LIMITED, 10, { limits: { requestsPerMinute: 6000 } }),
  ]);
  ({ app } = stack);
});

afterAll(() => stack?.stop());

/** Submits a job through the API and returns its result. */
async function run(spec: object): Promise<{ jobId: string; result: JobResult }> {
  const jobId = uniqueId('hedge');
  const res = await app.inject({ method: 'POST', url: '/v1/jobs', payload: { jobId, ...spec } });
  expect(res.statusCode, res.body).toBe(201);
  const done = await finalResult(app, jobId);
  expect(done.statusCode, done.body).toBe(200);
  return { jobId, result: done.json() as JobResult };
}

/** One task on `agent`, its question unique to this call. */
const one = (agent: string, question: string, hedge?: object) => ({
  pattern: 'fanout',
  tasks: [{ id: 't1', question: `${question} ${uniqueId('q')}`, agent, ...(hedge ? { hedge } : {}) }],
});

/** The agentStep activities a subtask scheduled: each one's task queue. */
async function stepQueues(workflowId: string): Promise<string[]> {
  const history = await (await testClient()).workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .map((e) => e.activityTaskScheduledEventAttributes)
    .filter((a) => a?.activityType?.name === 'agentStep')
    .map((a) => a!.taskQueue!.name!);
}

describe('hedged steps', () => {
  it("hedges a step still running past its agent's measured p90: the hedge answers first, both are booked", async () => {
    // six fast tasks: the record's history of the agent (archived before each job completes)
    const measured = (
      await run({
        pattern: 'fanout',
        tasks: Array.from({ length: 6 }, (_, i) => one(TAIL, `fast ${i}`).tasks[0]).map((t, i) => ({ ...t, id: `w${i}` })),
      })
    ).result.results;
    expect(measured.every((r) => r.status === 'success')).toBe(true);

    const { result } = await run(one(TAIL, 'slow question', { maxExtraCost: 0.01 }));
    const r = result.results[0];
    expect(r.status).toBe('success');
    expect(r.metrics.hedges).toBe(1);
    // the slow primary would have taken SLOW_MS; the hedge, started at the p90 of a fast step, answered long before
    expect(r.metrics.latencyMs).toBeLessThan(SLOW_MS * 0.6);
    // booked: the answer and the cut primary (at what the answer cost), that is twice one step
    expect(r.metrics.hedgeCostUsd).toBeGreaterThan(0);
    expect(r.metrics.costUsd).toBeCloseTo(2 * r.metrics.hedgeCostUsd!, 9);
    expect(r.metrics.steps).toBe(1);
    expect(result.metrics.hedges).toBe(1);
  });

  it('hedges nothing when one more step would pass maxExtraCost: the step takes its slow time', async () => {
    const { result } = await run(one(TAIL, 'slow again', { maxExtraCost: 0 }));
    const r = result.results[0];
    expect(r.status).toBe('success');
    expect(r.metrics.hedges).toBeUndefined();
    expect(r.metrics.latencyMs).toBeGreaterThanOrEqual(SLOW_MS);
  });

  it("sends a provider-limited agent's hedge through the provider's queue, as its step", async () => {
    // no history of this agent: the task's afterMs is the delay
    const { jobId, result } = await run(one(LIMITED, 'slow limited', { maxExtraCost: 1, afterMs: 300 }));
    expect(result.results[0].metrics.hedges).toBe(1);
    const queues = await stepQueues(`job/default/${jobId}/t1`);
    expect(queues).toHaveLength(2);
    expect(queues[0]).toMatch(/-provider-/);
    expect(queues[1]).toBe(queues[0]);
  });

  it("hedges on `hedge.agent` when it says so: its answer wins, the task goes on with that agent, its step on that agent's provider queue", async () => {
    const { jobId, result } = await run(one(FRESH, 'slow elsewhere', { maxExtraCost: 1, afterMs: 300, agent: LIMITED }));
    const r = result.results[0];
    expect(r, JSON.stringify(r)).toMatchObject({ status: 'success', agentId: LIMITED, routing: { agent: LIMITED } });
    expect(r.metrics.hedges).toBe(1);
    expect(r.metrics.latencyMs).toBeLessThan(SLOW_MS * 0.6);
    expect(r.notes?.join(' ')).toMatch(/answered step 0 before/);
    const queues = await stepQueues(`job/default/${jobId}/t1`);
    expect(queues).toHaveLength(2);
    expect(queues[0]).not.toMatch(/-provider-/);
    expect(queues[1]).toMatch(/-provider-/);
  });

  it("puts the hedges' extra spend in the forecast, and says so", async () => {
    const spec = (hedge?: object) => ({
      pattern: 'fanout',
      tasks: Array.from({ length: 40 }, (_, i) => ({ id: `e${i}`, question: `q ${i}`, agent: TAIL, ...(hedge ? { hedge } : {}) })),
    });
    const estimate = async (s: object) => {
      const res = await app.inject({ method: 'POST', url: '/v1/jobs/estimate', payload: s });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { job: { predicted: { costUsd: { p50: number } } }; notes: string[] };
    };
    const without = await estimate(spec());
    const hedged = await estimate(spec({ maxExtraCost: 1, afterP: 0.5 }));
    expect(hedged.job.predicted.costUsd.p50).toBeGreaterThan(without.job.predicted.costUsd.p50 * 1.2);
    expect(hedged.notes.join(' ')).toMatch(/hedge their steps/);
  });

  it("has admission control count the hedges' spend: a budget that fits the job unhedged refuses it hedged", async () => {
    const tasks = (hedge?: object) =>
      Array.from({ length: 40 }, (_, i) => ({ id: `a${i}`, question: `q ${i}`, agent: TAIL, ...(hedge ? { hedge } : {}) }));
    const plain = await app.inject({ method: 'POST', url: '/v1/jobs/estimate', payload: { pattern: 'fanout', tasks: tasks() } });
    const budget = {
      costUsd: Number(((plain.json() as { job: { predicted: { costUsd: { p90: number } } } }).job.predicted.costUsd.p90 * 1.15).toFixed(6)),
    };
    const unhedged = await app.inject({ method: 'POST', url: '/v1/jobs/estimate', payload: { pattern: 'fanout', budget, tasks: tasks() } });
    expect((unhedged.json() as { budgetSuffices: number }).budgetSuffices).toBeGreaterThanOrEqual(0.9);
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        jobId: uniqueId('adm'),
        pattern: 'fanout',
        budget,
        admission: { mode: 'refuse', confidence: 0.9 },
        tasks: tasks({ maxExtraCost: 1, afterP: 0.5 }),
      },
    });
    expect(res.statusCode, res.body).toBe(422);
    const body = res.json() as { admission: { decision: string; budgetSuffices: number }; forecast: { notes: string[] } };
    expect(body.admission.decision).toBe('refused');
    expect(body.admission.budgetSuffices).toBeLessThan(0.9);
    expect(body.forecast.notes.join(' ')).toMatch(/hedge their steps/);
  });

  it('refuses a hedge on a nested job', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: { pattern: 'fanout', tasks: [{ id: 'n', question: 'n', hedge: { maxExtraCost: 1 }, job: one(TAIL, 'x') }] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toMatch(/hedge/);
  });
});
