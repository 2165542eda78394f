/**
 * Fair grants across a fan-out, through the API against the fake provider: 20 one-turn LLM
 * children under one cost budget, their spend varied by the length of their question and by two
 * models at two prices. Under `fair` (the default) every child gets at least a step's budget and
 * what early children leave comes back to late ones; under `greedy` the first child takes the
 * whole remainder and the rest are refused; with a budget short of a step each, the job's measured
 * step is the floor and the tasks it cannot pay are refused instead of overrunning the budget.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobResult } from '../../schemas';
import { pricedModel, startFakeProviderStack, type FakeProviderStack } from '../fake-provider-stack';
import { finalResult, pollUntil, testClient, uniqueId } from '../helpers';

let stack: FakeProviderStack;
let app: FastifyInstance;

/** Two more models at the same prices, under ids of this run only: the record outlives it, and its measure of them must be this file's. */
const measured = { cheap: uniqueId('floor-cheap'), pricey: uniqueId('floor-pricey') };

beforeAll(async () => {
  stack = await startFakeProviderStack({ latencyMs: 20 }, (url) => [
    pricedModel(url, 'cheap', 10),
    pricedModel(url, 'pricey', 40),
    pricedModel(url, measured.cheap, 10),
    pricedModel(url, measured.pricey, 40),
  ]);
  ({ app } = stack);
});

afterAll(() => stack?.stop());

/** 20 tasks whose one turn costs more the longer the question, every third on the pricier model. */
const tasks = Array.from({ length: 20 }, (_, i) => ({
  id: `t${String(i).padStart(2, '0')}`,
  question: `question ${i}: ${'why '.repeat(10 + ((i * 37) % 60))}`,
  agent: i % 3 === 0 ? 'pricey' : 'cheap',
}));

/** Runs the fan-out under `costUsd` and returns its result and each child's allocation (its ledger's limit). */
async function run(costUsd: number, extra: object = {}, on = tasks) {
  const jobId = uniqueId('fair');
  const res = await app.inject({
    method: 'POST',
    url: '/v1/jobs',
    payload: { jobId, pattern: 'fanout', budget: { costUsd }, maxParallel: 4, tasks: on, ...extra },
  });
  expect(res.statusCode, res.body).toBe(201);
  const done = await finalResult(app, jobId);
  expect(done.statusCode, done.body).toBe(200);
  // a finished job's status no longer shows its children's ledgers: each child's grant is its start input's allocation
  const granted = new Map(await Promise.all(on.map(async (t) => [t.id, await grantOf(`job/default/${jobId}/${t.id}`)] as const)));
  return { result: done.json() as JobResult, granted };
}

/** The cost allocation a child workflow started with, as its history holds it (0: never started). */
async function grantOf(workflowId: string): Promise<number> {
  const client = await testClient();
  const history = await client.workflow
    .getHandle(workflowId)
    .fetchHistory()
    .catch(() => undefined);
  const payload = history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
  if (!payload) return 0;
  const input = JSON.parse(Buffer.from(payload).toString('utf8')) as { allocation?: { costUsd?: number } };
  return input.allocation?.costUsd ?? 0;
}

const spendOf = (r: JobResult) => new Map(r.results.map((t) => [t.id, t.metrics.costUsd]));

describe('fair grants across a fan-out', () => {
  it('fair (the default): no child starved, and what early children leave reaches late ones', async () => {
    const { result, granted } = await run(0.1);
    expect(result.results.map((t) => t.status)).toEqual(Array(20).fill('success'));
    const spend = spendOf(result);
    // every child had at least the step it took
    for (const t of tasks) expect(granted.get(t.id), t.id).toBeGreaterThanOrEqual(spend.get(t.id)!);
    // the first four shared the budget twenty ways; the last one got more, from what the others gave back
    expect(granted.get('t00')).toBe(0.005);
    expect(granted.get('t19')).toBeGreaterThan(0.005);
    expect(result.budget?.refused).toEqual([]);
  });

  it('greedy: the first child takes the whole remainder and every other is refused', async () => {
    const { result, granted } = await run(0.1, { allocation: 'greedy' });
    const byId = new Map(result.results.map((t) => [t.id, t]));
    expect(granted.get('t00')).toBe(0.1);
    expect(byId.get('t00')?.status).toBe('success');
    const others = tasks.slice(1).map((t) => byId.get(t.id)!);
    expect(others.map((t) => t.failureReason)).toEqual(Array(19).fill('budget_exhausted'));
    expect(result.budget?.refused).toHaveLength(19);
  });

  it('a budget short of a step each: the measured step is the floor, and what it cannot pay is refused, not overrun', async () => {
    // about five steps' worth for twenty tasks: a twentieth would not pay one step
    const budget = 0.006;
    const { result, granted } = await run(budget);
    const spend = spendOf(result);
    const started = tasks.filter((t) => (granted.get(t.id) ?? 0) > 0);
    const refused = result.budget?.refused ?? [];
    expect(refused.length).toBeGreaterThan(0);
    expect(started.length + refused.length).toBe(20);
    // the first wave (four children) ran on a twentieth each before any step was measured; each child
    // after it got at least the smallest step the first wave took
    const firstWave = Math.min(...tasks.slice(0, 4).map((t) => spend.get(t.id)!));
    for (const t of started.slice(4)) expect(granted.get(t.id), t.id).toBeGreaterThanOrEqual(firstWave);
    // so the job passes its budget by at most the first wave's steps, not by one step per task
    const spent = result.results.reduce((n, t) => n + t.metrics.costUsd, 0);
    const firstWaveSpend = tasks.slice(0, 4).reduce((n, t) => n + spend.get(t.id)!, 0);
    expect(spent).toBeLessThanOrEqual(budget + firstWaveSpend);
  });

  it('a budget short of a step each, on agents the record measured: every child starts on a step of its own agent, and the job keeps to its budget', async () => {
    const onMeasured = tasks.map((t) => ({ ...t, agent: t.agent === 'pricey' ? measured.pricey : measured.cheap }));
    // the record learns both agents from a job with room for all (its archive writes the statistics)
    const learn = await run(0.1, {}, onMeasured);
    expect(learn.result.status).toBe('success');
    await pollUntil(async () => {
      const seen = await app.record.stats.window('default', [measured.cheap, measured.pricey]);
      return [measured.cheap, measured.pricey].every((id) => [...(seen.get(id)?.values() ?? [])].some((s) => s.runs > 0));
    }, 'the record never measured both agents');
    const budget = 0.006;
    const { result, granted } = await run(budget, {}, onMeasured);
    const spend = spendOf(result);
    const ran = onMeasured.filter((t) => (granted.get(t.id) ?? 0) > 0);
    expect(ran.length).toBeGreaterThan(0);
    expect(result.budget?.refused.length).toBeGreaterThan(0);
    // the first wave too: no child ran on less than its step cost (before, a twentieth each, measured by nothing)
    for (const t of ran) expect(granted.get(t.id), t.id).toBeGreaterThanOrEqual(spend.get(t.id)!);
    const spent = result.results.reduce((n, t) => n + t.metrics.costUsd, 0);
    expect(spent).toBeLessThanOrEqual(budget);
  });
});
