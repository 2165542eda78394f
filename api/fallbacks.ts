/**
 * Fallback agents at submission: a task's own `fallback` list is checked against this
 * deployment's agents (the subtask tries them in order when its agent fails; workflows/fallbacks.ts).
 * A `{ capability }` task without one inherits, when it is routed by load, the capability's other
 * agents that accept its params (activities/step/resolve.ts).
 */
import type { AgentRegistry } from '../activities';
import { refusal } from '../activities/agents/registry';
import type { TaskSpec } from '../schemas';
import { formatPath, type FieldError } from './errors';

/** Every reason the task's `fallback` list cannot run here, at `tasks[i].fallback[j]`. */
export function checkFallbacks(task: TaskSpec, at: (string | number)[], registry: AgentRegistry): FieldError[] {
  return (task.fallback ?? []).flatMap((id, j, all) => {
    const path = formatPath([...at, 'fallback', j]);
    // the same agent twice would run one step key twice: an agent that de-duplicates on it would replay its old reply
    if (all.indexOf(id) < j) return [{ path, message: `agent "${id}" is already at fallback[${all.indexOf(id)}]` }];
    if (id === task.agent) return [{ path, message: `agent "${id}" is the task's own agent` }];
    const def = registry.get(id);
    if (!def) return [{ path, message: `unknown agent "${id}"; GET /v1/agents lists them` }];
    const why = refusal(def, task.params, task.scope);
    return why ? [{ path, message: why }] : [];
  });
}
