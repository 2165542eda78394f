/**
 * Down-shift with a quality floor: once a subtask (or a job) has spent `threshold` of its budget on
 * any capped axis, its remaining steps (or its subtasks not yet started) go to the cheapest agent of
 * its ladder whose measured quality stays at or above the floor and whose measured step still fits
 * what is left. Nothing qualifies: nothing changes, and the budget halts the task as it always did.
 *
 *   ladder (priciest first) ──submission: quality and cost from the record──> DownshiftPlan (in the input)
 *   spent / cap ≥ threshold on an axis ──pickRung(plan, agent now)──> cheapest rung below it: quality ≥ floor, step ≤ left
 *                                                                  └─> none: no change
 *
 * Quality is what the record measures of every finished subtask: its outcome. An agent's quality is
 * its smoothed success rate, success 1, partial ½, failure 0, with one success and one failure of
 * prior (the mean of the Beta posterior adaptive routing draws from), so a handful of lucky runs
 * does not pass a high floor. An output schema (or a stop condition's judge) is what makes a wrong
 * answer a failure: quality is measured where it can fail. Pure: the API ranks, the workflows decide.
 */
import type { Budget, Usage } from '../schemas/budget';
import { BUDGET_AXES, type BudgetAxis } from './budget-axes';
import { meanOf, type TaskStats } from './forecast-sketch';
import type { RunManifest } from './routing';

export { DEFAULT_DOWNSHIFT_THRESHOLD } from './downshift-threshold';

/** One agent of a ladder, as measured at submission. */
export interface DownshiftRung {
  agent: string;
  /** What its subtasks read of it (the job hands it to a child it down-shifts). */
  manifest: RunManifest;
  /** Smoothed success rate (qualityOf); null: never measured, so never a target. */
  quality: number | null;
  /** Finished subtasks the figures rest on. */
  runs: number;
  /** Mean spend of one subtask and of one step in dollars; null: not measured. */
  taskUsd: number | null;
  stepUsd: number | null;
}

/** A ladder resolved at submission: the workflow decides from it alone. */
export interface DownshiftPlan {
  /** Share (0..1) of any capped axis spent before the down-shift. */
  threshold: number;
  qualityFloor: number;
  /** Priciest first: a task steps down, never up. */
  rungs: DownshiftRung[];
}

/** The smoothed success rate of `stats`; null without a run. */
export function qualityOf(stats: Pick<TaskStats, 'runs' | 'success' | 'partial'> | undefined): number | null {
  if (!stats || stats.runs === 0) return null;
  return (stats.success + stats.partial / 2 + 1) / (stats.runs + 2);
}

/** What the record says of one agent: its rung without the manifest. */
export type RungFigures = Omit<DownshiftRung, 'manifest'>;

/** One agent's figures from its record statistics (absent: never measured). */
export function measure(agent: string, stats: TaskStats | undefined): RungFigures {
  const runs = stats?.runs ?? 0;
  const taskUsd = runs > 0 ? meanOf(stats!.hist.costMicros) / 1e6 : null;
  const steps = runs > 0 ? meanOf(stats!.hist.steps) : 0;
  return { agent, quality: qualityOf(stats), runs, taskUsd, stepUsd: taskUsd !== null ? taskUsd / Math.max(1, steps) : null };
}

/**
 * A capability's agents as a ladder, priciest first by measured spend per subtask; agents never
 * measured go first (they are no target, and a task on one may still step down).
 */
export function capabilityLadder<R extends RungFigures>(rungs: R[]): R[] {
  const cost = (r: R) => r.taskUsd ?? Infinity;
  return [...rungs].sort((a, b) => cost(b) - cost(a) || a.agent.localeCompare(b.agent));
}

/** The most spent share of any capped axis (latency: the wall clock), and that axis; share 0 with nothing capped. */
export function spentShare(limit: Budget, spent: Usage, elapsedSeconds: number): { share: number; axis?: BudgetAxis } {
  let best: { share: number; axis?: BudgetAxis } = { share: 0 };
  for (const axis of BUDGET_AXES) {
    const cap = limit[axis];
    if (cap === undefined) continue;
    const used = axis === 'latencySeconds' ? elapsedSeconds : (spent[axis] ?? 0);
    const share = cap > 0 ? used / cap : 1;
    if (share > best.share) best = { share, axis };
  }
  return best;
}

/** What pickRung weighs besides the plan: agents already failed, and the money left. */
export interface PickOptions {
  /** Agents that failed this task (a fallback moved on from them): never a target again. */
  exclude?: ReadonlySet<string>;
  /** Dollars left: a rung whose measured step costs more does not fit. Absent: uncapped. */
  leftUsd?: number;
}

/**
 * The rung `agent` steps down to: the cheapest rung below it in the ladder whose quality is at or
 * above the floor and whose measured step fits what is left (each checked in turn, cheapest first).
 * Undefined when `agent` is not on the ladder, or nothing below it qualifies.
 */
export function pickRung<R extends RungFigures>(
  plan: { qualityFloor: number; rungs: R[] },
  agent: string,
  o: PickOptions = {},
): R | undefined {
  const at = plan.rungs.findIndex((r) => r.agent === agent);
  if (at < 0) return undefined;
  for (let i = plan.rungs.length - 1; i > at; i--) {
    const r = plan.rungs[i];
    if (r.quality === null || r.quality < plan.qualityFloor || o.exclude?.has(r.agent)) continue;
    if (o.leftUsd !== undefined && r.stepUsd !== null && r.stepUsd > o.leftUsd) continue;
    return r;
  }
  return undefined;
}

/** One decision to step down: from, to, and the spend that set it off. */
export interface DownshiftDecision {
  from: string;
  to: DownshiftRung;
  share: number;
  axis?: BudgetAxis;
  /** Whose budget: the subtask's own, or the job's (a subtask started down-shifted). */
  scope: 'subtask' | 'job';
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** The line a down-shift leaves in the result (notes) and in its routing reason. */
export function downshiftNote(d: DownshiftDecision, plan: Pick<DownshiftPlan, 'threshold' | 'qualityFloor'>): string {
  const q = d.to.quality === null ? 'unmeasured' : d.to.quality.toFixed(3);
  return (
    `down-shift from ${d.from} to ${d.to.agent}: the ${d.scope === 'job' ? 'job spent or granted' : 'subtask spent'} ${pct(d.share)} of its ${d.axis ?? 'budget'} ` +
    `(threshold ${pct(plan.threshold)}); ${d.to.agent} quality ${q} over ${d.to.runs} runs ≥ floor ${plan.qualityFloor}`
  );
}

/** The `subtask.downshift` event's data. */
export function downshiftEvent(taskId: string, d: DownshiftDecision, plan: Pick<DownshiftPlan, 'rungs' | 'qualityFloor' | 'threshold'>) {
  const before = plan.rungs.find((r) => r.agent === d.from);
  return {
    taskId,
    scope: d.scope,
    from: d.from,
    to: d.to.agent,
    share: Math.round(d.share * 1000) / 1000,
    ...(d.axis ? { axis: d.axis } : {}),
    threshold: plan.threshold,
    qualityFloor: plan.qualityFloor,
    quality: { before: before?.quality ?? null, after: d.to.quality, runs: d.to.runs },
  };
}
