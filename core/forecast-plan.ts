/**
 * What a forecast reads and answers (core/forecast.ts draws it): a plan of tasks and jobs, each
 * task with its agent's history or the limits it falls back on, and the forecast of each node.
 * A task's own quantiles come straight from its history. Pure.
 *
 *   TaskPlan (history | limits) ──taskQuantiles──> p50 / p90 per axis
 *   JobPlan (children, budget, ladder, quorum) ──forecastPlan──> Forecast
 */
import type { Pattern } from '../schemas/job';
import { quantile, type TaskStats, type ValueMetric } from './forecast-sketch';
import type { HedgeSpec } from './hedge';

/** The axes a forecast predicts: the budget axes and steps; `latencySeconds` is the duration. */
export const FORECAST_AXES = ['costUsd', 'tokens', 'toolCalls', 'steps', 'latencySeconds'] as const;
/** One forecast axis. */
export type ForecastAxis = (typeof FORECAST_AXES)[number];
/** The budgets a plan's nodes may carry (the budget axes). */
export type PlanBudget = Partial<Record<'costUsd' | 'tokens' | 'toolCalls' | 'latencySeconds', number>>;

/** Which histogram predicts each axis, and the factor from its unit to the axis's. */
export const SOURCE: Record<ForecastAxis, { metric: ValueMetric; scale: number }> = {
  costUsd: { metric: 'costMicros', scale: 1e-6 },
  tokens: { metric: 'tokens', scale: 1 },
  toolCalls: { metric: 'toolCalls', scale: 1 },
  steps: { metric: 'steps', scale: 1 },
  latencySeconds: { metric: 'latencyMs', scale: 1e-3 },
};
/** The budget axes a plan's budgets cap. */
export const BUDGET_KEYS = ['costUsd', 'tokens', 'toolCalls', 'latencySeconds'] as const;
/** Each forecast axis's index in a drawn vector. */
export const AXIS_INDEX = Object.fromEntries(FORECAST_AXES.map((a, i) => [a, i])) as Record<ForecastAxis, number>;

/** One task of a plan: its agent, the history it rests on, or the limits it falls back on. */
export interface TaskPlan {
  kind: 'task';
  id: string;
  /** The agent (or `capability:x` for a capability several agents share). */
  agent: string;
  /** The history; absent or with no runs: the task has none. */
  stats?: TaskStats;
  /** What the history is (`agent sim in vote jobs, last 30 days`), or why there is none. */
  basis: string;
  /** Upper bounds used when there is no history (the manifest's limits, the task's budget); absent axes are unknown. */
  limits: Partial<Record<ForecastAxis, number>>;
  budget?: PlanBudget;
  /** Hedged steps (TaskSpec.hedge): each step past the quantile costs one more, up to maxExtraCost (tasks with history). */
  hedge?: HedgeSpec;
  /** Its job's ladder (core/downshift.ts): the cheaper agent it starts on once the job spent `downshiftAt` of its budget. */
  downshiftTo?: TaskPlan;
  /** Its own ladder: the steps after the one that passed `at` of its own budget run on `to`. */
  selfShift?: { at: number; to: TaskPlan };
  /** The provider whose declared rate paces the task's steps: no job finishes before its steps on it could be dispatched. */
  provider?: { id: string; stepsPerSecond: number };
  /** The job whose recorded success the result cache would serve this task: it costs nothing and takes no time (api/forecast-thread-plan.ts cachedPlan). */
  cachedFrom?: string;
}

/** A job of a plan (the root or a nested one). */
export interface JobPlan {
  kind: 'job';
  id: string;
  pattern: Pattern;
  maxParallel?: number;
  /** A fan-out that stops after this many successes (quorum, or 1 for first_success): the rest are cancelled. */
  quorum?: number;
  budget?: PlanBudget;
  /** A ladder's threshold: a child with `downshiftTo` starting once the children before it spent this share of the budget draws from it. */
  downshiftAt?: number;
  children: PlanNode[];
}

/** A node of a plan. */
export type PlanNode = TaskPlan | JobPlan;

/** p50 and p90 of one axis; null when some task has neither history nor a limit on it. */
export interface Quantiles {
  p50: number | null;
  p90: number | null;
}

/** The forecast of one node. */
export interface NodeForecast {
  id: string;
  kind: 'task' | 'job';
  agent?: string;
  /** Past runs the forecast rests on: a task's own; a job's fewest of any of its tasks. */
  runs: number;
  /** False for a task without history (its figures are the limits it falls back on). */
  history: boolean;
  basis: string;
  /** Share of the runs that succeeded (tasks with history). */
  successRate?: number;
  /** A task the result cache would serve: the job its result comes from. */
  cachedFrom?: string;
  predicted: Record<ForecastAxis, Quantiles>;
  /** Probability that this node's own budget holds (when it has one); null when it cannot be told. */
  budgetSuffices?: number | null;
  children?: NodeForecast[];
}

/** The whole forecast: the root job's node, and how likely every budget of the plan holds. */
export interface Forecast {
  job: NodeForecast;
  /** Probability that the job's budget (and every nested job's and task's own) suffices; null when unknown, 1 with no budget at all. */
  budgetSuffices: number | null;
  /** Per budget axis of the root job: the probability it holds. */
  byAxis: Partial<Record<(typeof BUDGET_KEYS)[number], number | null>>;
  /** Why `budgetSuffices` is null, or what it assumed. */
  notes: string[];
  samples: number;
}

/** Options of `forecastPlan`. */
export interface ForecastOptions {
  /** Monte Carlo samples of the job. @default 1000 (fewer for very large plans, at least 200) */
  samples?: number;
  seed?: number;
}

/** Whether a task's forecast rests on history (else on its limits). */
export const hasHistory = (t: TaskPlan) => (t.stats?.runs ?? 0) > 0;

/** The forecast of one task, straight from its history (or its limits). */
export function taskQuantiles(t: TaskPlan): Record<ForecastAxis, Quantiles> {
  const out = {} as Record<ForecastAxis, Quantiles>;
  for (const axis of FORECAST_AXES) {
    if (hasHistory(t)) {
      const { metric, scale } = SOURCE[axis];
      const h = t.stats!.hist[metric];
      const q = (p: number) => {
        const v = quantile(h, p);
        return v === undefined ? null : v * scale;
      };
      out[axis] = { p50: q(0.5), p90: q(0.9) };
    } else {
      const v = t.limits[axis];
      out[axis] = { p50: v ?? null, p90: v ?? null };
    }
  }
  return out;
}

/** Tasks in a plan. */
export function countTasks(n: PlanNode): number {
  return n.kind === 'task' ? 1 : n.children.reduce((s, c) => s + countTasks(c), 0);
}

/** Whether a drawn vector keeps to a budget (an unknown, NaN, never does). */
export const fits = (v: Float64Array, b: PlanBudget | undefined): boolean => {
  if (!b) return true;
  for (const k of BUDGET_KEYS) {
    const cap = b[k];
    // NaN (unknown) never fits: the caller tells unknown apart
    if (cap !== undefined && !(v[AXIS_INDEX[k]] <= cap * (1 + 1e-9))) return false;
  }
  return true;
};

/**
 * The cheaper plan a job's ladder starts child `c` on: the children settled before it (those that
 * finished before a slot freed for it) spent `spent`, the threshold's share of a capped spend axis
 * or more. Undefined: it runs as planned.
 */
export function shiftedAt(node: JobPlan, c: PlanNode, spent: Float64Array): TaskPlan | undefined {
  if (node.downshiftAt === undefined || c.kind !== 'task' || !c.downshiftTo || !node.budget) return undefined;
  for (const k of ['costUsd', 'tokens', 'toolCalls'] as const) {
    const cap = node.budget[k];
    if (cap !== undefined && spent[AXIS_INDEX[k]] >= node.downshiftAt * cap) return c.downshiftTo;
  }
  return undefined;
}
