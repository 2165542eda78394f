/**
 * Ladders at submission (docs/guides/spend.md, "Down-shift with a quality floor"): each `downshift`
 * of a root job and of its agent tasks is checked against this deployment's agents and resolved
 * with every rung's measured quality and cost from the tenant's record, so the workflow decides
 * from its input alone (core/downshift.ts).
 *
 *   spec.downshift, tasks[i].downshift ──agents (422 when unknown)──> record.stats.window ──> DownshiftPlan per ladder
 */
import type { AgentRegistry } from '../activities';
import type { AgentDefinition } from '../activities/agents/types';
import type { Downshift, JobSpec } from '../schemas';
import type { JobInput } from '../contracts/job';
import type { TaskStatsStore } from '../record';
import { mergeStats } from '../core/forecast-sketch';
import { capabilityLadder, DEFAULT_DOWNSHIFT_THRESHOLD, measure, type DownshiftPlan } from '../core/downshift';
import { runManifest } from '../core/routing';
import { refusal } from '../activities/agents/registry';
import { formatPath, HttpProblem, type FieldError } from './errors';

/** Each ladder of a spec with where it is: the job's (`[]`) and each root task's. */
export function laddersOf(spec: JobSpec): { at: (string | number)[]; taskId?: string; downshift: Downshift }[] {
  return [
    ...(spec.downshift ? [{ at: [] as (string | number)[], downshift: spec.downshift }] : []),
    ...spec.tasks.flatMap((t, i) => (t.downshift && !t.job ? [{ at: ['tasks', i], taskId: t.id, downshift: t.downshift }] : [])),
  ];
}

/** The agents a ladder names (a capability's, in the registry's order), or why it cannot run here. */
export function ladderAgents(d: Downshift, registry: AgentRegistry, at: (string | number)[]): AgentDefinition[] | FieldError {
  if (d.capability !== undefined) {
    const found = registry.candidates(d.capability);
    if (found.length < 2)
      return {
        path: formatPath([...at, 'downshift', 'capability'], 'body'),
        message: `capability "${d.capability}" has ${found.length} agent(s): a ladder needs two`,
      };
    return found;
  }
  const defs: AgentDefinition[] = [];
  for (const [j, id] of (d.ladder ?? []).entries()) {
    const def = registry.get(id);
    if (!def)
      return { path: formatPath([...at, 'downshift', 'ladder', j], 'body'), message: `unknown agent "${id}"; GET /v1/agents lists them` };
    if (defs.some((x) => x.manifest.id === def.manifest.id))
      return { path: formatPath([...at, 'downshift', 'ladder', j], 'body'), message: `agent "${id}" is on the ladder twice` };
    defs.push(def);
  }
  return defs;
}

/**
 * Why the ladder's agents cannot take over a task they may be handed (its params or scope refused),
 * as fallbacks must take them: a task's own ladder, or the job's for each task whose agent is on it.
 */
function refusals(spec: JobSpec, ladder: { at: (string | number)[]; taskId?: string }, agents: AgentDefinition[]): FieldError[] {
  const ids = new Set(agents.map((d) => d.manifest.id));
  const tasks = spec.tasks.filter((t) =>
    ladder.taskId !== undefined ? t.id === ladder.taskId : typeof t.agent === 'string' && ids.has(t.agent),
  );
  return tasks.flatMap((t) =>
    agents.flatMap((def, j) => {
      const why = refusal(def, t.params, t.scope);
      return why ? [{ path: formatPath([...ladder.at, 'downshift', 'ladder', j], 'body'), message: `task "${t.id}": ${why}` }] : [];
    }),
  );
}

/**
 * Every ladder of the spec (its agents resolved to ids: `resolveAgents`) resolved against the record;
 * 422 for a ladder that names agents this deployment lacks, or that refuse a task they may take over.
 */
export async function resolveDownshifts(
  spec: JobSpec,
  registry: AgentRegistry,
  stats: Pick<TaskStatsStore, 'window'>,
  tenant: string,
): Promise<Pick<JobInput, 'downshift' | 'downshifts'>> {
  const ladders = laddersOf(spec);
  if (ladders.length === 0) return {};
  const resolved = ladders.map((l) => ({ ...l, agents: ladderAgents(l.downshift, registry, l.at) }));
  const errors = resolved.flatMap((r) => (Array.isArray(r.agents) ? refusals(spec, r, r.agents) : [r.agents]));
  if (errors.length > 0) throw new HttpProblem(422, 'Ladder cannot run', 'a down-shift ladder names agents this deployment lacks', errors);
  const ids = [...new Set(resolved.flatMap((r) => (r.agents as AgentDefinition[]).map((d) => d.manifest.id)))];
  const history = await stats.window(tenant, ids);
  const planOf = (d: Downshift, agents: AgentDefinition[]): DownshiftPlan => {
    const rungs = agents.map((def) => {
      const byPattern = history.get(def.manifest.id);
      const figures = measure(def.manifest.id, byPattern ? mergeStats([...byPattern.values()]) : undefined);
      return { ...figures, manifest: runManifest(def.manifest) };
    });
    return {
      threshold: d.threshold ?? DEFAULT_DOWNSHIFT_THRESHOLD,
      qualityFloor: d.qualityFloor,
      rungs: d.capability !== undefined ? capabilityLadder(rungs) : rungs,
    };
  };
  const out: Pick<JobInput, 'downshift' | 'downshifts'> = {};
  for (const r of resolved) {
    const plan = planOf(r.downshift, r.agents as AgentDefinition[]);
    if (r.taskId === undefined) out.downshift = plan;
    else (out.downshifts ??= {})[r.taskId] = plan;
  }
  return out;
}
