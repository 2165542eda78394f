/**
 * One step of the loop, on the state: the agentStep input it sends, and what its outcome
 * does. A completed step books its spend and merges what it found; a failed one books its
 * attempts (and a refused output's spend) and gets its one re-prompt or ends the agent's turn.
 *
 *   stepInput(state) ──agentStep──> ok | failed | cancel | latency ──applyOutcome──> halt | again | failed | ok
 */
import type { AgentStepInput, AgentStepOutput, EventTarget, PreviousStage } from '../../contracts/step';
import type { FailureReason, Usage } from '../../schemas';
import { charge, remaining } from '../../core/budget-ledger';
import { appendEvidence, fitList, jsonBytes } from '../../core/task-results';
import { noWorkerMessage } from '../../core/step-policy';
import { halt } from './halt';
import { invalidOutputReprompt, repromptAnswered, type Reprompted } from './reprompt';
import { elapsedSeconds, MAX_EVIDENCE_BYTES, type RunningState } from './state';

/** What a failed step reports: why, after how many attempts, what it spent, and whether a re-prompt may help. */
export interface StepFailure {
  reason: FailureReason;
  attempts: number;
  message: string;
  usage?: Usage;
  noReprompt?: boolean;
  /** ApprovalRequired: the tools the step waits for approval of (the agent did not run). */
  approvalTools?: string[];
}

/** How a step ended: its output, its failure, the cancel signal, or the latency budget cutting it. */
export type StepOutcome =
  | { kind: 'ok'; out: AgentStepOutput }
  | { kind: 'failed'; failure: StepFailure }
  /** `usage`: what the cut step reported it had spent (hostRules 2), booked. */
  | { kind: 'cancel'; usage?: Usage }
  | { kind: 'latency'; usage?: Usage };

/** What the loop does after a step. */
export type AfterStep =
  /** `reason` is set. */
  | { kind: 'halt' }
  /** Back to the checks before a step (a re-prompt, a cut step, a kept answer). */
  | { kind: 'again'; reprompted?: Reprompted }
  /** The agent failed for good: a fallback agent, or a halt with the failure's reason. */
  | { kind: 'failed'; failure: StepFailure }
  /** The step's output is applied: the role protocol, the summary rule and the stop conditions come next. */
  | { kind: 'ok'; out: AgentStepOutput };

/** What a step carries besides the state: the run's fixed parts. */
export interface StepContext {
  workflowId: string;
  task: AgentStepInput['task'];
  previous?: PreviousStage;
  events?: EventTarget;
  maxAttempts: number;
  /** A role task's fields (its host's `stepFields()`); otherwise the job's model and cap. */
  role?: Pick<AgentStepInput, 'role' | 'model' | 'maxOutputTokens'>;
  model?: string;
  maxOutputTokens?: number;
  /** The job's W3C trace context, handed to the agent. */
  traceparent?: string;
}

/** The agentStep input of the next step. */
export function stepInput(s: RunningState, ctx: StepContext, now: number): AgentStepInput {
  const id = s.manifest.id;
  return {
    agentId: id,
    task: ctx.task,
    step: s.steps,
    state: s.agentState,
    budgetLeft: remaining(s.ledger, elapsedSeconds(s, now)),
    reprompt: s.reprompt,
    // a fallback agent's steps have keys of their own: the failed agent's step had this number too
    stepKey: `${ctx.workflowId}#${s.steps}${s.reprompt ? ':reprompt' : ''}${s.agentStartStep > 0 || s.agentsTried.length > 0 ? `@${id}` : ''}`,
    previous: ctx.previous,
    maxAttempts: ctx.maxAttempts,
    ...(ctx.events ? { events: ctx.events } : {}),
    ...(ctx.traceparent ? { traceparent: ctx.traceparent } : {}),
    ...(ctx.role ?? {
      ...(ctx.model ? { model: ctx.model } : {}),
      ...(ctx.maxOutputTokens ? { maxOutputTokens: ctx.maxOutputTokens } : {}),
    }),
  };
}

/** Where a failed step's error is worded: the job's deadline, or the lane nobody serves. */
export interface FailureContext {
  pastDeadline: boolean;
  /** The task queue the step was sent to. */
  queue: string;
  scheduleToStartSeconds?: number;
}

/** A step's outcome applied to the state. */
export function applyOutcome(s: RunningState, o: StepOutcome, ctx: FailureContext): AfterStep {
  // a cut step was paid for as far as it went
  if ((o.kind === 'cancel' || o.kind === 'latency') && o.usage) charge(s.ledger, o.usage);
  if (o.kind === 'cancel') {
    s.attempts += 1;
    halt(s, 'cancelled');
    return { kind: 'halt' };
  }
  if (s.awaitingSummary && o.kind !== 'ok') {
    // the answer was complete before its summary was re-prompted: a failed re-prompt keeps it
    s.attempts += o.kind === 'failed' ? o.failure.attempts : 1;
    s.notes.push('the summary re-prompt did not complete: the first answer is kept');
    s.done = true;
    return { kind: 'again' };
  }
  if (o.kind === 'latency') {
    // the cut step is lost; the check before the next step halts, or waits for a top-up and runs it again
    s.attempts += 1;
    s.errors.push(`latency budget of ${s.ledger.limit.latencySeconds}s ran out during step ${s.steps}`);
    return { kind: 'again' };
  }
  if (o.kind === 'failed') {
    const f = o.failure;
    s.attempts += f.attempts;
    s.errors.push(
      f.reason === 'timeout' && ctx.pastDeadline
        ? `the job reached its maximum duration during step ${s.steps}`
        : f.reason === 'agent_unavailable'
          ? noWorkerMessage(ctx.queue, ctx.scheduleToStartSeconds)
          : f.message,
    );
    // a refused output was still paid for
    if (f.usage) charge(s.ledger, f.usage);
    const reprompted = invalidOutputReprompt(s, f);
    return reprompted ? { kind: 'again', reprompted } : { kind: 'failed', failure: f };
  }
  applyStepOutput(s, o.out);
  return { kind: 'ok', out: o.out };
}

/** A completed step: spend booked, evidence (capped), citations, follow-ups and channels merged, the answer and agent state kept. */
export function applyStepOutput(s: RunningState, out: AgentStepOutput): void {
  s.attempts += out.attempt;
  s.steps += 1;
  if (out.throttledMs) s.throttledMs += out.throttledMs;
  repromptAnswered(s);
  s.reprompt = undefined;
  s.awaitingSummary = false;
  charge(s.ledger, out.usage);
  s.hitl.lastCostUsd = out.usage.costUsd;
  if (out.evidence.length > 0) {
    // in place: the evidence so far is free of duplicates already, and a step must not copy it
    appendEvidence(s.evidence, out.evidence);
    if (jsonBytes(s.evidence) > MAX_EVIDENCE_BYTES) {
      const before = s.evidence.length;
      s.evidence = fitList(s.evidence, MAX_EVIDENCE_BYTES);
      s.errors.push(`evidence capped at ${s.evidence.length} of ${before} items (${MAX_EVIDENCE_BYTES} bytes)`);
    }
  }
  s.citations.push(...out.citations);
  s.followUps.push(...out.followUps);
  for (const c of out.channelsHit) s.channels.add(c);
  if (out.summary) s.summary = out.summary;
  if (out.data !== undefined) s.data = out.data;
  s.confidence = out.confidence;
  s.agentState = out.state;
  s.done = out.done;
  if (out.schemaValid !== undefined) s.schemaValid = out.schemaValid;
}
