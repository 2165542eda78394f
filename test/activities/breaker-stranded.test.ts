/**
 * A breaker left behind: an operator renamed the workflow task queue (DELEGATE_TASK_QUEUE) and the
 * breaker's run stayed on the old one, which no worker serves. The workers move it onto their own
 * queue with its state, so it keeps counting and opening; one that no worker serves at all is
 * skipped after a short wait, logged once, and no step waits on it again.
 */
import type { Client } from '@temporalio/client';
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createCircuitBreaker, type BreakerTarget, type CircuitBreakerOptions } from '../../activities/circuit-breaker';
import type { BreakerState } from '../../core/breaker-state';
import { BREAKER_MEMO_KEY, breakerWorkflowId } from '../../core/names';
import { agentBreaker } from '../../workflows/agent-breaker';
import { releaseTrialSignal, stepOutcomeSignal } from '../../contracts/messages';
import { startDedicatedWorker } from '../dedicated-worker';
import { pollUntil, testClient, uniqueId } from '../helpers';

const settings = { failures: 3, cooldownMs: 600_000 };
/** What a step may lose to a breaker no worker serves: the steps lost 2 to 5 s each. */
const BOUND_MS = 1500;
const ticket = (holder: string) => ({ holder, leaseMs: 60_000 });
let client: Client;

beforeAll(async () => {
  client = await testClient();
});

/** A target of its own per test: a fresh agent id. */
const target = (name: string): BreakerTarget => ({ agentId: uniqueId(name).replace(/[^A-Za-z0-9_.-]/g, '-'), tenant: 'default' });

/**
 * Leaves `t`'s breaker as a renamed queue does: running on `queue`, with the memo of the last state a
 * worker published there, and one more signal it never applied: a step's failure, or a no-op.
 */
async function strand(t: BreakerTarget, queue: string, memo: BreakerState, unapplied: 'failure' | 'none' = 'failure') {
  const workflowId = breakerWorkflowId(t.agentId, t.tenant);
  const options = { workflowId, taskQueue: queue, args: [{ agentId: t.agentId, tenant: t.tenant, settings, carry: memo }] as const };
  const memoed = { ...options, memo: { [BREAKER_MEMO_KEY]: memo } };
  if (unapplied === 'failure')
    await client.workflow.signalWithStart(agentBreaker, {
      ...memoed,
      signal: stepOutcomeSignal,
      signalArgs: [{ ok: false, at: Date.now(), error: 'sent before the rename' }],
    });
  else await client.workflow.signalWithStart(agentBreaker, { ...memoed, signal: releaseTrialSignal, signalArgs: [{ holder: 'nobody' }] });
}

/** The breaker's run as Temporal describes it: its queue and its memo. */
async function runOf(t: BreakerTarget) {
  const d = await client.workflow.getHandle(breakerWorkflowId(t.agentId, t.tenant)).describe();
  return { taskQueue: d.taskQueue, status: d.status.name, state: d.memo?.[BREAKER_MEMO_KEY] as BreakerState | undefined };
}

/** `f`'s result and how long it took. */
async function timed<T>(f: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await f();
  return { value, ms: performance.now() - start };
}

/** A worker's breaker client whose breakers run on `taskQueue`, with spies on what it reports. */
function breakerOn(taskQueue: string) {
  const onError = vi.fn<NonNullable<CircuitBreakerOptions['onError']>>();
  const onMoved = vi.fn<NonNullable<CircuitBreakerOptions['onMoved']>>();
  const breaker = createCircuitBreaker({ client, taskQueue, ...settings, onError, onMoved });
  return { breaker, onError, onMoved };
}

describe('a breaker stranded on a queue no worker serves', () => {
  it('moves to the worker queue with what it would hold: no call waits on it, and failures still open it', async () => {
    const t = target('stranded');
    const old = uniqueId('nobody-serves-this');
    // one failure counted while the old queue was served, one more sent there after the rename
    await strand(t, old, { state: 'closed', consecutiveFailures: 1, settings, outcomes: 1 });
    const { breaker, onError, onMoved } = breakerOn(inject('taskQueue'));

    const check = await timed(() => breaker.blockedFor(t, ticket('s1')));
    expect(check.value).toBe(0);
    expect(await runOf(t)).toMatchObject({
      taskQueue: inject('taskQueue'),
      status: 'RUNNING',
      state: { state: 'closed', consecutiveFailures: 2, outcomes: 2, lastFailure: { error: 'sent before the rename' } },
    });
    // the new run is served: it applies the failure that opens the circuit, and the next step is refused
    const failed = await timed(() => breaker.failed(t, 'still down'));
    const open = await timed(() => breaker.blockedFor(t, ticket('s2')));
    expect(open.value).toBeGreaterThan(0);
    expect((await runOf(t)).state).toMatchObject({ state: 'open', consecutiveFailures: 3, outcomes: 3 });
    for (const call of [check, failed, open]) expect(call.ms).toBeLessThan(BOUND_MS);
    expect(onMoved).toHaveBeenCalledTimes(1);
    expect(onMoved).toHaveBeenCalledWith(t.agentId, old, inject('taskQueue'), t.tenant);
    expect(onError).not.toHaveBeenCalled();
  });

  it('a failure this worker sent to the stranded run still counts: the very next step finds the circuit open', async () => {
    const t = target('stranded-confirm');
    await strand(t, uniqueId('nobody-serves-this'), { state: 'closed', consecutiveFailures: 1, settings, outcomes: 1 });
    const { breaker, onError, onMoved } = breakerOn(inject('taskQueue'));
    const failed = await timed(() => breaker.failed(t, 'after the rename'));
    const open = await timed(() => breaker.blockedFor(t, ticket('c1')));
    expect(open.value).toBeGreaterThan(0);
    expect(await runOf(t)).toMatchObject({
      taskQueue: inject('taskQueue'),
      state: { state: 'open', consecutiveFailures: 3, outcomes: 3, lastFailure: { error: 'after the rename' } },
    });
    for (const call of [failed, open]) expect(call.ms).toBeLessThan(BOUND_MS);
    expect(onMoved).toHaveBeenCalledTimes(1);
    expect(onError).not.toHaveBeenCalled();
  });

  it('a success reaches a stranded breaker within the bound and closes it on the worker queue', async () => {
    const t = target('stranded-ok');
    await strand(t, uniqueId('nobody-serves-this'), { state: 'closed', consecutiveFailures: 1, settings, outcomes: 1 });
    const { breaker, onError } = breakerOn(inject('taskQueue'));
    const ok = await timed(() => breaker.succeeded(t));
    expect(ok.ms).toBeLessThan(BOUND_MS);
    // applied by the new run: the memo counts the carried outcomes and the success
    await pollUntil(async () => (await runOf(t)).state?.outcomes === 3, 'the moved breaker never applied the success');
    expect(await runOf(t)).toMatchObject({ taskQueue: inject('taskQueue'), state: { state: 'closed', consecutiveFailures: 0 } });
    const check = await timed(() => breaker.blockedFor(t, ticket('ok1')));
    expect(check.value).toBe(0);
    expect(check.ms).toBeLessThan(BOUND_MS);
    expect(onError).not.toHaveBeenCalled();
  });

  it('a half-open breaker left there grants its one trial step from the worker queue', async () => {
    const t = target('stranded-trial');
    const past = Date.now() - 1000;
    const opened = {
      state: 'open' as const,
      consecutiveFailures: 3,
      settings,
      outcomes: 3,
      openedAt: past - settings.cooldownMs,
      openUntil: past,
    };
    await strand(t, uniqueId('nobody-serves-this'), opened, 'none');
    const { breaker, onError } = breakerOn(inject('taskQueue'));
    const first = await timed(() => breaker.blockedFor(t, ticket('trial-1')));
    const second = await timed(() => breaker.blockedFor(t, ticket('trial-2')));
    // the trial is held by the first step: the breaker answered, from its new queue
    expect(first.value).toBe(0);
    expect(second.value).toBeGreaterThan(0);
    expect(first.ms).toBeLessThan(BOUND_MS);
    expect(second.ms).toBeLessThan(BOUND_MS);
    expect(await runOf(t)).toMatchObject({ taskQueue: inject('taskQueue'), state: { trial: { holder: 'trial-1' } } });
    expect(onError).not.toHaveBeenCalled();
  });

  it("the rename as it happens: while the old queue's worker runs, the breaker stays there; once it stops, one short wait moves it", async () => {
    const t = target('renamed');
    const old = await startDedicatedWorker({});
    const { breaker, onError, onMoved } = breakerOn(inject('taskQueue'));
    try {
      // the old generation's worker counts a failure on its own queue
      await createCircuitBreaker({ client, taskQueue: old.taskQueue, ...settings }).failed(t, 'on the old queue');
      await pollUntil(async () => (await runOf(t)).state?.outcomes === 1, 'the old queue never applied the failure');
      // a step on a new-generation worker: checked, then failed; the next check waits until the old queue applies it
      expect(await breaker.blockedFor(t, ticket('r1'))).toBe(0);
      await breaker.failed(t, 'from the new queue');
      const served = await timed(() => breaker.blockedFor(t, ticket('r2')));
      expect(served.value).toBe(0);
      // served there, it stays: two generations of workers do not toss it back and forth
      expect(await runOf(t)).toMatchObject({ taskQueue: old.taskQueue, state: { consecutiveFailures: 2, outcomes: 2 } });
      expect(onMoved).not.toHaveBeenCalled();
    } finally {
      await old.stop();
    }
    // the old worker is gone (Temporal still lists its pollers for a minute): the next failure waits there, then moves
    const failed = await timed(() => breaker.failed(t, 'after the old worker stopped'));
    const open = await timed(() => breaker.blockedFor(t, ticket('r3')));
    expect(open.value).toBeGreaterThan(0);
    expect(await runOf(t)).toMatchObject({
      taskQueue: inject('taskQueue'),
      state: { state: 'open', consecutiveFailures: 3, outcomes: 3, lastFailure: { error: 'after the old worker stopped' } },
    });
    for (const call of [failed, open]) expect(call.ms).toBeLessThan(BOUND_MS);
    expect(onMoved).toHaveBeenCalledTimes(1);
    expect(onError).not.toHaveBeenCalled();
  });
});

describe('a breaker no worker serves at all', () => {
  it('is skipped after a short wait, logged once, and no later step waits on it', async () => {
    const t = target('unserved');
    // the worker's own breaker queue is one nobody polls: there is nowhere to move it
    const { breaker, onError, onMoved } = breakerOn(uniqueId('nobody-serves-this'));
    const times: number[] = [];
    for (let step = 0; step < 6; step++) {
      times.push((await timed(() => breaker.failed(t, `failure ${step}`))).ms);
      const check = await timed(() => breaker.blockedFor(t, ticket(`u${step}`)));
      // Temporal answers, the breaker does not: the step goes ahead, as when Temporal cannot be asked
      expect(check.value).toBe(0);
      times.push(check.ms);
    }
    times.push((await timed(() => breaker.succeeded(t))).ms);
    for (const ms of times) expect(ms).toBeLessThan(BOUND_MS);
    // one short wait at most, the first time: every later check is skipped
    expect(times.slice(2).reduce((a, b) => a + b, 0)).toBeLessThan(BOUND_MS);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError.mock.calls[0].slice(0, 2)).toEqual(['reach', t.agentId]);
    expect(onMoved).not.toHaveBeenCalled();
  });
});
