/**
 * Fallback agents: a task whose agent's circuit is open, or whose agent fails for good, moves
 * on to its next fallback within the same budget; the result lists every agent tried.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinAgents, createAgentRegistry, createHttpAgent } from '../../activities';
import type { TaskResult, TaskSpec } from '../../schemas';
import { delegationJob } from '../../workflows/delegation-job';
import { startAgentUpstream } from '../agent-upstream';
import { startDedicatedWorker } from '../dedicated-worker';
import type { EngineLimits } from '../../core/engine-limits';
import { fastRetry, runsOf, testClient, uniqueId } from '../helpers';

const upstream = await startAgentUpstream();
const id = (name: string) => uniqueId(name).replace(/[^A-Za-z0-9_.-]/g, '-');
const DOWN = id('fb-down');
const FAILING = id('fb-fail');
// a failing agent of its own per test: two failures open a circuit
const FAILING_TOO = id('fb-fail-too');
const FAILING_LONG = id('fb-fail-long');
const OK = id('fb-ok');
const SPENDER = id('fb-spend');
const STEPPER = id('fb-steps');
const http = (agent: string, mode: string, maxAttempts = 1) =>
  createHttpAgent({ id: agent, url: `${upstream.url}/${mode}`, timeoutSeconds: 5, retry: { ...fastRetry, maxAttempts } });
let worker: Awaited<ReturnType<typeof startDedicatedWorker>>;

beforeAll(async () => {
  const registry = createAgentRegistry([
    ...builtinAgents,
    http(DOWN, 'fail'),
    http(FAILING, 'fail', 2),
    http(FAILING_TOO, 'fail'),
    http(FAILING_LONG, 'fail'),
    http(OK, 'ok'),
    http(SPENDER, 'spend'),
    http(STEPPER, 'steps'),
  ]);
  // two failures in a row open a circuit here, for long enough to outlast the file
  worker = await startDedicatedWorker({ registry, breaker: { failures: 2, cooldownMs: 600_000 } });
});
afterAll(async () => {
  await worker?.stop();
});

let lastJob = '';
async function run(tasks: TaskSpec[], maxParallel = 10, limits: EngineLimits = {}): Promise<TaskResult[]> {
  const client = await testClient();
  const jobId = uniqueId('fb-job');
  lastJob = `job/test/${jobId}`;
  const r = await client.workflow.execute(delegationJob, {
    taskQueue: worker.taskQueue,
    workflowId: lastJob,
    args: [{ spec: { jobId, pattern: 'fanout', maxParallel, tasks }, tenant: 'test', maxDepth: 1, limits }],
  });
  return r.results;
}

describe('fallback agents', () => {
  it("falls back when the agent's circuit is open; agentsTried lists both", async () => {
    // open the circuit: two failed steps in a row
    expect(
      (
        await run(
          [
            { id: 'a', question: 'q', agent: DOWN },
            { id: 'b', question: 'q', agent: DOWN },
          ],
          1,
        )
      ).map((r) => r.failureReason),
    ).toEqual(['agent_error', 'agent_error']);
    const [r] = await run([{ id: 'fb', question: 'q', agent: DOWN, fallback: ['echo'] }]);
    expect(r).toMatchObject({ status: 'success', agentId: 'echo', failureReason: null, summary: 'q' });
    expect(r.agentsTried).toEqual([
      { agent: DOWN, outcome: 'failure', reason: 'circuit_open', error: expect.stringContaining('circuit open') },
      { agent: 'echo', outcome: 'success' },
    ]);
  });

  it('falls back after a final failure (retries exhausted)', async () => {
    const [r] = await run([{ id: 'fb', question: 'q', agent: FAILING, fallback: [OK] }]);
    expect(r).toMatchObject({ status: 'success', agentId: OK, data: { path: '/ok' } });
    expect(r.metrics.attempts).toBe(3); // two attempts of the failing agent, one of the fallback
    expect(r.agentsTried).toEqual([
      { agent: FAILING, outcome: 'failure', reason: 'agent_error', error: expect.stringContaining('answered 500') },
      { agent: OK, outcome: 'success' },
    ]);
  });

  it('shares one budget: what the first agent spent is spent for the fallback too', async () => {
    // the first agent spends $0.3 and then fails; the fallback spends $0.3 a step and never finishes
    const [r] = await run([{ id: 'fb', question: 'q', agent: SPENDER, fallback: [STEPPER], budget: { costUsd: 0.5 } }]);
    expect(r.metrics.costUsd).toBeCloseTo(0.6, 6);
    expect(r.metrics.steps).toBe(2);
    expect(r).toMatchObject({ agentId: STEPPER, status: 'partial', failureReason: 'budget_exhausted' });
    expect(r.agentsTried?.map((t) => [t.agent, t.outcome, t.reason])).toEqual([
      [SPENDER, 'failure', 'agent_error'],
      [STEPPER, 'partial', 'budget_exhausted'],
    ]);
  });

  it('fails with every agent listed when all of them fail', async () => {
    const [r] = await run([{ id: 'fb', question: 'q', agent: 'sim', params: { fatal: true }, fallback: [FAILING_TOO, 'sim'] }]);
    expect(r).toMatchObject({ status: 'failure', failureReason: 'agent_error', agentId: 'sim' });
    expect(r.agentsTried?.map((t) => [t.agent, t.outcome, t.reason])).toEqual([
      ['sim', 'failure', 'agent_error'],
      [FAILING_TOO, 'failure', 'agent_error'],
      ['sim', 'failure', 'agent_error'],
    ]);
    expect(r.errors.join('\n')).toMatch(/sim: fatal error[\s\S]*answered 500[\s\S]*sim: fatal error/);
  });

  it('falls back when the agent is not there at all (no_agent)', async () => {
    const [r] = await run([{ id: 'fb', question: 'q', agent: 'retired-agent', fallback: ['echo'] }]);
    expect(r).toMatchObject({ status: 'success', agentId: 'echo' });
    expect(r.agentsTried?.map((t) => [t.agent, t.outcome, t.reason])).toEqual([
      ['retired-agent', 'failure', 'no_agent'],
      ['echo', 'success', undefined],
    ]);
  });

  it('carries the fallback position into a continued run of a long subtask', async () => {
    const [r] = await run([{ id: 'long', question: 'q', agent: FAILING_LONG, params: { steps: 5 }, fallback: ['sim'] }], 1, {
      subtaskStepsPerRun: 2,
    });
    expect(r).toMatchObject({ status: 'success', agentId: 'sim', metrics: { steps: 5 } });
    expect(r.agentsTried?.map((t) => [t.agent, t.outcome, t.reason])).toEqual([
      [FAILING_LONG, 'failure', 'agent_error'],
      ['sim', 'success', undefined],
    ]);
    expect((await runsOf(`${lastJob}/long`)).length).toBeGreaterThan(1);
  });
});
