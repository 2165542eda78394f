/**
 * When the supervisor starts a dead child again: exponential backoff with a cap, forgotten once
 * the child stayed up a while; a child that keeps dying right after its start is given up on.
 *
 *   exit ──> up ≥ stableMs? ──yes──> delay = initialMs, quick failures = 0
 *             │ no
 *             └──> delay × factor (≤ maxMs); up < quickMs: quick failures + 1 ──> ≥ maxQuickFailures: give up
 */

/** Options of the restart policy. */
export interface RestartPolicy {
  /** Wait before the first restart. @default 1000 */
  initialMs: number;
  /** Longest wait between restarts. @default 30_000 */
  maxMs: number;
  /** Each restart in a row waits this much longer. @default 2 */
  factor: number;
  /** A child up this long is healthy again: the next restart waits `initialMs`. @default 60_000 */
  stableMs: number;
  /** A child that dies within this long of its start failed quickly. @default 15_000 */
  quickMs: number;
  /** Quick failures in a row after which the supervisor gives up on the child. @default 5 */
  maxQuickFailures: number;
}

/** The defaults of `RestartPolicy`. */
export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  initialMs: 1000,
  maxMs: 30_000,
  factor: 2,
  stableMs: 60_000,
  quickMs: 15_000,
  maxQuickFailures: 5,
};

/** What the supervisor remembers of one child's restarts. */
export interface RestartState {
  /** Restarts since the child was last stable. */
  restarts: number;
  /** Deaths in a row within `quickMs` of a start. */
  quickFailures: number;
}

/** A child's state before its first death. */
export const FRESH: RestartState = { restarts: 0, quickFailures: 0 };

/** What to do after a child died having been up `upMs`: wait `delayMs` and start it again, or give up. */
export function afterExit(
  policy: RestartPolicy,
  state: RestartState,
  upMs: number,
): { state: RestartState; delayMs: number; giveUp: boolean } {
  const base = upMs >= policy.stableMs ? FRESH : state;
  const quickFailures = upMs < policy.quickMs ? base.quickFailures + 1 : 0;
  const delayMs = Math.min(policy.maxMs, policy.initialMs * policy.factor ** base.restarts);
  return { state: { restarts: base.restarts + 1, quickFailures }, delayMs, giveUp: quickFailures >= policy.maxQuickFailures };
}

/** The policy from `DELEGATE_RESTART_*` variables over the defaults (tests shorten the waits); throws naming a bad one. */
export function restartPolicyFrom(env: NodeJS.ProcessEnv): RestartPolicy {
  const read = (name: string, def: number, min: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return def;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min) throw new Error(`${name}: a number of at least ${min}, not "${raw}"`);
    return n;
  };
  return {
    initialMs: read('DELEGATE_RESTART_INITIAL_MS', DEFAULT_RESTART_POLICY.initialMs, 0),
    maxMs: read('DELEGATE_RESTART_MAX_MS', DEFAULT_RESTART_POLICY.maxMs, 0),
    factor: DEFAULT_RESTART_POLICY.factor,
    stableMs: read('DELEGATE_RESTART_STABLE_MS', DEFAULT_RESTART_POLICY.stableMs, 0),
    quickMs: read('DELEGATE_RESTART_QUICK_MS', DEFAULT_RESTART_POLICY.quickMs, 0),
    maxQuickFailures: read('DELEGATE_RESTART_MAX_QUICK_FAILURES', DEFAULT_RESTART_POLICY.maxQuickFailures, 1),
  };
}
