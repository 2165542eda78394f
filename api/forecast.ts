/**
 * Forecasts at the API: a job spec as a plan (each task's agent and the history it rests on,
 * read from the record's task statistics in one query), forecast by core/forecast.ts.
 *
 *   spec ──agents of every task──> record.stats.window(tenant, agents) ──> plan ──forecastPlan──> Estimate
 *   a task's history: its agent's in jobs of this pattern (MIN_RUNS or more), else its agent's in any pattern;
 *   a capability several agents share: their histories merged (which one runs is decided when it starts)
 */
import type { AgentRegistry } from '../activities';
import type { AgentDefinition } from '../activities/agents/types';
import type { AgentStats, RecordStore } from '../record';
import { STATS_WINDOW_DAYS } from '../record';
import type { Estimate, JobSpec, Pattern, TaskSpec } from '../schemas';
import { mergeStats, type TaskStats } from '../core/forecast-sketch';
import { forecastPlan, type ForecastAxis, type JobPlan, type PlanNode, type TaskPlan } from '../core/forecast';

/** Runs in a pattern below which a task's history is its agent's over every pattern. */
export const MIN_RUNS = 5;

/** Options of an estimate. */
export interface EstimateOptions {
  /** Days of history. @default STATS_WINDOW_DAYS */
  windowDays?: number;
  now?: number;
}

/** The agents a task may run on: its named agent, a capability's agents, a semantic pick, a role's player. */
export function agentsOfTask(task: TaskSpec, registry: AgentRegistry): AgentDefinition[] {
  const ref = task.agent;
  if (task.role) {
    const player = registry.roles?.role(task.role)?.agent;
    const def = player ? registry.get(player) : undefined;
    return def ? [def] : [];
  }
  if (ref === undefined) return [];
  if (typeof ref === 'string') return [registry.get(ref)].filter((d): d is AgentDefinition => d !== undefined);
  if ('capability' in ref) return registry.candidates(ref.capability);
  const picked = registry.resolveWithReason(ref, task.question)?.def;
  return picked ? [picked] : [];
}

/** Every agent id a spec's tasks may run on, at every level of nesting. */
function agentIdsOf(spec: JobSpec, registry: AgentRegistry): string[] {
  const ids = new Set<string>();
  const walk = (job: JobSpec) => {
    for (const t of job.tasks) {
      if (t.job) walk(t.job);
      else for (const d of agentsOfTask(t, registry)) ids.add(d.manifest.id);
    }
  };
  walk(spec);
  return [...ids];
}

/** The upper bounds a task without history falls back on: the manifest's limits and the task's own budget. */
function limitsOf(task: TaskSpec, defs: AgentDefinition[]): Partial<Record<ForecastAxis, number>> {
  const limits: Partial<Record<ForecastAxis, number>> = {};
  const b = task.budget ?? {};
  if (b.costUsd !== undefined) limits.costUsd = b.costUsd;
  if (b.tokens !== undefined) limits.tokens = b.tokens;
  if (b.toolCalls !== undefined) limits.toolCalls = b.toolCalls;
  if (defs.length) {
    const steps = Math.max(...defs.map((d) => d.manifest.limits.maxSteps));
    const stepSeconds = task.timeoutSeconds ?? Math.max(...defs.map((d) => d.manifest.limits.timeoutSeconds));
    limits.steps = steps;
    limits.latencySeconds = Math.min(b.latencySeconds ?? Infinity, steps * stepSeconds);
  } else if (b.latencySeconds !== undefined) limits.latencySeconds = b.latencySeconds;
  return limits;
}

/** The declared provider rate every agent a task may run on shares (absent: none, or they differ). */
function pacedBy(defs: AgentDefinition[]): TaskPlan['provider'] {
  const ids = new Set(defs.map((d) => d.manifest.provider));
  const rpm = defs[0]?.service?.limits?.requestsPerMinute;
  const id = defs[0]?.manifest.provider;
  return ids.size === 1 && id !== undefined && rpm !== undefined ? { id, stepsPerSecond: rpm / 60 } : undefined;
}

/** A task's history in a pattern's jobs, and what it is. */
function historyOf(defs: AgentDefinition[], pattern: Pattern, stats: Map<string, AgentStats>, days: number) {
  const of = (d: AgentDefinition) => stats.get(d.manifest.id);
  const inPattern = mergeStats(defs.map((d) => of(d)?.get(pattern)).filter((s): s is TaskStats => s !== undefined));
  const who = defs.length === 1 ? `agent ${defs[0].manifest.id}` : `agents ${defs.map((d) => d.manifest.id).join(', ')}`;
  if (inPattern.runs >= MIN_RUNS) return { stats: inPattern, basis: `${who} in ${pattern} jobs, last ${days} days` };
  const any = mergeStats(defs.flatMap((d) => [...(of(d)?.values() ?? [])]));
  if (any.runs > 0) return { stats: any, basis: `${who} in jobs of any pattern, last ${days} days` };
  return {
    stats: undefined,
    basis: `no history of ${who || 'its agent'} in the last ${days} days: the manifest limits and the task budget`,
  };
}

/** A spec as a plan, every task with its history. */
export function planOf(spec: JobSpec, registry: AgentRegistry, stats: Map<string, AgentStats>, days: number, id = 'job'): JobPlan {
  const children = spec.tasks.map((t): PlanNode => {
    if (t.job) return planOf(t.job, registry, stats, days, t.id);
    const defs = agentsOfTask(t, registry);
    const h = historyOf(defs, spec.pattern, stats, days);
    const ref = t.agent;
    const agent =
      defs.length === 1 ? defs[0].manifest.id : typeof ref === 'object' && 'capability' in ref ? `capability:${ref.capability}` : 'unknown';
    const plan: TaskPlan = { kind: 'task', id: t.id, agent, basis: h.basis, limits: limitsOf(t, defs) };
    const provider = pacedBy(defs);
    if (provider) plan.provider = provider;
    if (h.stats) plan.stats = h.stats;
    if (t.budget) plan.budget = t.budget;
    return plan;
  });
  return {
    kind: 'job',
    id,
    pattern: spec.pattern,
    ...(spec.maxParallel !== undefined ? { maxParallel: spec.maxParallel } : {}),
    ...(spec.budget ? { budget: spec.budget } : {}),
    ...(spec.aggregation?.quorum !== undefined
      ? { quorum: spec.aggregation.quorum }
      : spec.aggregation?.strategy === 'first_success'
        ? { quorum: 1 }
        : {}),
    children,
  };
}

/** The forecaster over a registry and the record. */
export function createForecaster({ registry, record }: { registry: AgentRegistry; record: Pick<RecordStore, 'stats'> }) {
  /** The history of every agent a spec may run on (one query). */
  const historyFor = (tenant: string, spec: JobSpec, o: EstimateOptions) =>
    record.stats.window(tenant, agentIdsOf(spec, registry), { days: o.windowDays ?? STATS_WINDOW_DAYS, now: o.now });

  return {
    historyFor,
    /** The history of these agents. */
    historyOfAgents: (tenant: string, agents: string[], o: EstimateOptions = {}) =>
      record.stats.window(tenant, agents, { days: o.windowDays ?? STATS_WINDOW_DAYS, now: o.now }),
    /** The forecast of a spec against a history already read (re-planning forecasts several variants on one read). */
    estimateWith(spec: JobSpec, stats: Map<string, AgentStats>, o: EstimateOptions = {}): Estimate {
      const days = o.windowDays ?? STATS_WINDOW_DAYS;
      const f = forecastPlan(planOf(spec, registry, stats, days));
      return { ...f, windowDays: days };
    },
    /** The forecast of a spec for a tenant. */
    async estimate(tenant: string, spec: JobSpec, o: EstimateOptions = {}): Promise<Estimate> {
      return this.estimateWith(spec, await historyFor(tenant, spec, o), o);
    },
  };
}

/** The forecaster's operations. */
export type Forecaster = ReturnType<typeof createForecaster>;
