/**
 * Which agent a subtask runs and why (TaskResult.routing): resolved at submission (named,
 * or a capability's only agent), or by the resolveAgent activity at run time (a capability
 * with several agents goes to the least loaded). Pure.
 *
 *   API: "x" ──> agents["x"]                      { capability: c } with one agent ──> agents["capability:c"]
 *        { route: "semantic" } ──> "x", agents["x"], routes["<task>"]: why
 *        { capability: c } with several agents ──> (nothing: resolveAgent routes it by load when the subtask starts)
 */
import type { AgentManifest } from '../schemas/agent';
import type { TaskSpec } from '../schemas/job';
import type { TaskResult } from '../schemas/result';

/** Why a subtask runs the agent it runs. */
export type Routing = NonNullable<TaskResult['routing']>;

/** The key of a capability's only agent in a job's `agents` (agent ids cannot hold a colon). */
export const capabilityKey = (capability: string): string => `capability:${capability}`;

/**
 * What a subtask run reads of its agent's manifest: the id its steps name (the worker finds the
 * agent itself by id), the step policy's defaults, the steps' pool. A job hands one to every
 * child, and each lands twice in the engine's histories (the parent's start command and the
 * child's first event), so the rest (description, input and output schemas, tools) stays out.
 */
export type RunManifest = Pick<AgentManifest, 'id' | 'version' | 'kind' | 'limits' | 'retry' | 'pool' | 'provider' | 'deprecated'>;

/** The part of a manifest a subtask run reads (a manifest already cut down is returned equal). */
export function runManifest({ id, version, kind, limits, retry, pool, provider, deprecated }: RunManifest): RunManifest {
  return {
    id,
    version,
    kind,
    limits,
    retry,
    ...(pool !== undefined ? { pool } : {}),
    ...(provider !== undefined ? { provider } : {}),
    ...(deprecated ? { deprecated } : {}),
  };
}

/** A deprecated version's warning in its results (`TaskResult.warnings`), by its id without the pinned `@version`. */
export const deprecationWarning = ({ id, version, deprecated: d }: Pick<RunManifest, 'id' | 'version' | 'deprecated'>) =>
  d ? `agent "${id.split('@')[0]}" version ${version} is deprecated${d === true ? '' : `: ${d}`}` : undefined;

/** The manifest the job hands a task, when it was resolved at submission; undefined: the subtask resolves it. */
export function submittedManifest(task: TaskSpec, agents: Record<string, RunManifest> | undefined): RunManifest | undefined {
  const ref = task.agent;
  if (agents === undefined || ref === undefined) return undefined;
  const found = typeof ref === 'string' ? agents[ref] : 'capability' in ref ? agents[capabilityKey(ref.capability)] : undefined;
  return found && runManifest(found);
}

/** A job's manifests as its nested jobs and batches get them: what their subtasks read of each. */
export function runManifests(agents: Record<string, RunManifest>): Record<string, RunManifest> {
  return Object.fromEntries(Object.entries(agents).map(([key, m]) => [key, runManifest(m)]));
}

/** Why a task has the agent resolved at submission: `routedBy` (the job's `routes`) when the API chose it. */
export function submittedRouting(task: TaskSpec, manifest: RunManifest, routedBy?: string): Routing {
  const ref = task.agent;
  const reason = routedBy ?? (typeof ref === 'object' && 'capability' in ref ? `only agent with capability ${ref.capability}` : 'named');
  return { agent: manifest.id, reason };
}

/** Why the API chose the agents of tasks that named none, by `routeKey`. */
export type Routes = Record<string, string>;

/** A task's key in its root job's `routes`: the task ids down to it, joined by "/". */
export const routeKey = (taskIds: readonly string[]): string => taskIds.join('/');

/** The routes below a nested job's task, keyed from there. */
export function nestedRoutes(routes: Routes | undefined, taskId: string): Routes | undefined {
  const p = `${taskId}/`;
  const below = Object.entries(routes ?? {}).flatMap(([k, why]) => (k.startsWith(p) ? [[k.slice(p.length), why]] : []));
  return below.length > 0 ? Object.fromEntries(below) : undefined;
}

/**
 * resolveAgent's answer (contracts/step.ts ResolvedAgent, read by its shape: core/ sits below the
 * contracts); runs recorded before routing answered with a bare manifest, which replay hands back as it was.
 */
export function readResolved(answer: { manifest: AgentManifest; routing: Routing; fallbacks?: string[] } | AgentManifest): {
  manifest: AgentManifest;
  routing?: Routing;
  fallbacks?: string[];
} {
  return 'manifest' in answer ? answer : { manifest: answer };
}
