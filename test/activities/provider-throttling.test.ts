/**
 * Providers as they really are, against a fake that throttles as OpenAI does (429 + retry-after past
 * its rate) and a worker of this file's own: a fan-out wider than the rate finishes every subtask
 * with no breaker opened and no attempt used; what is booked is what the provider served, under 429s
 * and transient 5xx; a latency budget still cuts a throttled subtask; a declared rate is paced by the
 * server on the provider's queue (no refusal at the provider), also with two workers polling it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinAgents, createAgentRegistry } from '../../activities';
import { createLlmAgent } from '../../activities/agents/llm';
import { delegationJob } from '../../workflows';
import type { JobResult, JobSpec } from '../../schemas';
import { fakeProviderAgent, startFakeProvider, type FakeProvider } from '../../scripts/fake-provider';
import { startDedicatedWorker } from '../dedicated-worker';
import { testClient, uniqueId } from '../helpers';

let fake: FakeProvider;
let worker: Awaited<ReturnType<typeof startDedicatedWorker>>;

/** An LLM agent on the fake; `limits` declared or not; each agent its own key (its own gate). */
const agent = (id: string, extra: object = {}) =>
  createLlmAgent(
    fakeProviderAgent(fake.url, id, {
      maxTokensPerStep: 16,
      retry: { maxAttempts: 3, initialIntervalSeconds: 0.2, backoffCoefficient: 1, maximumIntervalSeconds: 0.2 },
      ...extra,
    }),
  );

const registry = () =>
  createAgentRegistry([
    ...builtinAgents,
    agent('undeclared'),
    agent('declared', { limits: { requestsPerMinute: 600 } }),
    agent('budgeted'),
  ]);

/** Starts a fan-out of `n` one-turn subtasks on `agentId` through the file's worker, as the API starts a tenant's job (the tenant its fairness key). */
async function startFanout(agentId: string, n: number, extra: Partial<JobSpec['tasks'][number]> = {}, tenant = 'test') {
  const client = await testClient();
  const jobId = uniqueId(`prov-${agentId}`);
  const spec = {
    jobId,
    pattern: 'fanout' as const,
    tasks: Array.from({ length: n }, (_, i) => ({ id: `t${i}`, question: `question ${i}`, agent: agentId, ...extra })),
  };
  return client.workflow.start(delegationJob, {
    taskQueue: worker.taskQueue,
    workflowId: `job/${tenant}/${jobId}`,
    args: [{ spec, tenant, maxDepth: 3 }],
    priority: { fairnessKey: tenant, fairnessWeight: 1 },
  });
}

/** Runs a fan-out of `n` one-turn subtasks on `agentId` through the file's worker. */
async function fanout(agentId: string, n: number, extra: Partial<JobSpec['tasks'][number]> = {}): Promise<JobResult> {
  return (await startFanout(agentId, n, extra)).result();
}

const booked = (r: JobResult) => r.results.reduce((n, t) => n + t.metrics.tokens, 0);

beforeAll(async () => {
  fake = await startFakeProvider({ latencyMs: 50 });
  // the breaker opens after 5 failures in a row (the default): 429s counted as failures would open it many times over
  worker = await startDedicatedWorker({ registry: registry(), breaker: { failures: 5, cooldownMs: 30_000 } });
});

afterAll(async () => {
  await worker?.stop();
  await fake?.stop();
});

describe('a throttling provider', () => {
  it('finishes a fan-out wider than its rate: every subtask, no breaker, no attempt used, booked = served', async () => {
    // a provider that does not say its rate in its headers: only its 429s tell
    fake.configure({ latencyMs: 50, requestsPerMinute: 600, burst: 2, seed: 1, limitHeaders: false });
    fake.reset();
    const r = await fanout('undeclared', 30);
    const stats = fake.stats();
    expect(r.results.map((t) => t.status)).toEqual(Array(30).fill('success'));
    expect(r.results.filter((t) => t.failureReason === 'circuit_open')).toHaveLength(0);
    // the provider did refuse: the steps waited instead of failing
    expect(stats.refused).toBeGreaterThan(0);
    expect(r.results.every((t) => t.metrics.attempts === 1)).toBe(true);
    expect(r.metrics.throttledMs).toBeGreaterThan(0);
    expect(stats.served).toBe(30);
    expect(booked(r)).toBe(stats.tokensServed.input + stats.tokensServed.output);
  });

  it('books nothing for calls that failed with a 5xx before the provider answered', async () => {
    fake.configure({ latencyMs: 20, faultRate: 0.1, seed: 7 });
    fake.reset();
    const r = await fanout('undeclared', 20);
    const stats = fake.stats();
    expect(r.results.map((t) => t.status)).toEqual(Array(20).fill('success'));
    expect(stats.faults).toBeGreaterThan(0);
    expect(booked(r)).toBe(stats.tokensServed.input + stats.tokensServed.output);
  });

  it('cuts a throttled subtask at its latency budget, as any other', async () => {
    // one request a minute, spent at once: every later call is refused for about a minute
    fake.configure({ latencyMs: 10, requestsPerMinute: 1, burst: 1 });
    fake.reset();
    const r = await fanout('budgeted', 3, { budget: { latencySeconds: 2 } });
    const statuses = r.results.map((t) => t.status).sort();
    expect(statuses.filter((s) => s === 'success')).toHaveLength(1);
    for (const t of r.results.filter((x) => x.status !== 'success')) {
      expect(t.failureReason).toBe('budget_exhausted');
      expect(t.metrics.latencyMs).toBeLessThan(10_000);
    }
  });

  it('paces a declared rate on the provider queue: the provider refuses nothing and never sees more than the rate', async () => {
    // 10 a second declared and enforced by the provider
    fake.configure({ latencyMs: 50, requestsPerMinute: 600, burst: 3 });
    fake.reset();
    const second = await startDedicatedWorker({ registry: registry(), taskQueue: worker.taskQueue });
    try {
      const r = await fanout('declared', 30);
      const stats = fake.stats();
      expect(r.results.map((t) => t.status)).toEqual(Array(30).fill('success'));
      expect(stats.refused).toBe(0);
      expect(stats.maxPerSecondWindow).toBeLessThanOrEqual(10 + 3);
    } finally {
      await second.stop();
    }
  });

  it("shares a declared provider between tenants fairly: a small job is not held behind another tenant's burst", async () => {
    // 10 a second: tenant bulk's 80 steps alone take 8 s
    fake.configure({ latencyMs: 20, requestsPerMinute: 600, burst: 3 });
    fake.reset();
    const began = Date.now();
    const bulk = await startFanout('declared', 80, {}, 'bulk');
    await new Promise((r) => setTimeout(r, 1000));
    const smallStarted = Date.now();
    const small = await startFanout('declared', 8, {}, 'small');
    const smallResult = await small.result();
    const smallTook = Date.now() - smallStarted;
    const bulkResult = await bulk.result();
    const bulkTook = Date.now() - began;
    expect(smallResult.results.map((t) => t.status)).toEqual(Array(8).fill('success'));
    expect(bulkResult.results.map((t) => t.status)).toEqual(Array(80).fill('success'));
    // first come, first served, the small job waits for the ~70 steps queued before it and ends with
    // the bulk (measured: 10.1 s of 11.1 s); with the tenants' fair shares it gets half the rate (4.3 s of 10 s)
    expect(smallTook).toBeLessThan(bulkTook * 0.65);
  });
});
