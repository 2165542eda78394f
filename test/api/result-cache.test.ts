/**
 * The identical-subtask cache through the API against the fake provider: a job with `cache` runs
 * its identical subtasks once, a second job of the same spec is served whole from the record at
 * $0 (no request reaches the provider), another tenant is never served, a changed model or an
 * expired TTL misses, and the estimate counts the cached tasks at $0.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinAgents, createAgentRegistry } from '../../activities';
import { createLlmAgent } from '../../activities/agents/llm';
import { echoAgent } from '../../activities/agents/echo';
import type { AgentDefinition } from '../../activities/agents/types';
import { AgentFatalError } from '../../activities/errors';
import type { Estimate, JobResult, JobSpec } from '../../schemas';
import { subtaskStatusQuery } from '../../contracts/messages';
import { fakeProviderAgent, startFakeProvider, type FakeProvider } from '../../scripts/fake-provider';
import { startDedicatedWorker } from '../dedicated-worker';
import { fastRetry, finalResult, pollUntil, testApp, testClient, uniqueId } from '../helpers';

let fake: FakeProvider;
let worker: Awaited<ReturnType<typeof startDedicatedWorker>>;
let app: FastifyInstance;
let alpha: FastifyInstance;

beforeAll(async () => {
  fake = await startFakeProvider({ latencyMs: 20 });
  const agent = createLlmAgent(
    fakeProviderAgent(fake.url, 'pricey', { maxTokensPerStep: 16, retry: fastRetry, pricing: { inputPerMTok: 40, outputPerMTok: 40 } }),
  );
  // an agent that never answers: its fallback's success is not its own
  const refuser: AgentDefinition = {
    ...echoAgent,
    manifest: { ...echoAgent.manifest, id: 'refuser', capabilities: ['refuse'] },
    async step() {
      throw new AgentFatalError('refuser: never answers');
    },
  };
  const registry = createAgentRegistry([...builtinAgents, agent, refuser]);
  worker = await startDedicatedWorker({ registry, lanes: ['default', 'alpha'] });
  app = await testApp({ DELEGATE_TASK_QUEUE: worker.taskQueue }, 'default', undefined, registry);
  alpha = await testApp({ DELEGATE_TASK_QUEUE: worker.taskQueue }, 'alpha', app.record, registry);
});

afterAll(async () => {
  await alpha?.close();
  await app?.close();
  await worker?.stop();
  await fake?.stop();
});

/** A fan-out of three tasks, two of them identical (same agent, question, params), with the cache. */
const spec = (extra: Partial<JobSpec> = {}): JobSpec => ({
  pattern: 'fanout',
  cache: { ttlSeconds: 600, scope: 'tenant' },
  tasks: [
    { id: 'a', question: `the cached question ${run}: ${'why '.repeat(20)}`, agent: 'pricey', params: { depth: 1 } },
    { id: 'b', question: `the cached question ${run}: ${'why '.repeat(20)}`, agent: 'pricey', params: { depth: 1 } },
    { id: 'c', question: `another question ${run}`, agent: 'pricey' },
  ],
  ...extra,
});
/** Questions unique to this test run: the record outlives it. */
const run = uniqueId('q');

/** Submits a spec as `on`'s tenant and waits for its result. */
async function runJob(on: FastifyInstance, s: JobSpec): Promise<JobResult> {
  const jobId = uniqueId('cache');
  const res = await on.inject({ method: 'POST', url: '/v1/jobs', payload: { ...s, jobId } });
  expect(res.statusCode, res.body).toBe(201);
  const done = await finalResult(on, jobId);
  expect(done.statusCode, done.body).toBe(200);
  return done.json() as JobResult;
}

const served = () => fake.stats().served;

describe('identical-subtask cache', () => {
  let first: JobResult;

  beforeAll(async () => {
    fake.reset();
    first = await runJob(app, spec());
  });

  it('runs identical subtasks of one job once: the second is served the first’s result at $0', () => {
    expect(first.status).toBe('success');
    const [a, b] = [first.results.find((r) => r.id === 'a')!, first.results.find((r) => r.id === 'b')!];
    const [ran, copy] = a.metrics.cached ? [b, a] : [a, b];
    expect(ran.metrics.cached).toBeUndefined();
    expect(ran.metrics.costUsd).toBeGreaterThan(0);
    expect(copy.metrics).toMatchObject({ cached: true, cachedFrom: first.jobId, costUsd: 0, tokens: 0, steps: 0 });
    expect(copy.summary).toBe(ran.summary);
    // one request for a and b, one for c
    expect(served()).toBe(2);
  });

  it('serves a second job of the same spec whole from the record: $0, no request to the provider', async () => {
    const before = served();
    const second = await runJob(app, spec());
    expect(second.status).toBe('success');
    expect(served()).toBe(before);
    for (const r of second.results) {
      expect(r.status).toBe('success');
      expect(r.metrics).toMatchObject({ cached: true, cachedFrom: first.jobId, costUsd: 0, tokens: 0 });
      expect(r.summary).toBe(first.results.find((x) => x.id === r.id)!.summary);
    }
    expect(second.metrics.costUsd).toBe(0);
    // the record keeps it as it was returned, and the statistics leave cached results out
    await pollUntil(async () => (await app.record.get('default', second.jobId)) !== undefined, 'never archived', 30_000);
  });

  it('never serves another tenant: the same spec as alpha runs its agents', async () => {
    const before = served();
    const other = await runJob(alpha, spec());
    expect(other.results.filter((r) => r.metrics.cachedFrom === first.jobId)).toEqual([]);
    expect(served() - before).toBe(2);
  });

  it('misses when the model differs, or without cache', async () => {
    const before = served();
    const changed = await runJob(app, spec({ model: 'fake-mini' }));
    expect(changed.results.filter((r) => r.metrics.cachedFrom === first.jobId)).toEqual([]);
    const plain = await runJob(app, { ...spec(), cache: undefined });
    expect(plain.results.every((r) => r.metrics.cached === undefined)).toBe(true);
    // two distinct questions each time (the identical pair still runs once only with the cache)
    expect(served() - before).toBe(2 + 3);
  });

  it('misses once the TTL has passed', async () => {
    const short = spec({
      cache: { ttlSeconds: 1, scope: 'tenant' },
      tasks: [{ id: 'x', question: `short-lived ${run}`, agent: 'pricey' }],
    });
    const one = await runJob(app, short);
    expect(one.results[0]!.metrics.cached).toBeUndefined();
    await new Promise((r) => setTimeout(r, 1100));
    const two = await runJob(app, short);
    expect(two.results[0]!.metrics.cached).toBeUndefined();
  });

  it('estimates the tasks the cache would serve at $0, naming their source job', async () => {
    const res = await app.inject({ method: 'POST', url: '/v1/jobs/estimate', payload: spec({ budget: { costUsd: 0.000001 } }) });
    expect(res.statusCode, res.body).toBe(200);
    const e = res.json() as Estimate;
    for (const t of e.job.children!) {
      expect(t).toMatchObject({ cachedFrom: first.jobId, history: true });
      expect(t.predicted.costUsd).toEqual({ p50: 0, p90: 0 });
    }
    expect(e.job.predicted.costUsd).toEqual({ p50: 0, p90: 0 });
    // a budget of a millionth of a dollar holds: nothing will be spent
    expect(e.budgetSuffices).toBe(1);
    // alpha has nothing cached: its estimate of the same spec names no source
    const other = (await alpha.inject({ method: 'POST', url: '/v1/jobs/estimate', payload: spec() })).json() as Estimate;
    expect(other.job.children!.some((t) => t.cachedFrom === first.jobId)).toBe(false);
  });

  it('gives a served task no fair share: the fresh task after four served ones is granted the whole budget', async () => {
    const copy = spec().tasks[0]!;
    const jobId = uniqueId('cache-fair');
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        ...spec(),
        jobId,
        budget: { costUsd: 1 },
        maxParallel: 1,
        tasks: [
          ...['s1', 's2', 's3', 's4'].map((id) => ({ ...copy, id })),
          { id: 'fresh', question: `a fresh question ${uniqueId('q')}`, agent: 'pricey' },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const done = (await finalResult(app, jobId)).json() as JobResult;
    expect(done.results.filter((r) => r.metrics.cached).map((r) => r.id)).toEqual(['s1', 's2', 's3', 's4']);
    // the child's own ledger: a fifth of the dollar while the served tasks still counted as waiting for a share
    const child = (await testClient()).workflow.getHandle(`job/default/${jobId}/fresh`);
    expect((await child.query(subtaskStatusQuery)).ledger.costUsd.limit).toBe(1);
  });

  it('keeps only the agent’s own answers: a fallback’s success is neither stored nor served to its twin', async () => {
    const twin = { question: `a refused question ${uniqueId('q')}`, agent: 'refuser', fallback: ['echo'] };
    const fallbackSpec = spec({
      tasks: [
        { id: 'x1', ...twin },
        { id: 'x2', ...twin },
      ],
    });
    for (const job of [await runJob(app, fallbackSpec), await runJob(app, fallbackSpec)]) {
      expect(job.results.map((r) => [r.id, r.status, r.agentId, r.metrics.cached])).toEqual([
        ['x1', 'success', 'echo', undefined],
        ['x2', 'success', 'echo', undefined],
      ]);
    }
  });

  it('runs every voter of a vote: identical voters are its sample, not duplicates', async () => {
    const before = served();
    const voter = { question: `a vote ${run}`, agent: 'pricey' };
    const vote = await runJob(app, {
      pattern: 'vote',
      cache: { ttlSeconds: 600, scope: 'tenant' },
      tasks: [
        { id: 'v1', ...voter },
        { id: 'v2', ...voter },
        { id: 'v3', ...voter },
      ],
    });
    expect(vote.results.map((r) => r.metrics.cached)).toEqual([undefined, undefined, undefined]);
    expect(served() - before).toBe(3);
    // and its estimate looks none of them up
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs/estimate',
      payload: { pattern: 'vote', cache: { ttlSeconds: 600 }, tasks: [{ id: 'v1', ...voter }] },
    });
    expect((res.json() as Estimate).job.children![0]!.cachedFrom).toBeUndefined();
  });

  it('refuses cache on a task that holds a nested job', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        pattern: 'fanout',
        tasks: [
          {
            id: 'n',
            question: 'q',
            cache: { ttlSeconds: 60 },
            job: { pattern: 'fanout', tasks: [{ id: 'x', question: 'q', agent: 'echo' }] },
          },
        ],
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('job.cache');
  });
});
