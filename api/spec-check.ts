/** Checks a schema-valid JobSpec against what this deployment can run: agents, params, depth. */
import type { AgentRegistry } from '../activities';
import type { JobSpec } from '../schemas';
import { formatPath, type FieldError } from './errors';

/** Every reason the spec cannot run here, as field paths (empty = runnable). */
export function checkRunnable(spec: JobSpec, registry: AgentRegistry, maxDepth: number): FieldError[] {
  const errors: FieldError[] = [];
  const walk = (job: JobSpec, path: (string | number)[], depth: number) => {
    job.tasks.forEach((task, i) => {
      const at = [...path, 'tasks', i];
      if (task.job) {
        if (depth + 1 > maxDepth) {
          errors.push({ path: formatPath([...at, 'job']), message: `nested job at depth ${depth + 1} exceeds the cap of ${maxDepth} levels` });
        } else walk(task.job, [...at, 'job'], depth + 1);
        return;
      }
      if (task.agent === undefined) return;
      const def = registry.resolve(task.agent, task.question);
      if (!def) {
        const what = typeof task.agent === 'string' ? `unknown agent "${task.agent}"` : `no agent matches ${JSON.stringify(task.agent)}`;
        errors.push({ path: formatPath([...at, 'agent']), message: `${what}; GET /v1/agents lists them` });
        return;
      }
      const parsed = def.params.safeParse(task.params ?? {});
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          errors.push({ path: formatPath([...at, 'params', ...issue.path]), message: `${issue.message} (agent "${def.manifest.id}")` });
        }
      }
      const tools = def.toolsFor?.(parsed.success ? parsed.data : {}) ?? [];
      const denied = parsed.success ? tools.filter((t) => !(task.scope ?? []).includes(t)) : [];
      if (denied.length > 0) {
        errors.push({ path: formatPath([...at, 'scope']), message: `agent "${def.manifest.id}" would use tools outside the scope: ${denied.join(', ')}` });
      }
    });
  };
  walk(spec, [], 0);
  return errors;
}
