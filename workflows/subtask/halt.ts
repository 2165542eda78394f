/**
 * The checks before a step, in order: cancel, stop, the job's deadline, every budget axis,
 * the agent's step limit; then the history marks (continue as new, or halt when the state
 * cannot be carried). A halt sets `reason` (and says why in `errors`); the loop then ends.
 *
 *   cancel? ─ stop? ─ deadline? ─ budget spent? ──(wait for a top-up)──> budgetHalt | stepsLeft
 *        └─────┴────────┴── halt            └─ none ──> stepsLeft: out of steps? (a fallback) : go
 *
 * Spend may pass a cap by at most the step in flight: a spent axis is caught before the next.
 */
import type { FailureReason } from '../../schemas';
import { msLeft, pastHardMark, pastSoftMark, type HistoryInfo } from '../../core/engine-limits';
import type { HostRules } from './host-rules';
import { spentAxes, type RunningState, type SubtaskState } from './state';

/** What the check before a step found. */
export type BeforeStep =
  /** Run the step. */
  | 'go'
  /** `reason` is set: the loop ends. */
  | 'halt'
  /** An axis is spent: wait for a top-up (`budgetWaitSeconds`), then `stepsLeft`, or halt with `budgetHalt`. */
  | 'budget_spent'
  /** The agent used its `maxSteps` (said in `errors`): a fallback agent, or a halt with `agent_error`. */
  | 'out_of_steps';

/** Ends the loop with a reason. */
export function halt(s: SubtaskState, reason: FailureReason): 'halt' {
  s.reason = reason;
  return 'halt';
}

/** True once the job's deadline (epoch ms) has passed. */
export function pastDeadline(deadline: number | undefined, now: number): boolean {
  return msLeft(deadline, now) <= 0;
}

/** The check before a step. */
export function beforeStep(s: RunningState, deadline: number | undefined, now: number): BeforeStep {
  if (s.cancelRequested) return halt(s, 'cancelled');
  if (s.stopRequested) return halt(s, 'stopped');
  if (pastDeadline(deadline, now)) {
    s.errors.push('the job reached its maximum duration');
    return halt(s, 'timeout');
  }
  if (spentAxes(s, now).length > 0) return 'budget_spent';
  return stepsLeft(s);
}

/** Whether the agent has steps left of its `maxSteps`, counted since it took over. */
export function agentHasSteps(s: RunningState): boolean {
  return s.steps - s.agentStartStep < s.manifest.limits.maxSteps;
}

/** The agent's own limit: `maxSteps` since it took over. */
export function stepsLeft(s: RunningState): 'go' | 'out_of_steps' {
  if (agentHasSteps(s)) return 'go';
  s.errors.push(outOfSteps(s));
  return 'out_of_steps';
}

/** What `out_of_steps` says (in `errors`, and to the fallback's record). */
export const outOfSteps = (s: RunningState) => `agent did not finish within its ${s.manifest.limits.maxSteps} steps`;

/** A spent budget that no top-up refilled: `budget_exhausted`, or the signal that ended the wait. */
export function budgetHalt(s: SubtaskState, rules: HostRules, now: number): 'halt' {
  const reason = s.cancelRequested ? 'cancelled' : s.stopRequested ? 'stopped' : 'budget_exhausted';
  if (reason === 'budget_exhausted' && rules.explainBudgetHalt) {
    if (rules.haltOnBudget) s.stoppedBy = rules.haltOnBudget.text;
    s.errors.push(`${spentAxes(s, now).join(', ')} budget spent ${s.steps === 0 ? 'before the first step' : `after step ${s.steps}`}`);
  }
  return halt(s, reason);
}

/** Whether the run goes on in a fresh one before its next step: its history nears Temporal's limits, or it ran `stepsPerRun`. */
export function continuesAsNew(s: SubtaskState, history: HistoryInfo, stepsPerRun: number | undefined): boolean {
  return pastSoftMark(history, s.steps - s.stepsAtRunStart, stepsPerRun);
}

/** A run whose state was too big to carry: past the hard mark it halts with its work kept; before it, it goes on. */
export function cannotCarry(s: SubtaskState, history: HistoryInfo, carryBytes: number): boolean {
  if (!pastHardMark(history)) return false;
  s.errors.push(`halted at step ${s.steps}: its history is near Temporal's limit and its state (${carryBytes} bytes) is too big to carry`);
  halt(s, 'agent_error');
  return true;
}
