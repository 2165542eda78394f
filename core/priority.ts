/**
 * Priorities: `priority` on a job or a task is Temporal's task priority (`priorityKey`), so a
 * busy worker takes urgent steps before bulk ones waiting in the same queue. 1 is the most
 * urgent, 5 the least, 3 the default (Temporal's own scale and default).
 *
 *   job.priority ?? the job workflow's own ──> task.priority ?? (research: job level + rank − 1) ?? job's
 *        nested task: task.job.priority ?? task.priority ?? job's ──> the nested job's level
 *
 * Pure and zod-free (workflows import it): the job resolves its tasks' priorities once; children
 * and their steps run at them. The zod schema of a priority is in schemas/priority.ts.
 */
/** The priority scale: 1 most urgent, 5 least; 3 when nothing says otherwise (Temporal's default). */
export const PRIORITY = { mostUrgent: 1, leastUrgent: 5, default: 3 } as const;

/** What priority resolution reads of a task. */
export interface PrioritizedTask {
  priority?: number | undefined;
  research?: { priority?: number | undefined } | undefined;
  job?: { priority?: number | undefined } | undefined;
}

/** Clamps to the scale. */
function onScale(n: number): number {
  return Math.min(PRIORITY.leastUrgent, Math.max(PRIORITY.mostUrgent, Math.round(n)));
}

/**
 * A job's level: its spec's priority, else the priority its workflow was started with
 * (a parent task's, or a direct Temporal start's); undefined when neither says (Temporal's
 * default applies). `started` of 0 is Temporal's "unset".
 */
export function jobPriority(spec: { priority?: number | undefined }, started: number | undefined): number | undefined {
  if (spec.priority !== undefined) return spec.priority;
  return started ? onScale(started) : undefined;
}

/**
 * A task's priority in a job at `level`: its own; for a nested job, the nested job's own;
 * for a research-contract task, its rank relative to the job (rank 1 = the job's level, each
 * rank after it one step less urgent); else the job's. Undefined when nothing sets one.
 */
export function taskPriority(task: PrioritizedTask, level: number | undefined): number | undefined {
  if (task.job?.priority !== undefined) return task.job.priority;
  if (task.priority !== undefined) return task.priority;
  const rank = task.research?.priority;
  if (rank !== undefined) return onScale((level ?? PRIORITY.default) + rank - 1);
  return level;
}

/**
 * The job's tasks with their priorities resolved (same objects when nothing sets a priority,
 * so jobs without one run exactly as before).
 */
export function withTaskPriorities<S extends { priority?: number | undefined; tasks: T[] }, T extends PrioritizedTask>(
  spec: S,
  started: number | undefined,
): S {
  const level = jobPriority(spec, started);
  let changed = false;
  const tasks = spec.tasks.map((t) => {
    const p = taskPriority(t, level);
    if (p === undefined || p === t.priority) return t;
    changed = true;
    return { ...t, priority: p };
  });
  return changed ? { ...spec, tasks } : spec;
}

/** The priority a task runs at, for results and progress: resolved, else Temporal's default. */
export function effectivePriority(task: { priority?: number | undefined }): number {
  return task.priority ?? PRIORITY.default;
}
