/**
 * The subtask's waits for a human (or its parent): an inbox item opened in the record, then a
 * workflow condition on the decide update, bounded by the item's timeout and the job's
 * deadline. Nothing runs meanwhile: no activity, no timer but the condition's, no worker slot
 * (the workflow leaves the worker's cache like any idle workflow and replays when decided).
 *
 *   openInboxItem (local) ──condition(decided | stop | cancel, timeout)──> settleInboxItem (local) ──> afterWait
 */
import { ApplicationFailure, condition, patched, proxyLocalActivities, setHandler, uuid4, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { ErrorType } from '../../core/errors';
import { labelsOf, type InboxOpen } from '../../core/inbox';
import { msLeft } from '../../core/engine-limits';
import { LABELS_KEY } from '../../core/search-attributes';
import { decideUpdate, steerSignal, subtaskMessages } from '../../contracts/messages';
import { afterBudgetWait, applyDecision, openItem, queueMessage, refusal, type ItemSpec, type PendingItem } from './inbox';
import { spentAxes, type SubtaskState } from './state';
import type { JobEventType } from '../../schemas/events';

const { openInboxItem, settleInboxItem, appendJobEvents } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/** The patch id of the budget wait's inbox item (runs that waited before it replay without): do not change. */
export const INBOX_BUDGET_PATCH = 'inbox-budget-wait';

/** Whose inbox and stream a subtask's items go to. */
export interface InboxTarget {
  tenant: string;
  jobId: string;
  taskId: string;
  /** The job's labels as `key=value` (SubtaskInput.shown); absent: the run's own search attribute (runs started before). */
  labels?: string[];
}

/** Handles the decide update and the steering signal on the state. */
export function handleHumans(s: SubtaskState): void {
  setHandler(
    decideUpdate,
    (d) => {
      applyDecision(s, d);
      return { id: d.id, state: d.state };
    },
    {
      description: subtaskMessages.decide,
      validator: (d) => {
        const no = refusal(s, d);
        if (no) throw ApplicationFailure.create({ type: ErrorType[no.type], message: no.message, nonRetryable: true });
      },
    },
  );
  setHandler(steerSignal, (m) => queueMessage(s, m), { description: subtaskMessages.message });
}

/** Opens an item and waits for its decision, its timeout, the job's deadline, or a stop; the item is settled in the record either way. */
export async function waitForHuman(
  s: SubtaskState,
  spec: ItemSpec,
  rule: { timeoutSeconds: number; onTimeout: PendingItem['onTimeout'] },
  target: InboxTarget,
  deadline: number | undefined,
  /** Also ends the wait (a budget top-up): the item is then `approved` by `top-up`. */
  met?: () => boolean,
): Promise<PendingItem> {
  const now = Date.now();
  const item = openItem(s, spec, uuid4(), now + rule.timeoutSeconds * 1000, rule.onTimeout);
  const info = workflowInfo();
  const open: InboxOpen = {
    id: item.id,
    kind: item.kind,
    reason: item.reason,
    tenant: target.tenant,
    jobId: target.jobId,
    taskId: target.taskId,
    workflowId: info.workflowId,
    labels: labelsOf(target.labels ?? info.typedSearchAttributes.get(LABELS_KEY)),
    detail: item.detail,
    onTimeout: item.onTimeout,
    requestedAt: now,
    expiresAt: item.expiresAt,
  };
  await openInboxItem(open);
  const waitMs = Math.max(1, Math.min(item.expiresAt - now, msLeft(deadline, now)));
  await condition(() => s.hitl.decision !== undefined || s.stopRequested || s.cancelRequested || (met?.() ?? false), waitMs);
  const d = s.hitl.decision;
  const ended = s.cancelRequested || s.stopRequested ? 'cancelled' : met?.() ? 'approved' : 'timed_out';
  const by = { cancelled: 'stop', approved: 'top-up', timed_out: 'timeout' }[ended];
  await settleInboxItem({
    tenant: target.tenant,
    jobId: target.jobId,
    id: item.id,
    kind: item.kind,
    taskId: target.taskId,
    settle: d
      ? { state: d.state, by: d.by, at: d.at, ...(d.note ? { note: d.note } : {}), ...(d.answer !== undefined ? { answer: d.answer } : {}) }
      : { state: ended, by, at: Date.now() },
  });
  return item;
}

/** One event of this subtask's step on the job's stream, keyed `<kind>:<workflow id>:<step>` (written once however often it is sent). */
export async function stepEvent(
  target: InboxTarget,
  kind: string,
  step: number,
  type: JobEventType,
  data: Record<string, unknown>,
): Promise<void> {
  await appendJobEvents({
    tenant: target.tenant,
    jobId: target.jobId,
    events: [{ key: `${kind}:${workflowInfo().workflowId}:${step}`, type, data, at: Date.now() }],
  });
}

/** `subtask.message` on the job's stream: the messages a step received. */
export async function messagesReceived(target: InboxTarget, step: number, texts: { text: string; from?: string }[]): Promise<void> {
  await stepEvent(target, 'message', step, 'subtask.message', { taskId: target.taskId, step, messages: texts });
}

/** A spent budget's wait for a top-up: `seconds` long at most, and what it tells the inbox. */
export interface TopUpWait {
  seconds: number;
  target: InboxTarget;
  deadline: number | undefined;
  /** The ledger now, for the inbox item. */
  ledger: () => unknown;
}

/** Waits for a top-up (`budgetWaitSeconds`); true when one refilled the budget and nothing stopped the subtask. */
export async function waitForTopUp(s: SubtaskState, w: TopUpWait): Promise<boolean> {
  const refilled = () => spentAxes(s, Date.now()).length === 0;
  if (patched(INBOX_BUDGET_PATCH)) {
    // budget.reached on the job's stream and in the inbox: a top-up ends the wait, a rejection gives up
    const detail = { spent: spentAxes(s, Date.now()), ledger: w.ledger() };
    const rule = { timeoutSeconds: w.seconds, onTimeout: 'fail' as const };
    await waitForHuman(s, { kind: 'budget', reason: 'budget', detail }, rule, w.target, w.deadline, refilled);
    return afterBudgetWait(s, refilled());
  }
  s.phase = 'waiting_for_budget';
  const waitMs = Math.min(w.seconds * 1000, msLeft(w.deadline, Date.now()));
  await condition(() => refilled() || s.stopRequested || s.cancelRequested, Math.max(1, waitMs)).catch(() => false);
  s.phase = 'running';
  return refilled() && !s.stopRequested && !s.cancelRequested;
}
