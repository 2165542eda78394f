/**
 * From the attacker's side: tenant alpha sends tasks whose input makes a shared HTTP agent answer
 * 500 until its breaker opens. The circuit is alpha's: beta's next task on that agent runs, and
 * each tenant sees its own breaker on GET /v1/agents/:id.
 */
import type { FastifyInstance } from 'fastify';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinAgents, createAgentRegistry, createHttpAgent } from '../../activities';
import { buildApp } from '../../api/app';
import type { BreakerView, JobResult, TaskSpec } from '../../schemas';
import { loadTenants } from '../../config/tenants';
import { startDedicatedWorker } from '../dedicated-worker';
import { fastRetry, testClient, testConfig, testRecord, uniqueId } from '../helpers';
import { authHeader, type TestTenant } from '../tenants';

const FAILURES = 3;
const AGENT = uniqueId('shared').replace(/[^A-Za-z0-9_.-]/g, '-');
let calls = 0;
// a shared agent that fails whatever question contains "boom": the caller's input provokes it
const upstream = createServer((req, res) => {
  let raw = '';
  req.on('data', (c) => (raw += c));
  req.on('end', () => {
    calls++;
    const { task } = JSON.parse(raw) as { task: { question: string } };
    if (task.question.includes('boom')) return res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"boom"}');
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ done: true, summary: 'fine', confidence: 0.9 }));
  });
});
let worker: Awaited<ReturnType<typeof startDedicatedWorker>>;
let app: FastifyInstance;

beforeAll(async () => {
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/step`;
  const registry = createAgentRegistry([
    ...builtinAgents,
    createHttpAgent({ id: AGENT, url, timeoutSeconds: 5, retry: { ...fastRetry, maxAttempts: 1 } }),
  ]);
  // a long cool-down: the test ends well inside it
  worker = await startDedicatedWorker({ registry, lanes: ['alpha', 'beta'], breaker: { failures: FAILURES, cooldownMs: 120_000 } });
  const config = testConfig({
    DELEGATE_TASK_QUEUE: worker.taskQueue,
    DELEGATE_BREAKER_FAILURES: String(FAILURES),
    DELEGATE_BREAKER_COOLDOWN_SECONDS: '120',
  });
  app = await buildApp({ config, client: await testClient(), registry, tenants: loadTenants(config), record: await testRecord() });
});
afterAll(async () => {
  await app?.close();
  await worker?.stop();
  await new Promise<void>((r) => upstream.close(() => r()));
});

/** Submits one job of `questions` (one at a time) as `tenant` through the API; its result. */
async function runAs(tenant: TestTenant, questions: string[]): Promise<JobResult> {
  const jobId = uniqueId(`brk-${tenant}`);
  const tasks: TaskSpec[] = questions.map((question, i) => ({ id: `t${i}`, question, agent: AGENT }));
  const headers = authHeader(tenant);
  const res = await app.inject({ method: 'POST', url: '/v1/jobs', headers, payload: { jobId, pattern: 'fanout', maxParallel: 1, tasks } });
  expect(res.statusCode, res.body).toBe(201);
  let r = await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}/result?waitSeconds=60`, headers });
  while (r.statusCode === 202) r = await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}/result?waitSeconds=60`, headers });
  expect(r.statusCode, r.body).toBe(200);
  return r.json() as JobResult;
}

const breakerAs = async (tenant: TestTenant) =>
  ((await app.inject({ method: 'GET', url: `/v1/agents/${AGENT}`, headers: authHeader(tenant) })).json() as { breaker: BreakerView })
    .breaker;

describe('circuit breakers per tenant', () => {
  it("one tenant's provoked failures open its own circuit only: another tenant's next task on the agent succeeds", async () => {
    const attack = await runAs('alpha', Array(FAILURES + 3).fill('boom please'));
    const reasons = attack.results.map((x) => x.failureReason);
    // the breaker hears each failure by signal: on a busy worker one more step may pass before it opens
    expect(reasons.slice(0, FAILURES)).toEqual(Array(FAILURES).fill('agent_error'));
    expect(reasons.at(-1)).toBe('circuit_open');
    const attacked = calls;
    expect(attacked).toBeGreaterThanOrEqual(FAILURES);
    expect(attacked).toBeLessThanOrEqual(FAILURES + 1);
    expect(await breakerAs('alpha')).toMatchObject({ state: 'open' });
    // beta never failed there: its circuit is closed, and its task reaches the agent
    expect(await breakerAs('beta')).toMatchObject({ state: 'closed', consecutiveFailures: 0 });
    const victim = await runAs('beta', ['a fair question']);
    expect(victim.results.map((x) => [x.status, x.failureReason])).toEqual([['success', null]]);
    expect(calls).toBe(attacked + 1);
    // and alpha stays cut off, even for a question that would have worked
    expect((await runAs('alpha', ['a fair question'])).results[0].failureReason).toBe('circuit_open');
  });
});
