/**
 * The subtask loop's order as one decision: from the state and what the last action came to,
 * the next action. The interpreter (loop.ts) performs it and hands back a turn; each rule it
 * applies is a transition beside this file. No Temporal here: each case has a unit test.
 *
 *   begin ─> done? ─> beforeStep: halt | past the ladder's threshold (downshift) | budget spent ─(waitTopUp)─> out of steps ─(switchAgent)
 *         ─> history full? carry ─> approval? askHuman ─> runStep
 *   stepped ─> halt | failed ─(switchAgent) | again | tools to approve (askHuman) | ok
 *   ok ─> question? askHuman ─> role? reviewRole ─> needs more? askHuman
 *      ─> summary re-prompt? ─> stop conditions (judge) ─> begin
 */
import type { AgentStepOutput } from '../../contracts/step';
import type { FailureReason, TaskSpec } from '../../schemas';
import type { HistoryInfo } from '../../core/engine-limits';
import type { RoleNext } from '../role-host';
import { beforeStep, budgetHalt, cannotCarry, continuesAsNew, halt, outOfSteps, stepsLeft } from './halt';
import type { HostRules } from './host-rules';
import { afterWait, approvalNeeded, needMoreInformation, notDecided, questionOf, resumeWithAnswer, toolApproval } from './inbox';
import type { ItemSpec, PendingItem } from './inbox';
import { applyRoleNext, summaryReprompt, type Reprompted } from './reprompt';
import type { RunningState } from './state';
import { applyOutcome, type FailureContext, type StepOutcome } from './step';
import { applyStopHit, applyVerdict, checkStops, judgeFailed, type JudgeCheck, type JudgeOutput } from './stops';
import type { StopHit } from '../../core/stop-conditions';
import type { DownshiftDecision, DownshiftPlan } from '../../core/downshift';
import { downshiftDue } from './downshift';

/** Where the loop goes on after a wait or a switch that let it: the checks, or (a role's request answered) the answer first. */
export type Then = 'checks' | 'answer';

/** What the interpreter does next. */
export type Action = (
  | { kind: 'runStep' }
  | { kind: 'askHuman'; item: ItemSpec; then: Then }
  | { kind: 'waitTopUp' }
  /** The next fallback agent takes over; none: a halt with `why`. */
  | { kind: 'switchAgent'; why: FailureReason; message: string; then: Then }
  | { kind: 'carry' }
  /** Spend passed the ladder's threshold: a cheaper agent takes the remaining steps (downshift.ts). */
  | { kind: 'downshift'; shift: DownshiftDecision }
  | { kind: 'judge'; check: JudgeCheck }
  | { kind: 'reviewRole'; out: AgentStepOutput }
  /** The result (`reason` says whether it halted); `stop`: the stop condition that ended it. */
  | { kind: 'finish'; stop?: string }
) & { retry?: Reprompted };

/** What the last action came to. */
export type Turn =
  | { kind: 'begin' }
  | { kind: 'stepped'; outcome: StepOutcome; where: FailureContext }
  | { kind: 'asked'; item: PendingItem; then: Then }
  | { kind: 'toppedUp'; refilled: boolean }
  | { kind: 'switched'; ok: boolean; why: FailureReason; then: Then }
  /** The state (`bytes` of input) was too big to carry: the run goes on here, or halts. */
  | { kind: 'carried'; bytes: number }
  | { kind: 'reviewed'; next: RoleNext; out: AgentStepOutput }
  | { kind: 'downshifted' }
  | ({ kind: 'judged'; check: JudgeCheck } & ({ verdict: JudgeOutput } | { error: string }));

/** What the decision reads besides the state: the run's fixed parts, the clock and the history. */
export interface LoopContext {
  readonly task: TaskSpec;
  readonly rules: HostRules;
  readonly deadline: number | undefined;
  readonly stepsPerRun: number | undefined;
  /** A role task: its host reviews each output, and it never waits for a top-up. */
  readonly role: boolean;
  /** The task's ladder, resolved at submission; absent: it never down-shifts. */
  readonly downshift?: DownshiftPlan;
  now(): number;
  history(): HistoryInfo;
}

/** A run's first turn. */
export const BEGIN: Turn = { kind: 'begin' };
const RUN_STEP: Action = { kind: 'runStep' };
const FINISH: Action = { kind: 'finish' };

/** The next action after `turn`. */
export function next(s: RunningState, turn: Turn, ctx: LoopContext): Action {
  switch (turn.kind) {
    case 'begin':
      return checks(s, ctx);
    case 'stepped':
      return stepped(s, turn.outcome, turn.where, ctx);
    case 'asked': {
      const after = afterWait(s, turn.item);
      if (after === 'halt') return FINISH;
      if (after === 'fallback') return { kind: 'switchAgent', why: 'timeout', message: notDecided(turn.item), then: turn.then };
      return resume(s, turn.then, ctx);
    }
    case 'toppedUp':
      if (turn.refilled) return ready(s, stepsLeft(s), ctx);
      budgetHalt(s, ctx.rules, ctx.now());
      return FINISH;
    case 'switched':
      if (turn.ok) return resume(s, turn.then, ctx);
      halt(s, turn.why);
      return FINISH;
    case 'carried':
      return cannotCarry(s, ctx.history(), turn.bytes) ? FINISH : approvals(s, ctx);
    case 'reviewed': {
      const role = applyRoleNext(s, turn.next);
      if (role === 'halt') return FINISH;
      return role === 'go' ? output(s, turn.out, ctx) : retried(checks(s, ctx), role);
    }
    case 'downshifted':
      return checks(s, ctx);
    case 'judged':
      return stopped(s, 'verdict' in turn ? applyVerdict(s, ctx.rules, turn.check.stop, turn.verdict) : judgeFailed(s, turn.error), ctx);
  }
}

/** The checks before a step: the loop's top. */
function checks(s: RunningState, ctx: LoopContext): Action {
  if (s.done) return FINISH;
  const check = beforeStep(s, ctx.deadline, ctx.now());
  const shift = check === 'go' ? downshiftDue(s, ctx.downshift, ctx.now()) : undefined;
  if (shift) return { kind: 'downshift', shift };
  if (check !== 'budget_spent') return ready(s, check, ctx);
  // a `budget exhausted` stop condition halts at once; a role child never waits
  if (ctx.rules.haltOnBudget === undefined && (ctx.task.budgetWaitSeconds ?? 0) > 0 && !ctx.role) return { kind: 'waitTopUp' };
  budgetHalt(s, ctx.rules, ctx.now());
  return FINISH;
}

function ready(s: RunningState, check: 'go' | 'halt' | 'out_of_steps', ctx: LoopContext): Action {
  if (check === 'halt') return FINISH;
  if (check === 'out_of_steps') return { kind: 'switchAgent', why: 'agent_error', message: outOfSteps(s), then: 'checks' };
  return continuesAsNew(s, ctx.history(), ctx.stepsPerRun) ? { kind: 'carry' } : approvals(s, ctx);
}

function approvals(s: RunningState, ctx: LoopContext): Action {
  const item = approvalNeeded(s, ctx.task.approval);
  return item ? { kind: 'askHuman', item, then: 'checks' } : RUN_STEP;
}

function resume(s: RunningState, then: Then, ctx: LoopContext): Action {
  if (then === 'answer') resumeWithAnswer(s);
  return checks(s, ctx);
}

function stepped(s: RunningState, o: StepOutcome, where: FailureContext, ctx: LoopContext): Action {
  if (o.kind === 'failed' && o.failure.approvalTools) {
    // the agent did not run: the step waits for its tools' approval, then runs again
    s.attempts += o.failure.attempts;
    return { kind: 'askHuman', item: toolApproval(s, o.failure.approvalTools), then: 'checks' };
  }
  const after = applyOutcome(s, o, where);
  if (after.kind === 'halt') return FINISH;
  if (after.kind === 'failed') return { kind: 'switchAgent', why: after.failure.reason, message: after.failure.message, then: 'checks' };
  if (after.kind === 'again') return retried(checks(s, ctx), after.reprompted);
  // a question instead of a result: the next step gets the answer
  if (after.out.ask) return { kind: 'askHuman', item: questionOf(s, after.out.ask), then: 'checks' };
  return ctx.role ? { kind: 'reviewRole', out: after.out } : output(s, after.out, ctx);
}

/** A completed step's output after the role's review. */
function output(s: RunningState, out: AgentStepOutput, ctx: LoopContext): Action {
  // the role's need-more-information becomes a question: the answer goes back to it, and it goes on
  const more = ctx.task.allowQuestions && ctx.role ? needMoreInformation(out) : null;
  if (more) return { kind: 'askHuman', item: questionOf(s, more), then: 'answer' };
  const summary = summaryReprompt(s, ctx.task, ctx.rules, ctx.now());
  if (summary) return retried(checks(s, ctx), summary);
  const stop = checkStops(s, ctx.task, ctx.rules, ctx.now());
  if (stop.kind === 'judge') return { kind: 'judge', check: stop };
  return stopped(s, stop.kind === 'hit' ? stop.hit : null, ctx);
}

function stopped(s: RunningState, hit: StopHit | null, ctx: LoopContext): Action {
  if (!hit) return checks(s, ctx);
  // `budget exhausted` halts, any other ends the loop with its answer
  applyStopHit(s, hit);
  return { kind: 'finish', stop: hit.condition.text };
}

const retried = (a: Action, retry: Reprompted | undefined): Action => (retry ? { ...a, retry } : a);
