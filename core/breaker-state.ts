/**
 * The circuit breaker's state machine, pure: the `agentBreaker` workflow applies step
 * outcomes and trial requests to it, the activities and the API read it from the memo.
 *
 *   closed ──N failures in a row──> open ──cool-down over──> half_open ──trial succeeds──> closed
 *                                                                  │   └──trial fails───> open (a new cool-down)
 *                                                                  └── one trial at a time, on a lease: a lost trial frees itself
 *
 * Times are epoch ms. `half_open` is stored only while a trial holds its lease; an `open`
 * breaker whose cool-down is over reads as `half_open` (`phaseAt`).
 */
import type { BreakerSettings, BreakerView, CircuitState } from '../schemas/breaker';

/** What the breaker workflow keeps (and publishes in its memo under `breaker`). */
export interface BreakerState {
  state: CircuitState;
  consecutiveFailures: number;
  settings: BreakerSettings;
  openedAt?: number;
  openUntil?: number;
  lastFailure?: { at: number; error?: string };
  /** The half-open trial step and the end of its lease. */
  trial?: { holder: string; until: number };
  /** Outcomes applied since the breaker began (across runs): a reader waits until its own are in. */
  outcomes: number;
}

/** One step's outcome, as a worker reports it (signal `stepOutcome`). */
export interface StepOutcome {
  ok: boolean;
  /** When the step ended (epoch ms, the worker's clock). */
  at: number;
  /** A failure's message, short and redacted. */
  error?: string;
  /** The worker's current settings: a changed config applies from the next outcome. */
  settings?: BreakerSettings;
}

/** A request for the half-open trial (update `acquireTrial`). */
export interface TrialRequest {
  /** Who runs the trial (the step's key and attempt); asking again with the same holder renews the lease. */
  holder: string;
  /** How long the trial may take before it frees itself. */
  leaseMs: number;
}

/** The answer to a trial request: granted, or how long to wait before asking again. */
export interface TrialGrant {
  granted: boolean;
  waitMs: number;
}

/** A closed breaker with no history. */
export function initialBreaker(settings: BreakerSettings): BreakerState {
  return { state: 'closed', consecutiveFailures: 0, settings, outcomes: 0 };
}

/** The breaker's state at `now`: an open one whose cool-down is over is half-open. */
export function phaseAt(s: BreakerState, now: number): CircuitState {
  return s.state === 'open' && now >= (s.openUntil ?? 0) ? 'half_open' : s.state;
}

/** Opens the breaker at `now` for one cool-down. */
function open(s: BreakerState, now: number): BreakerState {
  return { ...s, state: 'open', openedAt: now, openUntil: now + s.settings.cooldownMs, trial: undefined };
}

/**
 * Applies a step outcome at `now`. Closed: a failure counts, N in a row open it; a success
 * resets the count. Half-open: the outcome decides (a success closes, a failure reopens).
 * Open (cool-down running): no step should be running, so outcomes of steps started before
 * it opened only update the count and the last failure.
 */
export function applyOutcome(s: BreakerState, o: StepOutcome, now: number): BreakerState {
  const base: BreakerState = { ...s, settings: o.settings ?? s.settings, outcomes: s.outcomes + 1 };
  const phase = phaseAt(base, now);
  if (o.ok) {
    if (phase === 'open') return base;
    return {
      state: 'closed',
      consecutiveFailures: 0,
      settings: base.settings,
      outcomes: base.outcomes,
      ...(s.lastFailure ? { lastFailure: s.lastFailure } : {}),
    };
  }
  const failed: BreakerState = {
    ...base,
    consecutiveFailures: s.consecutiveFailures + 1,
    lastFailure: { at: o.at, ...(o.error ? { error: o.error } : {}) },
  };
  if (phase === 'half_open') return open(failed, now);
  if (phase === 'closed' && failed.consecutiveFailures >= failed.settings.failures) return open(failed, now);
  return failed;
}

/**
 * Asks for the half-open trial at `now`. Closed: granted (no trial needed). Open: wait out
 * the cool-down. Half-open: granted to the first asker (or to the holder renewing), on a
 * lease; others wait until it ends or the trial decides.
 */
export function acquireTrial(s: BreakerState, r: TrialRequest, now: number): { state: BreakerState; grant: TrialGrant } {
  const phase = phaseAt(s, now);
  if (phase === 'closed') return { state: s, grant: { granted: true, waitMs: 0 } };
  if (phase === 'open') return { state: s, grant: { granted: false, waitMs: Math.max(1, (s.openUntil ?? now) - now) } };
  if (s.trial && s.trial.until > now && s.trial.holder !== r.holder) {
    return { state: s, grant: { granted: false, waitMs: Math.max(1, s.trial.until - now) } };
  }
  return { state: { ...s, state: 'half_open', trial: { holder: r.holder, until: now + r.leaseMs } }, grant: { granted: true, waitMs: 0 } };
}

/** Frees the trial of `holder` (its step was cancelled: it says nothing about the agent). */
export function releaseTrial(s: BreakerState, holder: string): BreakerState {
  return s.trial?.holder === holder ? { ...s, trial: undefined } : s;
}

/** The breaker as the API shows it at `now`; no state (no breaker workflow yet) is a closed breaker. */
export function breakerView(s: BreakerState | undefined, settings: BreakerSettings, now: number): BreakerView {
  const st = s ?? initialBreaker(settings);
  const iso = (t: number) => new Date(t).toISOString();
  const phase = phaseAt(st, now);
  return {
    state: phase,
    consecutiveFailures: st.consecutiveFailures,
    failureThreshold: st.settings.failures,
    cooldownSeconds: st.settings.cooldownMs / 1000,
    ...(phase !== 'closed' && st.openedAt !== undefined ? { openedAt: iso(st.openedAt) } : {}),
    ...(phase !== 'closed' && st.openUntil !== undefined ? { openUntil: iso(st.openUntil) } : {}),
    ...(st.lastFailure
      ? { lastFailure: { at: iso(st.lastFailure.at), ...(st.lastFailure.error ? { error: st.lastFailure.error } : {}) } }
      : {}),
  };
}
