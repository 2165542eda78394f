/**
 * Foresight through the API, on a record of this file's own (seeded with a known history)
 * and a worker with sim agents of known cost and quality: an estimate (per task and for the
 * job, p50/p90, runs, a task without history saying so, the budget's probability), its
 * validation, admission control refusing with the forecast, re-planning to fit (a cheaper
 * capable agent; fewer voters), warning (in the answer and on the stream), and adaptive
 * routing learning to prefer the better of two agents within ten jobs.
 */
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinAgents, createAgentRegistry, type AgentRegistry } from '../../activities';
import { createSimAgent } from '../../activities/agents/sim';
import type { AgentDefinition } from '../../activities/agents/types';
import { buildApp } from '../../api/app';
import { loadTenants } from '../../config/tenants';
import { openRecord, type OpenRecord } from '../../record';
import type { Estimate, JobResult, JobSpec, TaskResult } from '../../schemas';
import { startDedicatedWorker } from '../dedicated-worker';
import { finalResult, testClient, testConfig, uniqueId } from '../helpers';
import { taskResult } from '../task-result';
import { authHeader } from '../tenants';

const sim = (id: string, capabilities: string[], defaults: Parameters<typeof createSimAgent>[0]['defaults']) =>
  createSimAgent({ id, capabilities, defaults }) as unknown as AgentDefinition;
const registry: AgentRegistry = createAgentRegistry([
  ...builtinAgents,
  sim('sim-dear', ['summarize'], { costUsd: 0.1 }),
  sim('sim-cheap', ['summarize'], { costUsd: 0.01 }),
  sim('sim-good', ['classify'], { costUsd: 0.01, successRate: 0.95 }),
  sim('sim-poor', ['classify'], { costUsd: 0.01, successRate: 0.3 }),
]);

let record: OpenRecord;
let worker: Awaited<ReturnType<typeof startDedicatedWorker>>;
let app: FastifyInstance;

/** Archives `n` finished vote subtasks of `agent`, each costing `costUsd`, as past history of tenant `default`. */
async function seedHistory(agent: string, costUsd: number, n: number) {
  const jobId = uniqueId(`history-${agent}`);
  const results: TaskResult[] = Array.from({ length: n }, (_, k) =>
    taskResult(`v${k}`, 'A', {
      agentId: agent,
      metrics: { latencyMs: 200 + k, costUsd, tokens: 50, toolCalls: 0, steps: 1, attempts: 1, channelsHit: [] },
    }),
  );
  const now = Date.now();
  await record.store.archive({
    tenant: 'default',
    jobId,
    workflowId: `job/default/${jobId}`,
    specHash: null,
    startedAt: now - 1000,
    closedAt: now,
    result: {
      jobId,
      pattern: 'vote',
      status: 'success',
      output: 'A',
      results,
      evidence: [],
      followUps: [],
      metrics: { latencyMs: 0, costUsd: 0, tokens: 0, toolCalls: 0, steps: 0, attempts: 0, channelsHit: [], subtasks: n, savedUsd: 0 },
    },
  });
}

beforeAll(async () => {
  record = await openRecord({ sqliteFile: join(mkdtempSync(join(tmpdir(), 'delegate-forecast-')), 'record.sqlite') });
  await seedHistory('sim-dear', 0.1, 12);
  await seedHistory('sim-cheap', 0.01, 12);
  await seedHistory('sim', 0.1, 12);
  worker = await startDedicatedWorker({ registry, record: record.store, lanes: ['default'] });
  const config = testConfig({ DELEGATE_TASK_QUEUE: worker.taskQueue });
  app = await buildApp({ config, client: await testClient(), registry, tenants: loadTenants(config), record: record.store });
  await app.ready();
  // every request is tenant default's, as testApp's are (finalResult sends none of its own)
  const inject = app.inject.bind(app) as (o: InjectOptions) => Promise<LightMyRequestResponse>;
  app.inject = ((o: InjectOptions) => inject({ ...o, headers: { ...authHeader('default'), ...o.headers } })) as typeof app.inject;
});
afterAll(async () => {
  await app?.close();
  await worker?.stop();
  await record?.close();
});

const post = (url: string, payload: object) => app.inject({ method: 'POST', url, headers: authHeader('default'), payload });
const voters = (n: number, agent: string, params: object = {}) =>
  Array.from({ length: n }, (_, i) => ({ id: `v${i + 1}`, question: 'Which option?', agent, params: { answer: 'A', ...params } }));

describe('POST /v1/jobs/estimate', () => {
  it('forecasts each task and the job from the record, says which task has no history, and the chance the budget suffices', async () => {
    const res = await post('/v1/jobs/estimate', {
      pattern: 'fanout',
      budget: { costUsd: 0.5, tokens: 100_000 },
      tasks: [
        { id: 'a', question: 'one', agent: 'sim-dear' },
        { id: 'b', question: 'two', agent: 'sim-cheap' },
        { id: 'c', question: 'three', agent: 'echo', budget: { costUsd: 0.05, tokens: 1000 } },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const est = res.json() as Estimate;
    const [a, b, c] = est.job.children!;
    expect(a).toMatchObject({ id: 'a', agent: 'sim-dear', history: true, basis: 'agent sim-dear in jobs of any pattern, last 30 days' });
    expect(a.runs).toBeGreaterThanOrEqual(12);
    expect(Math.abs(a.predicted.costUsd.p50! - 0.1) / 0.1).toBeLessThan(0.09);
    expect(Math.abs(b.predicted.costUsd.p90! - 0.01) / 0.01).toBeLessThan(0.09);
    // echo has never run for this tenant: its figures are its limits and its own budget
    expect(c).toMatchObject({ id: 'c', agent: 'echo', history: false, runs: 0, predicted: { costUsd: { p50: 0.05, p90: 0.05 } } });
    expect(c.basis).toMatch(/^no history of agent echo/);
    expect(Math.abs(est.job.predicted.costUsd.p50! - 0.16) / 0.16).toBeLessThan(0.09);
    expect(est.job.runs).toBe(0);
    expect(est.budgetSuffices).toBe(1);
    expect(est.byAxis).toEqual({ costUsd: 1, tokens: 1 });
  });

  it('composes a nested pipeline inside a vote, and tells a budget that is too small', async () => {
    const res = await post('/v1/jobs/estimate', {
      pattern: 'fanout',
      budget: { costUsd: 0.15 },
      tasks: [
        { id: 'vote', question: 'q', job: { pattern: 'vote', tasks: voters(3, 'sim-dear') } },
        { id: 'pipe', question: 'q', job: { pattern: 'pipeline', tasks: voters(2, 'sim-cheap') } },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const est = res.json() as Estimate;
    expect(est.job.children!.map((c) => [c.id, c.kind, c.children?.length])).toEqual([
      ['vote', 'job', 3],
      ['pipe', 'job', 2],
    ]);
    expect(Math.abs(est.job.predicted.costUsd.p50! - 0.32) / 0.32).toBeLessThan(0.09);
    expect(est.budgetSuffices).toBe(0);
  });

  it('refuses what a submission refuses, with the field path', async () => {
    const bad = await post('/v1/jobs/estimate', { pattern: 'fanout', tasks: [{ id: 'a', question: '', agent: 'sim' }] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].path).toBe('body.tasks[0].question');
    const unknown = await post('/v1/jobs/estimate', { pattern: 'fanout', tasks: [{ id: 'a', question: 'q', agent: 'nobody' }] });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().errors[0].path).toBe('body.tasks[0].agent');
    const badMode = await post('/v1/jobs/estimate', { pattern: 'vote', tasks: voters(3, 'sim'), admission: { mode: 'maybe' } });
    expect(badMode.statusCode).toBe(400);
    expect(badMode.json().errors[0].path).toBe('body.admission.mode');
  });
});

describe('admission control', () => {
  const eventsOf = async (jobId: string) => {
    const res = await app.inject({
      method: 'GET',
      url: `/v1/jobs/${jobId}/events`,
      headers: { ...authHeader('default'), accept: 'text/event-stream' },
    });
    return res.body;
  };

  it('refuses with 422 and the forecast when the budget is unlikely to suffice, and starts nothing', async () => {
    const jobId = uniqueId('refused');
    const spec = { jobId, pattern: 'vote', budget: { costUsd: 0.3 }, tasks: voters(5, 'sim-dear'), admission: { mode: 'refuse' } };
    const res = await post('/v1/jobs', spec);
    expect(res.statusCode, res.body).toBe(422);
    const body = res.json() as { errors: { path: string }[]; forecast: Estimate; admission: { decision: string; budgetSuffices: number } };
    expect(body.errors[0].path).toBe('body.budget');
    expect(body.admission).toMatchObject({ mode: 'refuse', confidence: 0.9, decision: 'refused', budgetSuffices: 0 });
    expect(Math.abs(body.forecast.job.predicted.costUsd.p50! - 0.5) / 0.5).toBeLessThan(0.09);
    expect((await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}`, headers: authHeader('default') })).statusCode).toBe(404);
  });

  it('re-plans onto the cheaper capable agent, says what it changed, and the job fits', async () => {
    const jobId = uniqueId('replanned');
    const spec = { jobId, pattern: 'vote', budget: { costUsd: 0.3 }, tasks: voters(5, 'sim-dear'), admission: { mode: 'replan' } };
    const res = await post('/v1/jobs', spec);
    expect(res.statusCode, res.body).toBe(201);
    const { admission } = res.json() as { admission: { decision: string; changes: string[]; budgetSuffices: number } };
    expect(admission.decision).toBe('replanned');
    expect(admission.changes).toHaveLength(1);
    expect(admission.changes[0]).toMatch(/5 task\(s\).*agent sim-dear → sim-cheap, the cheaper capable agent/);
    expect(admission.budgetSuffices).toBeGreaterThanOrEqual(0.9);
    const result = (await finalResult(app, jobId)).json() as JobResult;
    expect(result.status).toBe('success');
    expect(result.results.map((r) => r.agentId)).toEqual(Array(5).fill('sim-cheap'));
    expect(result.metrics.costUsd).toBeLessThanOrEqual(0.3);
    expect(await eventsOf(jobId)).toMatch(/event: job.admission\ndata: .*"decision":"replanned"/);
    // the same submission again is the same job: not re-planned, not refused, not started twice
    const again = await post('/v1/jobs', spec);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({ jobId, status: 'existing' });
  });

  it('re-plans a vote with no cheaper agent by dropping voters, down to what fits', async () => {
    const jobId = uniqueId('fewer');
    const spec = {
      jobId,
      pattern: 'vote',
      budget: { costUsd: 0.35 },
      tasks: voters(6, 'sim', { costUsd: 0.1 }),
      admission: { mode: 'replan', confidence: 0.8 },
    };
    const res = await post('/v1/jobs', spec);
    expect(res.statusCode, res.body).toBe(201);
    const { admission } = res.json() as { admission: { decision: string; changes: string[] } };
    expect(admission).toMatchObject({
      decision: 'replanned',
      changes: ['job: 6 → 5 voters (dropped v6)', 'job: 5 → 4 voters (dropped v5)', 'job: 4 → 3 voters (dropped v4)'],
    });
    const result = (await finalResult(app, jobId)).json() as JobResult;
    expect(result.results.map((r) => r.id)).toEqual(['v1', 'v2', 'v3']);
    expect(result.metrics.costUsd).toBeLessThanOrEqual(0.35);
  });

  it('warns: the job starts, the answer and the stream say its budget is unlikely to suffice', async () => {
    const jobId = uniqueId('warned');
    const spec: Partial<JobSpec> & object = {
      jobId,
      pattern: 'vote',
      budget: { costUsd: 0.3 },
      tasks: voters(5, 'sim-dear'),
      admission: { mode: 'warn', confidence: 0.9 },
    };
    const res = await post('/v1/jobs', spec);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().admission).toMatchObject({ decision: 'warned', budgetSuffices: 0 });
    expect(res.json().admission.message).toMatch(/^started anyway: the budget suffices with probability 0.0%, below the 90.0% asked/);
    await finalResult(app, jobId);
    expect(await eventsOf(jobId)).toMatch(/event: job.admission\ndata: .*"decision":"warned".*"forecast":/);
  });
});

describe('adaptive routing', () => {
  it('learns to prefer the better of two agents of one capability within ten jobs, and says why', async () => {
    const routed: string[][] = [];
    let reason = '';
    for (let j = 0; j < 10; j++) {
      const jobId = uniqueId('adaptive');
      const tasks = Array.from({ length: 4 }, (_, i) => ({
        id: `t${i}`,
        question: 'Classify this ticket',
        agent: { capability: 'classify', routing: 'adaptive' },
      }));
      const res = await post('/v1/jobs', { jobId, pattern: 'fanout', tasks });
      expect(res.statusCode, res.body).toBe(201);
      const result = (await finalResult(app, jobId)).json() as JobResult;
      // the agent routing chose: a failed one's task falls back on the capability's other agent
      routed.push(result.results.map((r) => r.agentsTried?.[0]?.agent ?? r.agentId));
      reason = result.results.map((r) => r.routing?.reason ?? '').find((x) => x.startsWith('adaptive')) ?? reason;
    }
    expect(reason).toMatch(/^adaptive \(Thompson sampling; weights success 1, cost 0.5, latency 0.25\): sim-(good|poor) /);
    // by the last three jobs nearly every task goes to the better one (load routing would split them evenly)
    const late = routed.slice(-3).flat();
    expect(late.filter((a) => a === 'sim-good').length, JSON.stringify(routed)).toBeGreaterThanOrEqual(8);
  });
});
