/**
 * A job's down-shift (core/downshift.ts has the rule): once the job has spent its ladder's threshold
 * of its budget on any axis, a task not yet started whose agent is on the ladder starts on the
 * cheapest rung below it whose quality stays at or above the floor and whose measured step fits the
 * task's grant. Each child also gets its ladder (its own, else the job's) to step down within its grant.
 *
 *   runTask ──reserved──> jobDownshift(task, job spent, grant) ──> start on the cheaper agent (routing, note, subtask.downshift)
 */
import type { Budget, TaskSpec } from '../../schemas';
import type { JobInput } from '../../contracts/job';
import type { SubtaskInput } from '../../contracts/subtask';
import { downshiftNote, pickRung, type DownshiftDecision, type DownshiftPlan } from '../../core/downshift';
import { runManifest, submittedManifest, type RunManifest } from '../../core/routing';

/**
 * Since this patch, a ladder down-shifts (a job's tasks, a subtask's steps). The input alone cannot
 * choose it: the API sets `downshift` whichever worker runs the job, and a run an older worker
 * began kept its agents. Asked only by runs with a ladder.
 */
export const DOWNSHIFT_PATCH = 'downshift';

/** A task the job starts down-shifted: the cheaper agent's manifest and the line its result notes. */
export interface JobShift {
  decision: DownshiftDecision;
  plan: DownshiftPlan;
  manifest: RunManifest;
  note: string;
}

/** The ladder a child gets: its own, else its job's (an agent task's only); undefined: none. */
export function childPlan(input: Pick<JobInput, 'downshift' | 'downshifts'>, task: TaskSpec): DownshiftPlan | undefined {
  return task.job ? undefined : (input.downshifts?.[task.id] ?? input.downshift);
}

/** Whether the job starts `task` on a cheaper agent, given the job's most spent share and the task's grant. */
export function jobDownshift(
  input: Pick<JobInput, 'downshift' | 'agents'>,
  task: TaskSpec,
  spent: { share: number; axis?: DownshiftDecision['axis'] },
  grant: Budget,
): JobShift | undefined {
  const plan = input.downshift;
  if (!plan || task.job || spent.share < plan.threshold) return undefined;
  const from = submittedManifest(task, input.agents);
  const to = from && pickRung(plan, from.id, { leftUsd: grant.costUsd });
  if (!from || !to) return undefined;
  const decision: DownshiftDecision = { from: from.id, to, share: spent.share, ...(spent.axis ? { axis: spent.axis } : {}), scope: 'job' };
  return { decision, plan, manifest: runManifest(to.manifest), note: downshiftNote(decision, plan) };
}

/** The fields of a subtask's input its ladder and a job's down-shift set. */
export function downshiftFields(plan: DownshiftPlan | undefined, shift: JobShift | undefined): Partial<SubtaskInput> {
  return {
    ...(plan ? { downshift: plan } : {}),
    ...(shift ? { manifest: shift.manifest, routedBy: shift.note, downshifted: shift.note } : {}),
  };
}
