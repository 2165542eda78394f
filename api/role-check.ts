/** Checks a job's role tasks against the deployment's roles: the role, its task type, the depth. */
import type { AgentRegistry } from '../activities';
import type { JobSpec } from '../schemas';
import { formatPath, type FieldError } from './errors';

/**
 * Every reason a role task cannot run here, as field paths (empty = runnable); `depth` is the
 * job's nesting level, `jobApproval` the path of the approval policy the task would inherit from
 * its job (or an enclosing one), when there is one.
 */
export function checkRoleTask(
  task: JobSpec['tasks'][number],
  at: (string | number)[],
  depth: number,
  registry: AgentRegistry,
  jobApproval?: (string | number)[],
): FieldError[] {
  if (task.role === undefined) return [];
  const role = registry.roles?.role(task.role);
  const known = registry.roles?.list().map((r) => r.id) ?? [];
  if (!role)
    return [
      {
        path: formatPath([...at, 'role']),
        message: `unknown role "${task.role}"; ${known.length ? `roles: ${known.join(', ')}` : 'no roles are configured (agents file `roles`)'}`,
      },
    ];
  const errors: FieldError[] = [];
  const types = Object.keys(role.outputKinds);
  if (task.taskType !== undefined && !types.includes(task.taskType)) {
    errors.push({
      path: formatPath([...at, 'taskType']),
      message: `role "${role.id}" has no task type "${task.taskType}"; its task types: ${types.join(', ')}`,
    });
  }
  if (depth > role.maxDepth) {
    errors.push({
      path: formatPath([...at, 'role']),
      message: `role "${role.id}" runs at depth ${role.maxDepth} at most; this task is at depth ${depth}`,
    });
  }
  if ((task.budgetWaitSeconds ?? 0) > 0) {
    errors.push({
      path: formatPath([...at, 'budgetWaitSeconds']),
      message: 'a role task never waits for a human (a budget top-up): drop budgetWaitSeconds',
    });
  }
  if (task.approval) {
    errors.push({
      path: formatPath([...at, 'approval']),
      message: 'a role task never waits for a human (an approval): drop approval',
    });
  } else if (jobApproval) {
    // the job's policy would reach this task (workflows/job/child-input.ts withJobRules): refuse it where it is written
    errors.push({
      path: formatPath(jobApproval),
      message: `a role task never waits for a human (an approval), and task "${task.id}" is one: set approval on the other tasks instead`,
    });
  }
  if (task.outputSchema) {
    errors.push({
      path: formatPath([...at, 'outputSchema']),
      message: `a role task answers in its role's output kinds (${types.join(', ')} → ${[...new Set(Object.values(role.outputKinds).flat())].join(', ')}): drop outputSchema`,
    });
  }
  if (task.scope?.length) {
    errors.push({
      path: formatPath([...at, 'scope']),
      message: `a role task uses its role's tools (${role.tools.join(', ') || 'none'}): drop scope`,
    });
  }
  if (task.fallback?.length) {
    // another agent would start the protocol afresh under a host that already bootstrapped the first one
    errors.push({
      path: formatPath([...at, 'fallback']),
      message: `a role task is played by its role's agent ("${role.agent}"): drop fallback`,
    });
  }
  return errors;
}
