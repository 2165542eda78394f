/**
 * Humans and parents in the loop, on the state: when the loop waits for approval (before its
 * first step, before a costly step, before a named tool), for the answer to its agent's
 * question, and what a decision (or its absence) does. Steering messages queue here until
 * the next step takes them. The waiting itself (a condition on the decide update: no
 * activity, no worker slot) is the workflow's (waits.ts).
 *
 *   before a step ──approvalNeeded?──> openItem ──decide update | timeout──> afterWait: go | halt | fallback
 *   step asked ──questionOf──> openItem ──answer──> afterWait ──> next step gets `answer`
 *   steer signal ──queueMessage──> takeMessages (the next step's `messages`, noted in the result)
 */
import type { SteeringNote, StepAnswer, StepAsk } from '../../contracts/step';
import type { ApprovalPolicy } from '../../schemas/approval';
import type { InboxDecision, InboxKind, InboxReason, OnTimeout } from '../../core/inbox';
import { halt } from './halt';
import type { RunningState, SubtaskState } from './state';
import type { PendingItem } from './hitl';

export type { HitlState, PendingItem } from './hitl';

/** A question's wait when the task sets no approval policy: a day, then the task fails. */
export const DEFAULT_WAIT_SECONDS = 86_400;
/** Messages queued for the next step at most (older ones are dropped, and said so). */
export const MAX_QUEUED_MESSAGES = 20;

/** What opens an item: its kind, why, and what the decider sees. */
export interface ItemSpec {
  kind: InboxKind;
  reason: InboxReason;
  detail: Record<string, unknown>;
  question?: string;
}

/** What the loop does after a wait. */
export type AfterWait = 'go' | 'halt' | 'fallback';

/** The approval the next step waits for under `policy`, if any (`tools`: those a refused step named). */
export function approvalNeeded(s: RunningState, policy: ApprovalPolicy | undefined): ItemSpec | null {
  if (!policy) return null;
  if (policy.beforeStart && !s.hitl.approvedStart && s.steps === 0)
    return { kind: 'approval', reason: 'before_start', detail: { agentId: s.agentId } };
  const planned = s.hitl.lastCostUsd;
  if (policy.aboveCostUsd !== undefined && planned !== undefined && planned > policy.aboveCostUsd && s.hitl.spendApprovedStep !== s.steps)
    return {
      kind: 'approval',
      reason: 'spend',
      detail: { agentId: s.agentId, step: s.steps, plannedCostUsd: planned, aboveCostUsd: policy.aboveCostUsd },
    };
  return null;
}

/** The approval of tools a step was refused for (ApprovalRequired). */
export function toolApproval(s: RunningState, tools: string[]): ItemSpec {
  return { kind: 'approval', reason: 'tool', detail: { agentId: s.agentId, step: s.steps, tools } };
}

/** The question a step asked. */
export function questionOf(s: RunningState, ask: StepAsk): ItemSpec {
  return {
    kind: 'question',
    reason: 'question',
    question: ask.question,
    detail: {
      agentId: s.agentId,
      step: s.steps - 1,
      question: ask.question,
      ...(ask.answerSchema ? { answerSchema: ask.answerSchema } : {}),
    },
  };
}

/** A role's final answer `{"result": {"decision": "need_more_information", "reason"}}` (with `allowQuestions`): the question it becomes, else null. */
export function needMoreInformation(out: { done: boolean; data?: unknown }): StepAsk | null {
  const result = (out.data as { result?: { decision?: unknown; reason?: unknown } } | undefined)?.result;
  if (!out.done || result?.decision !== 'need_more_information') return null;
  return { question: typeof result.reason === 'string' && result.reason ? result.reason.slice(0, 10_000) : 'more information is needed' };
}

/** After the answer to a role's need-more-information: the role goes on, told the answer in its re-prompt. */
export function resumeWithAnswer(s: RunningState): void {
  const a = s.hitl.answer;
  if (!a) return;
  s.done = false;
  s.reprompt = `The parent answered your request for more information ("${a.question.slice(0, 500)}"): ${JSON.stringify(a.answer).slice(0, 4000)}. Go on with the task.`;
}

/** The wait's timeout and its outcome: the policy's, else a day and `fail`. */
export function waitRule(policy: ApprovalPolicy | undefined): { timeoutSeconds: number; onTimeout: OnTimeout } {
  return { timeoutSeconds: policy?.timeoutSeconds ?? DEFAULT_WAIT_SECONDS, onTimeout: policy?.onTimeout ?? 'fail' };
}

/** The loop waits on a new item (`id` from the workflow's deterministic uuid). */
export function openItem(s: SubtaskState, spec: ItemSpec, id: string, expiresAt: number, onTimeout: OnTimeout): PendingItem {
  const item: PendingItem = { id, ...spec, onTimeout, expiresAt };
  s.hitl.pending = item;
  s.hitl.decision = undefined;
  s.hitl.opened += 1;
  s.phase = spec.kind === 'question' ? 'waiting_for_answer' : spec.kind === 'budget' ? 'waiting_for_budget' : 'waiting_for_approval';
  return item;
}

/** Why a decision cannot land (the update's validator): no such pending item, or the wrong kind of decision. */
export function refusal(s: SubtaskState, d: InboxDecision): { type: 'NotFound' | 'Conflict'; message: string } | null {
  const p = s.hitl.pending;
  if (!p || p.id !== d.id || s.hitl.decision) return { type: 'Conflict', message: `approval "${d.id}" is not pending` };
  if (p.kind === 'question' && d.state === 'approved') return { type: 'Conflict', message: 'a question takes an answer (or a rejection)' };
  if (p.kind !== 'question' && d.state === 'answered') return { type: 'Conflict', message: 'an approval takes approve or reject' };
  if (p.kind === 'budget' && d.state === 'approved')
    return { type: 'Conflict', message: 'a budget wait ends with a top-up (POST /v1/jobs/:jobId/budget), or reject to stop waiting' };
  return null;
}

/** A decision lands (after `refusal` said nothing). */
export function applyDecision(s: SubtaskState, d: InboxDecision): void {
  s.hitl.decision = d;
}

/** The wait ended (a decision, the timeout, or a stop): what it does to the state, and what the loop does next. */
export function afterWait(s: RunningState, item: PendingItem): AfterWait {
  const d = s.hitl.decision;
  s.hitl.pending = undefined;
  s.hitl.decision = undefined;
  s.phase = 'running';
  const what = itemWords(item);
  if (!d) {
    // a stop or cancel ended the wait: the check before the next step halts with it
    if (s.stopRequested || s.cancelRequested) return 'go';
    s.errors.push(notDecided(item));
    if (item.onTimeout === 'fallback') {
      // the fallback agent runs without the approval that timed out: it is the one the task falls back on for that
      if (item.kind === 'approval') grant(s, item);
      return 'fallback';
    }
    halt(s, item.onTimeout === 'skip' ? 'skipped' : 'timeout');
    return 'halt';
  }
  const note = d.note ? `: ${d.note}` : '';
  if (d.state === 'rejected') {
    s.notes.push(`${what} ${item.id} rejected by ${d.by}${note}`);
    s.errors.push(`rejected by ${d.by}${note}`);
    halt(s, 'rejected');
    return 'halt';
  }
  s.notes.push(`${what} ${item.id} ${d.state} by ${d.by}${note}`);
  if (d.state === 'answered')
    s.hitl.answer = { question: item.question ?? '', answer: d.answer, by: d.by, ...(d.note ? { note: d.note } : {}) };
  else grant(s, item);
  return 'go';
}

const itemWords = (item: PendingItem) => (item.kind === 'question' ? 'question' : `approval (${item.reason})`);

/** What an item nobody decided in time says (in `errors`, and to the fallback's record). */
export const notDecided = (item: PendingItem) => `${itemWords(item)} ${item.id} was not decided in time (onTimeout: ${item.onTimeout})`;

/** An approval given (or waived for a fallback): the step it held may run. */
function grant(s: SubtaskState, item: PendingItem): void {
  if (item.reason === 'before_start') s.hitl.approvedStart = true;
  else if (item.reason === 'spend') s.hitl.spendApprovedStep = s.steps;
  else if (item.reason === 'tool') s.hitl.approvedTools.push(...((item.detail.tools as string[] | undefined) ?? []));
}

/** A budget wait ended: the item is gone; true when a top-up refilled the budget (a rejection or the timeout did not). */
export function afterBudgetWait(s: SubtaskState, refilled: boolean): boolean {
  const d = s.hitl.decision;
  s.hitl.pending = undefined;
  s.hitl.decision = undefined;
  s.phase = 'running';
  if (d?.state === 'rejected') s.notes.push(`budget wait rejected by ${d.by}${d.note ? `: ${d.note}` : ''}`);
  return refilled && d?.state !== 'rejected' && !s.stopRequested && !s.cancelRequested;
}

/** A steering message queues for the next step (the oldest dropped past MAX_QUEUED_MESSAGES). */
export function queueMessage(s: SubtaskState, m: SteeringNote): void {
  s.hitl.messages.push({ text: m.text.slice(0, 10_000), ...(m.from ? { from: m.from.slice(0, 200) } : {}) });
  if (s.hitl.messages.length > MAX_QUEUED_MESSAGES) {
    s.hitl.messages.shift();
    s.errors.push(`more than ${MAX_QUEUED_MESSAGES} steering messages queued before a step: the oldest was dropped`);
  }
}

/** What the next step is handed: the answer and the messages queued (they stay queued until the step completes). */
export function forStep(s: SubtaskState): StepHumanInput {
  const { answer, messages } = s.hitl;
  return { ...(answer ? { answer } : {}), ...(messages.length > 0 ? { messages: [...messages] } : {}) };
}

/** A step that completed received `given`: off the queue, and the messages noted for the result (`step`: its index). */
export function delivered(s: SubtaskState, given: StepHumanInput, step: number): void {
  if (given.answer) s.hitl.answer = undefined;
  const n = given.messages?.length ?? 0;
  s.hitl.messages.splice(0, n);
  for (const m of given.messages ?? [])
    s.notes.push(`message${m.from ? ` from ${m.from}` : ''} received by step ${step}: ${m.text.slice(0, 500)}`);
}

/** Messages no step received before the subtask ended: said in the notes. */
export function undelivered(s: SubtaskState): void {
  for (const m of s.hitl.messages.splice(0))
    s.notes.push(`message${m.from ? ` from ${m.from}` : ''} not delivered (the subtask ended): ${m.text.slice(0, 500)}`);
}

/** The human inputs of one step. */
export interface StepHumanInput {
  answer?: StepAnswer;
  messages?: SteeringNote[];
}
