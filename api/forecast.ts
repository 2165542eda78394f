/**
 * Forecasts at the API: a job spec resolved against the registry (each task's agents, and for
 * a re-plan the agents it could move to), its history read from the record's task statistics in
 * one query, then forecast in a forecast thread (forecast-thread.ts), never on the event loop.
 *
 *   spec ──forTenant (429 past the tenant's cap)──> record.stats.window(tenant, agents)
 *        ──resolveJob──> ForecastJob ──forecast thread: planOf, forecastPlan (and the re-plan)──> Estimate
 */
import type { AgentRegistry } from '../activities';
import type { AgentDefinition } from '../activities/agents/types';
import { refusal } from '../activities/agents/registry';
import type { AgentStats, RecordStore } from '../record';
import { STATS_WINDOW_DAYS } from '../record';
import type { Admission, Downshift, Estimate, JobSpec, TaskSpec } from '../schemas';
import type { JobPlan } from '../core/forecast-plan';
import {
  planOf as planOfResolved,
  type ForecastAgent,
  type ForecastAgents,
  type ForecastJob,
  type ForecastLadder,
} from './forecast-thread-plan';
import { forecastThreads, type ForecastThreads } from './forecast-thread';
import { ladderAgents } from './downshift';
import { DEFAULT_DOWNSHIFT_THRESHOLD } from '../core/downshift';
import type { ForecastOutcome } from './forecast-thread-replan';
import { cachedTasks } from './forecast-cache';

export { MIN_RUNS } from './forecast-thread-plan';

/** Monte Carlo draws (task samples) one admission check may spend in all, its re-plan included: about ten forecasts of a 10,000-task job. */
export const ADMISSION_MAX_DRAWS = 20_000_000;
/** Longest a re-plan goes on (it stops with what it has), on a host too loaded to spend its draws in time: under the threads' bound of 15 s. */
export const ADMISSION_MAX_MS = 10_000;

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
  const picked = registry.resolve(ref, task.question, task);
  return picked ? [picked] : [];
}

/** The agents that could take a task in place of its own: same capability (or every capability of the named one), params and scope accepted. */
function alternativesOf(task: TaskSpec, current: AgentDefinition[], registry: AgentRegistry): AgentDefinition[] {
  const ref = task.agent;
  if (ref === undefined || task.role) return [];
  let pool;
  if (typeof ref === 'object' && 'capability' in ref) pool = registry.candidates(ref.capability);
  else if (current.length === 1 && current[0].manifest.capabilities.length > 0) {
    const need = current[0].manifest.capabilities;
    pool = registry.list().flatMap((m) => (need.every((c) => m.capabilities.includes(c)) ? [registry.get(m.id)!] : []));
  } else return [];
  return pool.filter((d) => refusal(d, task.params, task.scope) === undefined);
}

const forecastAgent = (d: AgentDefinition): ForecastAgent => ({
  id: d.manifest.id,
  capabilities: d.manifest.capabilities,
  maxSteps: d.manifest.limits.maxSteps,
  timeoutSeconds: d.manifest.limits.timeoutSeconds,
  ...(d.manifest.provider !== undefined ? { provider: d.manifest.provider } : {}),
  ...(d.service?.limits?.requestsPerMinute !== undefined ? { requestsPerMinute: d.service.limits.requestsPerMinute } : {}),
});

/**
 * A spec as a forecast thread reads it: per task its agents (and with `alternatives`, the
 * agents a re-plan may move it to), the agents' declared limits, and none of the questions,
 * params or schemas a thread has no use for. A task in `cached` (api/forecast-cache.ts) is one the
 * result cache would serve: it keeps its agent for the record, and no re-plan moves it.
 */
export function resolveJob(
  spec: JobSpec,
  registry: AgentRegistry,
  alternatives = false,
  cached: ReadonlyMap<TaskSpec, string> = new Map(),
): { job: ForecastJob; agents: ForecastAgents } {
  const agents: ForecastAgents = {};
  const note = (defs: AgentDefinition[]) => defs.map((d) => (agents[d.manifest.id] ??= forecastAgent(d)).id);
  const resolve = (s: JobSpec): ForecastJob => ({
    pattern: s.pattern,
    ...(s === spec && s.downshift ? { downshift: forecastLadder(s.downshift, registry, note) } : {}),
    ...(s.maxParallel !== undefined ? { maxParallel: s.maxParallel } : {}),
    ...(s.budget ? { budget: s.budget } : {}),
    ...(s.aggregation?.quorum !== undefined
      ? { quorum: s.aggregation.quorum }
      : s.aggregation?.strategy === 'first_success'
        ? { quorum: 1 }
        : {}),
    tasks: s.tasks.map((t) => {
      if (t.job) return { id: t.id, agents: [], job: resolve(t.job) };
      const from = cached.get(t);
      if (from !== undefined) return { id: t.id, agents: agentsOfTask(t, registry).map((d) => d.manifest.id), cachedFrom: from };
      const defs = agentsOfTask(t, registry);
      const accepts = alternatives ? note(alternativesOf(t, defs, registry)) : [];
      return {
        id: t.id,
        agents: note(defs),
        ...(t.agent !== undefined && !t.role ? { ref: t.agent } : {}),
        ...(accepts.length ? { accepts } : {}),
        ...(t.budget ? { budget: t.budget } : {}),
        ...(t.timeoutSeconds !== undefined ? { timeoutSeconds: t.timeoutSeconds } : {}),
        ...(t.hedge ? { hedge: t.hedge } : {}),
        ...(t.downshift ? { downshift: forecastLadder(t.downshift, registry, note) } : {}),
      };
    }),
  });
  return { job: resolve(spec), agents };
}

/** A job's ladder as a forecast thread reads it (its agents noted among the job's). */
function forecastLadder(d: Downshift, registry: AgentRegistry, note: (defs: AgentDefinition[]) => string[]): ForecastLadder {
  const defs = ladderAgents(d, registry, []);
  return {
    threshold: d.threshold ?? DEFAULT_DOWNSHIFT_THRESHOLD,
    qualityFloor: d.qualityFloor,
    agents: Array.isArray(defs) ? note(defs) : [],
    byCost: d.capability !== undefined,
  };
}

/** A spec as a plan, every task with its history (on this thread: for benchmarks and tests). */
export function planOf(spec: JobSpec, registry: AgentRegistry, stats: Map<string, AgentStats>, days: number): JobPlan {
  const { job, agents } = resolveJob(spec, registry);
  return planOfResolved(job, agents, stats, days);
}

/** The forecaster over a registry and the record; forecasts run in `threads`. */
export function createForecaster({
  registry,
  record,
  threads = forecastThreads,
}: {
  registry: AgentRegistry;
  /** With `resultCache`, tasks the tenant's cache would serve are forecast at $0. */
  record: Pick<RecordStore, 'stats'> & Partial<Pick<RecordStore, 'resultCache'>>;
  threads?: ForecastThreads;
}) {
  const daysOf = (o: EstimateOptions) => o.windowDays ?? STATS_WINDOW_DAYS;
  /** The spec's tasks the result cache would serve now (none without the cache or without `cache` in the spec). */
  const cachedOf = (tenant: string, spec: JobSpec, now?: number) =>
    record.resultCache ? cachedTasks(tenant, spec, (t) => agentsOfTask(t, registry), record.resultCache, now) : Promise.resolve(new Map());
  return {
    /** The forecast of a spec for a tenant (429 past the tenant's forecasts at once). */
    estimate: (tenant: string, spec: JobSpec, o: EstimateOptions = {}): Promise<Estimate> =>
      threads.forTenant(tenant, async (forecast) => {
        const days = daysOf(o);
        const { job, agents } = resolveJob(spec, registry, false, await cachedOf(tenant, spec, o.now));
        const stats = await record.stats.window(tenant, Object.keys(agents), { days, now: o.now });
        const { forecast: f } = await forecast({ job, agents, stats, days });
        return { ...f, windowDays: days };
      }),
    /**
     * Admission control's forecast of a spec, and its re-plan when `replan` is asked and the
     * budget falls short: both in a thread, on one read of the history of every agent the job
     * names or could move a task to.
     */
    admission: (tenant: string, spec: JobSpec, a: Admission): Promise<ForecastOutcome & { windowDays: number }> =>
      threads.forTenant(tenant, async (forecast) => {
        const days = STATS_WINDOW_DAYS;
        const replan = a.mode === 'replan';
        const { job, agents } = resolveJob(spec, registry, replan, await cachedOf(tenant, spec));
        const stats = await record.stats.window(tenant, Object.keys(agents), { days });
        const outcome = await forecast({
          job,
          agents,
          stats,
          days,
          admission: { confidence: a.confidence, replan, maxDraws: ADMISSION_MAX_DRAWS, maxMs: ADMISSION_MAX_MS },
        });
        return { ...outcome, windowDays: days };
      }),
  };
}

/** The forecaster's operations. */
export type Forecaster = ReturnType<typeof createForecaster>;
