/**
 * The durable circuit breaker: one per remote agent, shared by every worker (an entity
 * workflow), so failures seen on two workers add up, a restarted worker still finds it open,
 * and after the cool-down one trial step closes it again. Read through GET /v1/agents/:id. The
 * cool-down is a worker's setting (DELEGATE_BREAKER_COOLDOWN_SECONDS): the restart is checked
 * on a circuit of ten minutes, the end of a cool-down on one of a second.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { builtinAgents, createAgentRegistry, createHttpAgent, type AgentRegistry } from '../../activities';
import { buildApp } from '../../api/app';
import type { BreakerView, TaskSpec } from '../../schemas';
import { loadTenants } from '../../config/tenants';
import { agentBreaker } from '../../workflows/agent-breaker';
import { BREAKER_MEMO_KEY } from '../../core/names';
import { stepOutcomeSignal } from '../../contracts/messages';
import type { BreakerState } from '../../core/breaker-state';
import { delegationJob } from '../../workflows/delegation-job';
import { startAgentUpstream } from '../agent-upstream';
import { startDedicatedWorker } from '../dedicated-worker';
import { fastRetry, pollUntil, runJob, testClient, testConfig, testRecord, uniqueId } from '../helpers';
import { authHeader } from '../tenants';

const upstream = await startAgentUpstream();
const agentId = (name: string) => uniqueId(name).replace(/[^A-Za-z0-9_.-]/g, '-');
/** The agent whose circuit must stay open across a worker restart: a cool-down no restart outlasts. */
const AGENT = agentId('brk');
/** The agent whose circuit half-opens after its cool-down and closes on a trial step. */
const TRIAL_AGENT = agentId('brk-trial');
/** The agent whose every step fails twice and then answers: retried attempts, never a failed step. */
const FLAKY_AGENT = agentId('brk-flaky');
const FAILURES = 4;
// far longer than a worker restart (a stop waits for its grace time, however loaded the machine)
const COOLDOWN_MS = 600_000;
// the trial agent's: nothing needs to happen within it, the test waits for the half-open state
const TRIAL_COOLDOWN_MS = 1000;
let registry: AgentRegistry;
let app: FastifyInstance;

beforeAll(async () => {
  const http = (id: string) =>
    createHttpAgent({ id, url: `${upstream.url}/switch`, timeoutSeconds: 5, retry: { ...fastRetry, maxAttempts: 1 } });
  const flaky = createHttpAgent({
    id: FLAKY_AGENT,
    url: `${upstream.url}/flaky`,
    timeoutSeconds: 5,
    retry: { ...fastRetry, maxAttempts: 3 },
  });
  registry = createAgentRegistry([...builtinAgents, http(AGENT), http(TRIAL_AGENT), flaky]);
  const config = testConfig({ DELEGATE_BREAKER_FAILURES: String(FAILURES), DELEGATE_BREAKER_COOLDOWN_SECONDS: String(COOLDOWN_MS / 1000) });
  app = await buildApp({ config, client: await testClient(), registry, tenants: loadTenants(config), record: await testRecord() });
});
afterAll(async () => {
  await app?.close();
});

type Worker = Awaited<ReturnType<typeof startDedicatedWorker>>;
/** A worker of the deployment; every outcome it reports carries its cool-down, which an opening failure applies. */
const startWorker = (cooldownMs = COOLDOWN_MS) => startDedicatedWorker({ registry, breaker: { failures: FAILURES, cooldownMs } });

/** Runs `n` tasks on `agent` one after the other, on `worker`; their failure reasons (null: success). */
async function runOn(worker: Worker, n: number, agent = AGENT) {
  const client = await testClient();
  const jobId = uniqueId('brk-job');
  const tasks: TaskSpec[] = Array.from({ length: n }, (_, i) => ({ id: `t${i}`, question: 'q', agent }));
  const r = await client.workflow.execute(delegationJob, {
    taskQueue: worker.taskQueue,
    // the tenant whose breaker GET /v1/agents/:id shows below (circuits are per agent and tenant)
    workflowId: `job/default/${jobId}`,
    args: [{ spec: { jobId, pattern: 'fanout', maxParallel: 1, tasks }, tenant: 'default', maxDepth: 1 }],
  });
  return r.results.map((x) => x.failureReason);
}

async function breakerOf(id: string): Promise<{ status: number; breaker?: BreakerView | null }> {
  const res = await app.inject({ method: 'GET', url: `/v1/agents/${id}`, headers: authHeader('default') });
  return { status: res.statusCode, breaker: res.statusCode === 200 ? (res.json() as { breaker: BreakerView | null }).breaker : undefined };
}

describe('durable circuit breaker', () => {
  it('opens on failures seen by two workers, stays open across a worker restart; after its cool-down a trial step closes it for every worker', async () => {
    expect((await breakerOf(AGENT)).breaker).toMatchObject({ state: 'closed', consecutiveFailures: 0, failureThreshold: FAILURES });
    const a = await startWorker();
    let b = await startWorker();
    let trial: Worker | undefined;
    try {
      expect(await runOn(a, FAILURES / 2)).toEqual(Array(FAILURES / 2).fill('agent_error'));
      expect(await runOn(b, FAILURES / 2)).toEqual(Array(FAILURES / 2).fill('agent_error'));
      // worker b saw only half the failures: the circuit is the agent's, not the worker's
      expect(await runOn(b, 1)).toEqual(['circuit_open']);
      expect(upstream.calls.get('/switch')).toBe(FAILURES);
      const open = (await breakerOf(AGENT)).breaker;
      expect(open).toMatchObject({
        state: 'open',
        consecutiveFailures: FAILURES,
        cooldownSeconds: COOLDOWN_MS / 1000,
        lastFailure: { error: expect.stringContaining('answered 500') },
      });
      expect(Date.parse(open!.openUntil!) - Date.parse(open!.openedAt!)).toBe(COOLDOWN_MS);

      // a worker restart: a new worker process knows nothing in memory, and still finds it open
      await b.stop();
      b = await startWorker();
      expect(await runOn(b, 1)).toEqual(['circuit_open']);
      expect(upstream.calls.get('/switch')).toBe(FAILURES);

      // the cool-down's end, on an agent whose circuit a worker with a short cool-down opens
      trial = await startWorker(TRIAL_COOLDOWN_MS);
      expect(await runOn(trial, FAILURES, TRIAL_AGENT)).toEqual(Array(FAILURES).fill('agent_error'));
      expect(upstream.calls.get('/switch')).toBe(2 * FAILURES);
      const opened = (await breakerOf(TRIAL_AGENT)).breaker;
      expect(opened).toMatchObject({ consecutiveFailures: FAILURES, cooldownSeconds: TRIAL_COOLDOWN_MS / 1000 });
      expect(Date.parse(opened!.openUntil!) - Date.parse(opened!.openedAt!)).toBe(TRIAL_COOLDOWN_MS);

      // after the cool-down: half-open, one trial step goes through and closes it
      upstream.state.healthy = true;
      await pollUntil(async () => (await breakerOf(TRIAL_AGENT)).breaker?.state === 'half_open', 'the breaker never half-opened', 30_000);
      expect(await runOn(trial, 1, TRIAL_AGENT)).toEqual([null]);
      expect(upstream.calls.get('/switch')).toBe(2 * FAILURES + 1);
      await pollUntil(
        async () => (await breakerOf(TRIAL_AGENT)).breaker?.state === 'closed',
        'the trial success never closed the breaker',
        10_000,
      );
      expect((await breakerOf(TRIAL_AGENT)).breaker).toMatchObject({ state: 'closed', consecutiveFailures: 0 });
      expect(await runOn(a, 2, TRIAL_AGENT)).toEqual([null, null]);
      // the first agent's circuit is still within its cool-down, healthy upstream or not
      expect(await runOn(a, 1)).toEqual(['circuit_open']);
      expect(upstream.calls.get('/switch')).toBe(2 * FAILURES + 3);
    } finally {
      await a.stop();
      await b.stop();
      await trial?.stop();
    }
  });

  it('GET /v1/agents/:id: builtin agents have no breaker; an unknown agent is 404', async () => {
    const echo = await app.inject({ method: 'GET', url: '/v1/agents/echo', headers: authHeader('default') });
    expect(echo.statusCode).toBe(200);
    expect(echo.json()).toMatchObject({ id: 'echo', kind: 'builtin', breaker: null });
    const unknown = await app.inject({ method: 'GET', url: '/v1/agents/no-such-agent', headers: authHeader('default') });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ status: 404, detail: expect.stringContaining('no-such-agent') });
  });
});

describe('the breaker workflow', () => {
  it('keeps its state and its memo across continue-as-new', async () => {
    const client = await testClient();
    const workflowId = `breaker/${uniqueId('brk-can')}`;
    const h = await client.workflow.start(agentBreaker, {
      taskQueue: inject('taskQueue'),
      workflowId,
      args: [{ agentId: 'x', settings: { failures: 3, cooldownMs: 600_000 }, eventsPerRun: 20 }],
    });
    // the run checks its history length when an outcome arrives: send until it has moved to a new run
    let sent = 0;
    while ((await h.describe()).runId === h.firstExecutionRunId && sent < 60) {
      await h.signal(stepOutcomeSignal, { ok: false, at: Date.now(), error: `failure ${sent}` });
      sent++;
    }
    // a busy worker may still be working through the signals it was sent: wait for the new run
    await pollUntil(async () => (await h.describe()).runId !== h.firstExecutionRunId, `no continue-as-new after ${sent} outcomes`);
    const last = `failure ${sent - 1}`;
    await pollUntil(
      async () => ((await h.describe()).memo?.[BREAKER_MEMO_KEY] as BreakerState | undefined)?.outcomes === sent,
      `the new run's memo never showed all ${sent} outcomes`,
    );
    const memo = (await h.describe()).memo?.[BREAKER_MEMO_KEY] as BreakerState;
    expect(memo).toMatchObject({ state: 'open', consecutiveFailures: sent, outcomes: sent, lastFailure: { error: last } });
    await h.cancel();
  });
});

describe('transient faults', () => {
  it('never reach the breaker: attempts that are retried send no outcome, and every step succeeds', async () => {
    const worker = await startWorker();
    try {
      // twice the threshold of failed attempts in a row, each told by its retry
      expect(await runOn(worker, FAILURES, FLAKY_AGENT)).toEqual(Array(FAILURES).fill(null));
    } finally {
      await worker.stop();
    }
    expect(upstream.calls.get('/flaky')).toBe(FAILURES * 3);
    // no outcome was sent: the breaker's workflow (signal-with-start at the first failure) was never started
    const client = await testClient();
    await expect(client.workflow.getHandle(`breaker/default/${FLAKY_AGENT}`).describe()).rejects.toThrow(/not found/i);
    expect((await breakerOf(FLAKY_AGENT)).breaker).toMatchObject({ state: 'closed', consecutiveFailures: 0 });
  });
});

describe('circuit breaker (shared worker)', () => {
  it('fails fast with circuit_open once a remote agent has failed 5 steps in a row', async () => {
    const r = await runJob({
      jobId: uniqueId('circuit'),
      pattern: 'fanout',
      maxParallel: 1,
      tasks: Array.from({ length: 7 }, (_, i) => ({
        id: `d${i}`,
        question: 'q',
        agent: 'down-http',
        retry: { ...fastRetry, maxAttempts: 1 },
      })),
    });
    const reasons = r.results.map((x) => x.failureReason);
    expect(reasons.slice(0, 5)).toEqual(Array(5).fill('agent_error'));
    expect(reasons.slice(5)).toEqual(['circuit_open', 'circuit_open']);
    expect(r.results[6].errors[0]).toContain('circuit open');
  });
});
