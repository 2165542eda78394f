/**
 * The subtask's down-shift (core/downshift.ts has the rule): before a step, once the run has spent
 * its ladder's threshold of its allocation on any axis, the remaining steps go to the cheapest rung
 * below its agent whose quality stays at or above the floor and whose step fits what is left;
 * agents the task already failed on are no target, so after every fallback it is checked again.
 *
 *   checks ──downshiftDue?──> downshift: applyDownshift (routing, manifest, note) ──> subtask.downshift ──> checks
 */
import { remaining } from '../../core/budget-ledger';
import { downshiftEvent, downshiftNote, pickRung, spentShare, type DownshiftDecision, type DownshiftPlan } from '../../core/downshift';
import { handOver } from './fallback';
import { elapsedSeconds, type RunningState } from './state';
import { stepEvent, type InboxTarget } from './waits';

/** The down-shift due before the next step; undefined with no plan, under the threshold, or nothing below that qualifies. */
export function downshiftDue(s: RunningState, plan: DownshiftPlan | undefined, now: number): DownshiftDecision | undefined {
  if (!plan) return undefined;
  const elapsed = elapsedSeconds(s, now);
  const { share, axis } = spentShare(s.ledger.limit, s.ledger.spent, elapsed);
  if (share < plan.threshold) return undefined;
  const failed = new Set(s.agentsTried.filter((t) => t.outcome === 'failure').map((t) => t.agent));
  const to = pickRung(plan, s.manifest.id, { exclude: failed, leftUsd: remaining(s.ledger, elapsed).costUsd });
  return to && { from: s.manifest.id, to, share, ...(axis ? { axis } : {}), scope: 'subtask' };
}

/**
 * The cheaper agent takes the remaining steps, with the same ledger, evidence and deadline; an llm
 * agent keeps the conversation (another llm agent reads the same messages), any other starts afresh.
 * Returns the line the result notes.
 */
export function applyDownshift(s: RunningState, d: DownshiftDecision, plan: DownshiftPlan): string {
  const note = downshiftNote(d, plan);
  const keepsState = s.manifest.kind === 'llm' && d.to.manifest.kind === 'llm';
  handOver(s, d.to.manifest, note);
  if (!keepsState) s.agentState = undefined;
  s.notes.push(note);
  return note;
}

/** `subtask.downshift` on the job's stream: before and after, the spend that set it off, the quality estimate. */
export async function announceDownshift(target: InboxTarget, step: number, d: DownshiftDecision, plan: DownshiftPlan): Promise<void> {
  await stepEvent(target, 'downshift', step, 'subtask.downshift', downshiftEvent(target.taskId, d, plan));
}
