/**
 * Fallback agents at submission: a task's own `fallback` list is checked against this
 * deployment's agents (the subtask tries them in order when its agent fails; workflows/fallbacks.ts).
 * A `{ capability }` task without one inherits, when it is routed by load, the capability's other
 * agents that accept its params (activities/agent-step.ts).
 */
import type { AgentRegistry } from '../activities';
import type { AgentDefinition } from '../activities/agents/types';
import type { TaskSpec } from '../schemas';
import { formatPath, type FieldError } from './errors';

/** Why `def` cannot take over `task`: it refuses the task's params or would use tools outside its scope (undefined: it can). */
function unfit(def: AgentDefinition, task: TaskSpec): string | undefined {
  const parsed = def.params.safeParse(task.params ?? {});
  if (!parsed.success) return `agent "${def.manifest.id}" does not take the task's params: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`;
  const denied = (def.toolsFor?.(parsed.data) ?? []).filter((t) => !(task.scope ?? []).includes(t));
  if (denied.length > 0) return `agent "${def.manifest.id}" would use tools outside the scope: ${denied.join(', ')}`;
  return undefined;
}

/** Every reason the task's `fallback` list cannot run here, at `tasks[i].fallback[j]`. */
export function checkFallbacks(task: TaskSpec, at: (string | number)[], registry: AgentRegistry): FieldError[] {
  return (task.fallback ?? []).flatMap((id, j) => {
    const path = formatPath([...at, 'fallback', j]);
    const def = registry.get(id);
    if (!def) return [{ path, message: `unknown agent "${id}"; GET /v1/agents lists them` }];
    const why = unfit(def, task);
    return why ? [{ path, message: why }] : [];
  });
}
