/**
 * Which agent a subtask runs and why (TaskResult.routing): resolved at submission (named,
 * or a capability's only agent), or by the resolveAgent activity at run time (a capability
 * with several agents goes to the least loaded). Pure.
 *
 *   API: "x" ──> agents["x"]                      { capability: c } with one agent ──> agents["capability:c"]
 *        { capability: c } with several agents ──> (nothing: resolveAgent routes it by load when the subtask starts)
 */
import type { ResolvedAgent } from '../activities';
import type { AgentManifest, TaskResult, TaskSpec } from '../schemas';

/** Why a subtask runs the agent it runs. */
export type Routing = NonNullable<TaskResult['routing']>;

/** The key of a capability's only agent in a job's `agents` (agent ids cannot hold a colon). */
export const capabilityKey = (capability: string): string => `capability:${capability}`;

/** The manifest the job hands a task, when it was resolved at submission; undefined: the subtask resolves it. */
export function submittedManifest(task: TaskSpec, agents: Record<string, AgentManifest> | undefined): AgentManifest | undefined {
  const ref = task.agent;
  if (agents === undefined || ref === undefined) return undefined;
  if (typeof ref === 'string') return agents[ref];
  return 'capability' in ref ? agents[capabilityKey(ref.capability)] : undefined;
}

/** Why a task has the agent resolved at submission. */
export function submittedRouting(task: TaskSpec, manifest: AgentManifest): Routing {
  const ref = task.agent;
  const reason = typeof ref === 'object' && 'capability' in ref ? `only agent with capability ${ref.capability}` : 'named';
  return { agent: manifest.id, reason };
}

/** resolveAgent's answer; runs recorded before routing answered with a bare manifest, which replay hands back as it was. */
export function readResolved(answer: ResolvedAgent | AgentManifest): { manifest: AgentManifest; routing?: Routing; fallbacks?: string[] } {
  return 'manifest' in answer ? answer : { manifest: answer };
}
