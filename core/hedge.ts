/**
 * Hedged steps (TaskSpec.hedge), their rules: when a step's hedge is due, whether it may start,
 * and what hedges add to a forecast. The record's side is activities/hedge-stats.ts, the
 * workflow's workflows/subtask/hedge.ts. Pure.
 *
 *   step starts at t0 ──t0 + delay──> mayHedge: extra so far + a step ≤ maxExtraCost, two steps ≤ the budget left
 */
/** The latency quantile a step is hedged past by default. */
export const DEFAULT_HEDGE_AFTER_P = 0.9;
/** Finished tasks of an agent the record must hold before its quantile is trusted (as the forecast's MIN_RUNS). */
export const HEDGE_MIN_RUNS = 5;

/** A task's hedge policy (schemas/hedge.ts). */
export interface HedgeSpec {
  afterP?: number;
  /** USD. */
  maxExtraCost: number;
  afterMs?: number;
  /** The agent hedges run on (a step its agent starts afresh); absent: the same agent. */
  agent?: string;
}

/** What the record says of an agent's steps, for its hedges (the local activity's answer, so it is in history). */
export interface StepLatency {
  /** Finished tasks it rests on. */
  runs: number;
  /** The afterP-quantile of one step's latency, ms. */
  delayMs?: number;
  /** A step's mean spend. */
  stepCostUsd?: number;
  stepTokens?: number;
}

/** How long a step runs before its hedge is due: the measured quantile, else the task's `afterMs`; undefined: never hedged. */
export function hedgeDelayMs(spec: HedgeSpec, measured: StepLatency | undefined): number | undefined {
  if (measured && measured.runs >= HEDGE_MIN_RUNS && measured.delayMs !== undefined) return Math.max(1, measured.delayMs);
  return spec.afterMs;
}

/** What the decision to start a hedge reads. */
export interface HedgeCheck {
  spec: HedgeSpec;
  /** When the step started and how long it may run before its hedge is due (epoch ms, ms). */
  startedAt: number;
  delayMs: number;
  now: number;
  /** Extra spend of the run's hedges so far (USD). */
  extraCostUsd: number;
  /** What one more step is expected to spend (USD; tokens when known). */
  step: { costUsd: number; tokens?: number };
  /** What the task's budget has left on its capped axes (absent: uncapped). */
  left: { costUsd?: number; tokens?: number };
}

/** Whether a hedge starts now, or why not. */
export type HedgeVerdict = { hedge: true } | { hedge: false; why: 'not_due' | 'max_extra_cost' | 'budget' };

/**
 * Whether the running step gets its hedge now: due at `startedAt + delayMs`, and only while the
 * hedges' extra spend is under `maxExtraCost` and stays within it with one more step, and the step
 * in flight and its hedge both fit in what the budget has left.
 */
export function mayHedge(c: HedgeCheck): HedgeVerdict {
  if (c.now < c.startedAt + c.delayMs) return { hedge: false, why: 'not_due' };
  // the extra spend spent already stops them too: one more step's cost may be unknown (no step yet, no history)
  const max = c.spec.maxExtraCost;
  if (c.extraCostUsd >= max || c.extraCostUsd + c.step.costUsd > max + 1e-12) return { hedge: false, why: 'max_extra_cost' };
  if (c.left.costUsd !== undefined && 2 * c.step.costUsd > c.left.costUsd + 1e-12) return { hedge: false, why: 'budget' };
  if (c.left.tokens !== undefined && c.step.tokens !== undefined && 2 * c.step.tokens > c.left.tokens)
    return { hedge: false, why: 'budget' };
  return { hedge: true };
}
