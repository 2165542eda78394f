/**
 * Every signal, query and update of Delegate's workflows, defined once: the handlers
 * (`setHandler`) and every sender (the API, parent jobs, tests) import them from here, so
 * the compiler checks both ends. The registered names (without the suffix) are the wire
 * contract: renaming one breaks running jobs.
 *
 *   API ──stopSignal · budgetUpdate · subtaskBudgetUpdate · jobStatusQuery──> delegationJob
 *   job ──stopSignal · cancelJobSignal · grantSignal · grantTaskSignal──> nested job / batch
 *   job ──stopSignal · cancelSignal · grantSignal──> subtask ──subtaskStatusQuery──> API
 *   API ──decideUpdate (approvals, answers) · steerSignal (messages)──> subtask
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Budget, JobProgress, Ledger } from '../schemas';
import type { JobModelState } from '../core/role-limits';
import type { BreakerState, StepOutcome, TrialGrant, TrialRequest } from '../core/breaker-state';
import type { InboxDecision } from '../core/inbox';
import type { SteeringNote } from './step';

/** Why a stop or cancel was sent (logs only). */
export interface StopReason {
  reason?: string;
}

/** Graceful stop (jobs and subtasks): finish the step in flight, start nothing new, return what there is. */
export const stopSignal = defineSignal<[StopReason?]>('stop');
/** Hard stop of a subtask: cancel the step in flight, then return what it has. */
export const cancelSignal = defineSignal<[StopReason?]>('cancel');
/** Hard stop sent by a parent job to a nested job (a root job is cancelled through Temporal). */
export const cancelJobSignal = defineSignal<[StopReason?]>('cancelJob');
/** From a parent job (to a subtask, nested job or batch): more budget, already reserved there. */
export const grantSignal = defineSignal<[{ add: Budget }]>('grant');
/** From a parent job to a nested job or batch: raise the limit by `add` and hand all of it to running task `taskId`. */
export const grantTaskSignal = defineSignal<[{ taskId: string; add: Budget }]>('grantTask');

/** A subtask's live progress and spend. */
export interface SubtaskStatus {
  id: string;
  agentId: string;
  phase: 'resolving' | 'running' | 'waiting_for_budget' | 'waiting_for_approval' | 'waiting_for_answer' | 'done';
  /** The inbox item the subtask waits on, while it waits. */
  waitingOn?: string;
  steps: number;
  ledger: Ledger;
}

/** A job's live progress, per-subtask state and ledger. */
export const jobStatusQuery = defineQuery<JobProgress>('status');
/** A subtask's live progress and spend (same name as the job's: one "status" for the UI and the API). */
export const subtaskStatusQuery = defineQuery<SubtaskStatus>('status');

/** What a subtask top-up answers. */
export interface SubtaskGrant {
  taskId: string;
  granted: Budget;
  ledger: Ledger;
}

/** Adds to the job budget; running children the job had clipped get their share. */
export const budgetUpdate = defineUpdate<Ledger, [{ add: Budget }]>('budget');
/** Adds to one running subtask's allocation, within what the job has left. */
export const subtaskBudgetUpdate = defineUpdate<SubtaskGrant, [{ taskId: string; add: Budget }]>('subtaskBudget');

/** Changes a job's current model (and output cap): children started after it use it, running ones keep theirs. */
export const modelUpdate = defineUpdate<JobModelState, [JobModelState]>('model');

/** Decides the inbox item a subtask waits on (the API checked the caller and a question's answer); refused unless that item is pending. */
export const decideUpdate = defineUpdate<{ id: string; state: InboxDecision['state'] }, [InboxDecision]>('decide');
/** A steering message: the subtask's next step receives it. */
export const steerSignal = defineSignal<[SteeringNote]>('message');

/** What the Temporal UI (and `temporal workflow metadata`) says each handler of a subtask does. */
export const subtaskMessages = {
  stop: 'Graceful stop: finish the step in flight, start no other, return the work so far',
  cancel: 'Hard stop: cancel the step in flight and return the work so far',
  grant: 'From the parent job: add budget (already reserved there) to this subtask',
  status: 'Phase, steps and the ledger (limit, spent, remaining per axis) of this subtask',
  decide:
    'Decide the approval or answer the question this subtask waits on: `{ id, state: approved|rejected|answered, answer?, note?, by, at }`',
  message: 'A steering message `{ text, from? }`: the next step receives it',
} as const;

/** What the Temporal UI says each handler of a job does. */
export const jobMessages = {
  stop: 'Graceful stop: running subtasks finish their step, nothing new starts; the result keeps all finished work',
  cancelJob: 'From the parent job: hard-stop this nested job (a root job is cancelled through Temporal)',
  grant: "From the parent job: raise this nested job or batch's budget by `add`, already reserved there",
  grantTask: 'From the parent job: raise the limit by `add` and hand it all to running task `taskId`',
  status: "Phase, progress counts, every subtask's state and the job ledger",
  budget: 'Top up the job budget: `{ add: { costUsd?, tokens?, toolCalls?, latencySeconds? } }`; returns the ledger',
  subtaskBudget: 'Top up one running subtask within what the job has left: `{ taskId, add }`; returns what was granted',
  model: "Switch the job's model: `{ model?, maxOutputTokens? }`; children started from now on use it, running ones keep theirs",
} as const;

// the agent breaker's (workflows/agent-breaker.ts); the workers' breaker client sends them
/** A step of the agent ended (any worker). */
export const stepOutcomeSignal = defineSignal<[StepOutcome]>('stepOutcome');
/** The half-open trial's step was cancelled: free the trial for another. */
export const releaseTrialSignal = defineSignal<[{ holder: string }]>('releaseTrial');
/** Half-open: may this step be the trial? Granted to one step at a time, on a lease. */
export const acquireTrialUpdate = defineUpdate<TrialGrant, [TrialRequest]>('acquireTrial');
/** The breaker's state (the memo holds the same). */
export const breakerStateQuery = defineQuery<BreakerState>('state');
