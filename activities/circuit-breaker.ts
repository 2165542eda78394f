/**
 * The workers' side of the durable circuit breaker: one breaker per remote agent lives in an
 * entity workflow (workflows/agent-breaker.ts), shared by every worker and surviving restarts.
 * This client reports step outcomes to it and reads its state from the workflow's memo.
 *
 *   step ends ──failed / succeeded──> signalWithStart(stepOutcome) ──> breaker/<agentId>
 *   step starts ──blockedFor──> memo (describe, cached ~1 s; after a failure, read until it shows it) ── half-open? ──> acquireTrial (update)
 *
 * A success is only sent while the breaker has something to forget (failures counted, or not
 * closed), so a healthy agent costs no workflow at all. A breaker Temporal cannot be asked
 * about lets steps through (logged): it protects agents, it must not stop them.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { DEFAULT_BREAKER_SETTINGS, type BreakerSettings, type CircuitState } from '../schemas/breaker';
import { acquireTrialUpdate, agentBreaker, BREAKER_MEMO_KEY, breakerWorkflowId, releaseTrialSignal, stepOutcomeSignal } from '../workflows/agent-breaker';
import { phaseAt, type BreakerState, type StepOutcome } from '../workflows/breaker-state';

export type { CircuitState } from '../schemas/breaker';

/** Options of `createCircuitBreaker`. */
export interface CircuitBreakerOptions {
  /** The Temporal client the breaker workflows are reached through. */
  client: Client;
  /** Where the breaker workflows run: a queue a worker always serves (the shared workflow queue). */
  taskQueue: string;
  /** Failed steps in a row that open the circuit. @default 5 */
  failures?: number;
  /** How long an open circuit refuses steps. @default 30000 */
  cooldownMs?: number;
  /** How long a read of a breaker's memo is trusted. @default 1000 */
  cacheMs?: number;
  /** How long a check waits for the memo to show the failures this worker reported. @default 2000 */
  confirmMs?: number;
  /** Told when Temporal could not be asked (the breaker then lets steps through). */
  onError?: (what: string, agentId: string, err: unknown) => void;
  /** Clock, for tests. @default Date.now */
  now?: () => number;
}

/** Who asks for a step: the step's key and attempt, so a half-open trial is held by exactly one step. */
export interface StepTicket {
  holder: string;
  /** How long the step may take: the trial's lease. */
  leaseMs: number;
}

/** The breaker's interface. */
export interface CircuitBreaker {
  /** Milliseconds until the agent's circuit lets a step through; 0 when this step may run now (it may be the half-open trial). */
  blockedFor(agentId: string, ticket: StepTicket): Promise<number>;
  succeeded(agentId: string): Promise<void>;
  failed(agentId: string, error?: string): Promise<void>;
  /** A step that ended without a verdict (cancelled): frees its half-open trial. */
  abandoned(agentId: string, ticket: StepTicket): Promise<void>;
  /** Each agent's circuit as this worker last saw it (for /metrics), agents it has seen only. */
  states(): Map<string, CircuitState>;
}

/** What this worker knows of one breaker. */
interface Known {
  /** The memo as last read (undefined: no breaker workflow, i.e. closed). */
  state?: BreakerState;
  readAt: number;
  /** Outcomes this worker sent since that read, and the failures among them (no success in between). */
  sent: number;
  failuresSince: number;
  /** A failure was sent since the read: the next check waits until the memo shows it. */
  confirm: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Creates the workers' client of the durable breakers. */
export function createCircuitBreaker(opts: CircuitBreakerOptions): CircuitBreaker {
  const { client, taskQueue, cacheMs = 1000, confirmMs = 2000, now = Date.now } = opts;
  const settings: BreakerSettings = { failures: opts.failures ?? DEFAULT_BREAKER_SETTINGS.failures, cooldownMs: opts.cooldownMs ?? DEFAULT_BREAKER_SETTINGS.cooldownMs };
  const onError = opts.onError ?? (() => {});
  const known = new Map<string, Known>();
  const handle = (agentId: string) => client.workflow.getHandle(breakerWorkflowId(agentId));

  async function read(agentId: string): Promise<BreakerState | undefined> {
    try {
      const d = await client.withDeadline(now() + 5000, () => handle(agentId).describe());
      return d.memo?.[BREAKER_MEMO_KEY] as BreakerState | undefined;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    }
  }

  /** The breaker's state, from the cache while fresh; after a failure that may have opened it, once the memo shows it. */
  async function current(agentId: string): Promise<BreakerState | undefined> {
    const k = known.get(agentId);
    if (k && !k.confirm && now() - k.readAt < cacheMs) return k.state;
    const until = now() + confirmMs;
    const expected = (k?.state?.outcomes ?? 0) + (k?.sent ?? 0);
    let state = await read(agentId);
    // the signals are in the workflow's history; the memo follows within a workflow task
    while (k?.confirm && (state?.outcomes ?? 0) < expected && now() < until) {
      await sleep(50);
      state = await read(agentId);
    }
    known.set(agentId, { state, readAt: now(), sent: 0, failuresSince: 0, confirm: false });
    return state;
  }

  async function report(agentId: string, outcome: StepOutcome): Promise<void> {
    try {
      await client.workflow.signalWithStart(agentBreaker, {
        workflowId: breakerWorkflowId(agentId),
        taskQueue,
        args: [{ agentId, settings }],
        signal: stepOutcomeSignal,
        signalArgs: [outcome],
        staticSummary: `circuit breaker of agent ${agentId}`,
      });
    } catch (err) {
      onError('report a step outcome to', agentId, err);
    }
  }

  return {
    async blockedFor(agentId, ticket) {
      let state: BreakerState | undefined;
      try {
        state = await current(agentId);
      } catch (err) {
        onError('read', agentId, err);
        return 0;
      }
      if (!state) return 0;
      const phase = phaseAt(state, now());
      if (phase === 'closed') return 0;
      if (phase === 'open') return Math.max(1, (state.openUntil ?? 0) - now());
      try {
        const grant = await client.withDeadline(now() + 5000, () => handle(agentId).executeUpdate(acquireTrialUpdate, { args: [{ holder: ticket.holder, leaseMs: ticket.leaseMs }] }));
        // granted or not, the trial changed the breaker: read it afresh next time
        known.delete(agentId);
        return grant.granted ? 0 : Math.max(1, grant.waitMs);
      } catch (err) {
        onError('ask for a trial step of', agentId, err);
        return 0;
      }
    },
    async failed(agentId, error) {
      await report(agentId, { ok: false, at: now(), settings, ...(error ? { error: error.slice(0, 300) } : {}) });
      const k = known.get(agentId) ?? { readAt: 0, sent: 0, failuresSince: 0, confirm: false };
      k.sent++;
      k.failuresSince++;
      // the memo may lag (and may not yet show another worker's failures): the next check reads it
      // afresh and waits until it holds this worker's outcomes, so the failure that opens the
      // circuit stops the very next step
      k.confirm = true;
      known.set(agentId, k);
    },
    async succeeded(agentId) {
      let k = known.get(agentId);
      if (!k || (k.failuresSince === 0 && now() - k.readAt >= cacheMs)) {
        await current(agentId).catch(() => undefined);
        k = known.get(agentId);
      }
      // nothing to forget: a closed breaker with no failures, as last read and since
      if (k && k.failuresSince === 0 && (!k.state || (k.state.state === 'closed' && k.state.consecutiveFailures === 0))) return;
      await report(agentId, { ok: true, at: now(), settings });
      // what this worker saw: its own success closed it (another worker's failure may follow; the next read tells)
      const seen = known.get(agentId);
      known.set(agentId, { state: seen?.state && { ...seen.state, state: 'closed', consecutiveFailures: 0, trial: undefined }, readAt: seen?.readAt ?? 0, sent: (seen?.sent ?? 0) + 1, failuresSince: 0, confirm: false });
    },
    async abandoned(agentId, ticket) {
      const state = known.get(agentId)?.state;
      if (state && phaseAt(state, now()) === 'closed') return;
      try {
        await handle(agentId).signal(releaseTrialSignal, { holder: ticket.holder });
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) onError('free the trial of', agentId, err);
      }
    },
    states() {
      const t = now();
      return new Map([...known].map(([id, k]) => [id, k.state ? phaseAt(k.state, t) : 'closed']));
    },
  };
}
