/**
 * What the tenant's result cache would serve of a spec, now: the forecast and admission control
 * count those tasks at $0 and no time. The keys are the ones the job computes before each task
 * (core/result-cache.ts), from the registry's manifest and the spec's model, so only a task whose
 * context the spec itself fixes is looked up: a fan-out's or vote's task, a pipeline's first stage.
 *
 *   spec ──walk (cache inherited as the job does; model as nestedModel does)──> per task: cacheKey ──record.resultCache.get──> hit: cachedFrom
 */
import { cacheKey } from '../activities/result-cache';
import type { AgentDefinition } from '../activities/agents/types';
import type { RecordStore } from '../record';
import type { JobSpec, ResultCache, TaskSpec } from '../schemas';
import { cacheKeyParts, cacheOf } from '../core/result-cache';
import { lowestCap } from '../core/role-limits';

/** Most lookups one forecast makes (a wider spec's other tasks are forecast as if uncached). */
export const FORECAST_CACHE_LOOKUPS = 1000;

/** The model state a job's tasks run on: its own, else its parent's; the lower output cap. */
interface ModelState {
  model?: string;
  maxOutputTokens?: number;
}

/** The tasks of `spec` the tenant's cache would serve now, each with the job its result comes from. */
export async function cachedTasks(
  tenant: string,
  spec: JobSpec,
  /** The agents a task may run on (api/forecast.ts agentsOfTask): only a task with one is looked up. */
  agentsOf: (task: TaskSpec) => AgentDefinition[],
  cache: Pick<RecordStore['resultCache'], 'get'>,
  now = Date.now(),
): Promise<Map<TaskSpec, string>> {
  const found = new Map<TaskSpec, string>();
  const wanted: { task: TaskSpec; key: string }[] = [];
  const walk = (job: JobSpec, inherited: ResultCache | undefined, parent: ModelState) => {
    const jobCache = job.cache ?? inherited;
    const name = job.model ?? parent.model;
    const cap = lowestCap(parent.maxOutputTokens, job.maxOutputTokens);
    const model: ModelState = { ...(name ? { model: name } : {}), ...(cap ? { maxOutputTokens: cap } : {}) };
    job.tasks.forEach((t, i) => {
      if (t.job) return walk(t.job, jobCache, model);
      // a later pipeline stage is handed its previous stage's result: not known before the job runs
      if (job.pattern === 'pipeline' && i > 0) return;
      if (!cacheOf(t, { cache: jobCache, pattern: job.pattern }) || wanted.length >= FORECAST_CACHE_LOOKUPS) return;
      const defs = agentsOf(t);
      if (defs.length !== 1) return;
      wanted.push({ task: t, key: cacheKey(tenant, cacheKeyParts(t, defs[0].manifest, model)) });
    });
  };
  walk(spec, undefined, {});
  for (const { task, key } of wanted) {
    const hit = await cache.get(tenant, key, now);
    if (hit) found.set(task, hit.jobId);
  }
  return found;
}
