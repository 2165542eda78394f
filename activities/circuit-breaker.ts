/**
 * The workers' side of the durable circuit breaker: one breaker per remote agent and tenant
 * lives in an entity workflow (workflows/agent-breaker.ts), shared by every worker and
 * surviving restarts. This client reports step outcomes to it and reads its state from the
 * workflow's memo. A tenant's failing steps open its own circuit only: another tenant's next
 * step on the same agent goes ahead.
 *
 *   step ends ──failed / succeeded──> signalWithStart(stepOutcome) ──> breaker/<tenant>/<agentId>
 *   step starts ──blockedFor──> memo (describe, cached ~1 s; after a failure, read until it shows it) ── half-open? ──> acquireTrial (update)
 *
 * A success is only sent while the breaker has something to forget (failures counted, or not
 * closed), so a healthy agent costs no workflow at all. A breaker Temporal cannot be asked
 * about lets steps through (logged): it protects agents, it must not stop them.
 *
 * A breaker also outlives its task queue: a run stranded on a queue no worker polls is moved here,
 * and one no worker serves at all is skipped for a while, logged once (breaker-runs.ts); a skipped
 * breaker is still read, never waited on.
 */
import { WorkflowNotFoundError, WorkflowUpdateRPCTimeoutOrCancelledError, isGrpcDeadlineError, type Client } from '@temporalio/client';
import { DEFAULT_BREAKER_SETTINGS, type BreakerSettings, type CircuitState } from '../schemas/breaker';
import type { AgentBreakerWorkflow } from '../contracts/breaker';
import { acquireTrialUpdate, releaseTrialSignal, stepOutcomeSignal } from '../contracts/messages';
import { phaseAt, type BreakerState, type StepOutcome, type TrialGrant } from '../core/breaker-state';
import { createBreakerRuns, idOf, inputOf, summaryOf, type BreakerTarget, type Seen } from './breaker-runs';

export type { CircuitState } from '../schemas/breaker';

/** Options of `createCircuitBreaker`. */
export interface CircuitBreakerOptions {
  /** The Temporal client the breaker workflows are reached through. */
  client: Client;
  /** Where the breaker workflows run: a queue a worker always serves (the shared workflow queue). A breaker found on another queue that no worker serves is moved here. */
  taskQueue: string;
  /** Failed steps in a row that open the circuit. @default 5 */
  failures?: number;
  /** How long an open circuit refuses steps. @default 30000 */
  cooldownMs?: number;
  /** How long a read of a breaker's memo is trusted. @default 1000 */
  cacheMs?: number;
  /** How long a check waits for the memo to show the failures this worker reported. @default 2000 */
  confirmMs?: number;
  /** How long a wait on a breaker goes on before asking whether a worker serves it at all. @default 500 */
  unservedMs?: number;
  /** How long a breaker no worker serves is skipped (its steps go ahead) before it is tried again. @default 30000 */
  skipMs?: number;
  /** Told when Temporal could not be asked, or no worker serves the breaker (`what` is `reach`, told once until it answers again): the breaker then lets steps through. */
  onError?: (what: string, agentId: string, err: unknown, tenant?: string) => void;
  /** Told when a breaker's run was moved off a queue no worker serves (`from`) onto this worker's (`to`). */
  onMoved?: (agentId: string, from: string, to: string, tenant?: string) => void;
  /** Clock, for tests. @default Date.now */
  now?: () => number;
}

export type { BreakerTarget } from './breaker-runs';

/** Who asks for a step: the step's key and attempt, so a half-open trial is held by exactly one step. */
export interface StepTicket {
  holder: string;
  /** How long the step may take: the trial's lease. */
  leaseMs: number;
}

/** The breaker's interface. */
export interface CircuitBreaker {
  /** Milliseconds until the target's circuit lets a step through; 0 when this step may run now (it may be the half-open trial). */
  blockedFor(target: BreakerTarget, ticket: StepTicket): Promise<number>;
  succeeded(target: BreakerTarget): Promise<void>;
  failed(target: BreakerTarget, error?: string): Promise<void>;
  /** A step that ended without a verdict (cancelled): frees its half-open trial. */
  abandoned(target: BreakerTarget, ticket: StepTicket): Promise<void>;
  /** Each agent's circuit as this worker last saw it (for /metrics), agents it has seen only: the most restrictive of its tenants' circuits. */
  states(): Map<string, CircuitState>;
}

/** What this worker knows of one breaker. */
interface Known {
  agentId: string;
  /** The memo as last read (undefined: no breaker workflow, i.e. closed). */
  state?: BreakerState;
  readAt: number;
  /** Outcomes this worker sent since that read, and the failures among them (no success in between). */
  sent: number;
  failuresSince: number;
  /** A failure was sent since the read: the next check waits until the memo shows it. */
  confirm: boolean;
  /** When this worker last sent a failure: for a while after, every success is sent at once too. */
  lastFailureAt?: number;
}

/**
 * How long after a failure this worker sends every success at once. A success is otherwise sent only
 * once a read shows something to forget, so concurrent steps' failures (sent at once) would reach the
 * breaker as a run with the successes between them missing: a 10% transient fault rate over 50 steps
 * in flight opened the circuit.
 */
const EAGER_SUCCESS_MS = 30_000;

/** The more, the fewer steps get through: an agent's gauge shows its most restrictive tenant circuit. */
const RESTRICTION: Record<CircuitState, number> = { closed: 0, half_open: 1, open: 2 };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Creates the workers' client of the durable breakers. */
export function createCircuitBreaker(opts: CircuitBreakerOptions): CircuitBreaker {
  const { client, taskQueue, cacheMs = 1000, confirmMs = 2000, unservedMs = 500, skipMs = 30_000, now = Date.now } = opts;
  const settings: BreakerSettings = {
    failures: opts.failures ?? DEFAULT_BREAKER_SETTINGS.failures,
    cooldownMs: opts.cooldownMs ?? DEFAULT_BREAKER_SETTINGS.cooldownMs,
  };
  const onError = opts.onError ?? (() => {});
  /** Keyed by the breaker's workflow id (agent and tenant). */
  const known = new Map<string, Known>();
  const fail = (what: string, t: BreakerTarget, err: unknown) => onError(what, t.agentId, err, t.tenant);
  const handle = (t: BreakerTarget) => client.workflow.getHandle(idOf(t));
  const { read, reach, skipped, answered } = createBreakerRuns({
    client,
    taskQueue,
    settings,
    unservedMs,
    skipMs,
    now,
    fail,
    onMoved: opts.onMoved,
  });

  /** The breaker's state, from the cache while fresh; after a failure that may have opened it, once the memo shows it. */
  async function current(t: BreakerTarget): Promise<BreakerState | undefined> {
    const k = known.get(idOf(t));
    if (k && !k.confirm && now() - k.readAt < cacheMs) return k.state;
    const until = now() + confirmMs;
    const expected = (k?.state?.outcomes ?? 0) + (k?.sent ?? 0);
    const shows = (seen?: Seen) => (seen?.state?.outcomes ?? 0) >= expected;
    let seen = await reach(t, await read(t));
    // the signals are in the workflow's history; the memo follows within a workflow task (a moved run's at once)
    const confirm = k?.confirm && !skipped(t);
    while (confirm && !shows(seen) && !seen?.moved && !skipped(t) && now() < until) {
      await sleep(50);
      seen = await reach(t, await read(t));
    }
    if (confirm && shows(seen)) answered(t);
    const last = known.get(idOf(t))?.lastFailureAt;
    known.set(idOf(t), {
      agentId: t.agentId,
      state: seen?.state,
      readAt: now(),
      sent: 0,
      failuresSince: 0,
      confirm: false,
      ...(last !== undefined ? { lastFailureAt: last } : {}),
    });
    return seen?.state;
  }

  /** Asks for the half-open trial; no answer within unservedMs asks whether the breaker is served (moved, skipped, or just slow: then the rest of 5 s). */
  async function trial(t: BreakerTarget, ticket: StepTicket): Promise<TrialGrant | undefined> {
    const ask = (ms: number) =>
      client.withDeadline(now() + ms, () =>
        handle(t).executeUpdate(acquireTrialUpdate, { args: [{ holder: ticket.holder, leaseMs: ticket.leaseMs }] }),
      );
    try {
      return await ask(unservedMs);
    } catch (err) {
      if (!(err instanceof WorkflowUpdateRPCTimeoutOrCancelledError || isGrpcDeadlineError(err))) throw err;
    }
    // asking again with the same holder renews the same trial, whether or not the first request got in
    await reach(t, await read(t), true);
    return skipped(t) ? undefined : ask(5000 - unservedMs);
  }

  async function report(t: BreakerTarget, outcome: StepOutcome): Promise<void> {
    try {
      await client.workflow.signalWithStart<AgentBreakerWorkflow, [StepOutcome]>('agentBreaker', {
        workflowId: idOf(t),
        taskQueue,
        args: [inputOf(t, settings)],
        signal: stepOutcomeSignal,
        signalArgs: [outcome],
        staticSummary: summaryOf(t),
      });
    } catch (err) {
      fail('report a step outcome to', t, err);
    }
  }

  return {
    async blockedFor(t, ticket) {
      let state: BreakerState | undefined;
      try {
        state = await current(t);
      } catch (err) {
        fail('read', t, err);
        return 0;
      }
      if (!state) return 0;
      const phase = phaseAt(state, now());
      if (phase === 'closed') return 0;
      if (phase === 'open') return Math.max(1, (state.openUntil ?? 0) - now());
      // half-open: a breaker no worker serves cannot grant the trial, and must not hold the step
      if (skipped(t)) return 0;
      try {
        const grant = await trial(t, ticket);
        // granted or not, the trial changed the breaker: read it afresh next time
        known.delete(idOf(t));
        if (!grant) return 0;
        answered(t);
        return grant.granted ? 0 : Math.max(1, grant.waitMs);
      } catch (err) {
        fail('ask for a trial step of', t, err);
        return 0;
      }
    },
    async failed(t, error) {
      // counted before it is sent: a success that ends while the signal is on its way must see it and be reported
      const k = known.get(idOf(t)) ?? { agentId: t.agentId, readAt: 0, sent: 0, failuresSince: 0, confirm: false };
      k.sent++;
      k.failuresSince++;
      // the memo may lag (and may not yet show another worker's failures): the next check reads it
      // afresh and waits until it holds this worker's outcomes, so the failure that opens the
      // circuit stops the very next step
      k.confirm = true;
      k.lastFailureAt = now();
      known.set(idOf(t), k);
      await report(t, { ok: false, at: now(), settings, ...(error ? { error: error.slice(0, 300) } : {}) });
    },
    async succeeded(t) {
      let k = known.get(idOf(t));
      const eager = k?.lastFailureAt !== undefined && now() - k.lastFailureAt < EAGER_SUCCESS_MS;
      if (!eager && (!k || (k.failuresSince === 0 && now() - k.readAt >= cacheMs))) {
        await current(t).catch(() => undefined);
        k = known.get(idOf(t));
      }
      // nothing to forget: a closed breaker with no failures, as last read and since
      if (!eager && k && k.failuresSince === 0 && (!k.state || (k.state.state === 'closed' && k.state.consecutiveFailures === 0))) return;
      const failuresBefore = k?.failuresSince ?? 0;
      await report(t, { ok: true, at: now(), settings });
      // what this worker saw: its own success closed it (another worker's failure may follow; the next read
      // tells), except for failures of its own reported while this success was on its way, which still count
      const seen = known.get(idOf(t));
      const failuresSince = Math.max(0, (seen?.failuresSince ?? 0) - failuresBefore);
      known.set(idOf(t), {
        agentId: t.agentId,
        state: seen?.state && { ...seen.state, state: 'closed', consecutiveFailures: 0, trial: undefined },
        readAt: seen?.readAt ?? 0,
        sent: (seen?.sent ?? 0) + 1,
        failuresSince,
        confirm: failuresSince > 0 && (seen?.confirm ?? false),
        ...(seen?.lastFailureAt !== undefined ? { lastFailureAt: seen.lastFailureAt } : {}),
      });
    },
    async abandoned(t, ticket) {
      const state = known.get(idOf(t))?.state;
      if (state && phaseAt(state, now()) === 'closed') return;
      try {
        await handle(t).signal(releaseTrialSignal, { holder: ticket.holder });
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) fail('free the trial of', t, err);
      }
    },
    states() {
      const at = now();
      const worst = new Map<string, CircuitState>();
      for (const k of known.values()) {
        const phase = k.state ? phaseAt(k.state, at) : 'closed';
        const seen = worst.get(k.agentId);
        if (!seen || RESTRICTION[phase] > RESTRICTION[seen]) worst.set(k.agentId, phase);
      }
      return worst;
    },
  };
}
