/**
 * How a job shares its budget among its tasks (JobSpec `allocation`), apart from the arithmetic
 * (allocation.ts) so that the workflows, which need only the type, do not carry the list.
 *
 * `fair`, the default: each task gets a share of what is left weighted by the agent tasks below
 * it, so no task can starve the ones after it. `greedy`: each task may take all that is left, as
 * most agent frameworks let it; the first tasks can then spend the job and the rest are refused,
 * which suits a job whose first good answer is enough.
 */
export const ALLOCATION_MODES = ['fair', 'greedy'] as const;
/** One allocation mode. */
export type AllocationMode = (typeof ALLOCATION_MODES)[number];
