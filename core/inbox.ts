/**
 * The inbox's vocabulary, pure and zod-free: the schemas build on it, the subtask workflow
 * and the record use it as it is.
 */

/** What a waiting subtask (or job) asks for. */
export const INBOX_KINDS = ['approval', 'question', 'budget'] as const;
export type InboxKind = (typeof INBOX_KINDS)[number];

/** Why an item was opened. */
export const INBOX_REASONS = ['before_start', 'spend', 'tool', 'question', 'budget'] as const;
export type InboxReason = (typeof INBOX_REASONS)[number];

/** An item's state: pending until decided, answered, timed out or cancelled (the subtask ended). */
export const INBOX_STATES = ['pending', 'approved', 'rejected', 'answered', 'timed_out', 'cancelled'] as const;
export type InboxState = (typeof INBOX_STATES)[number];

/** What a wait does when nobody decides in time. */
export const ON_TIMEOUT = ['fail', 'skip', 'fallback'] as const;
export type OnTimeout = (typeof ON_TIMEOUT)[number];

/** A decision as the workflow receives it (the API has checked the answer against its schema). */
export interface InboxDecision {
  id: string;
  state: 'approved' | 'rejected' | 'answered';
  answer?: unknown;
  note?: string;
  by: string;
  /** Epoch ms. */
  at: number;
}

/** What the workflow writes when it opens an item (the record row and `approval.requested`). */
export interface InboxOpen {
  id: string;
  kind: InboxKind;
  reason: InboxReason;
  tenant: string;
  jobId: string;
  taskId?: string;
  workflowId: string;
  labels: Record<string, string>;
  detail: Record<string, unknown>;
  onTimeout: OnTimeout;
  requestedAt: number;
  expiresAt: number;
}

/** Labels from the `DelegateLabels` search attribute (`key=value` keywords). */
export function labelsOf(keywords: readonly string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of keywords ?? []) {
    const at = k.indexOf('=');
    if (at > 0) out[k.slice(0, at)] = k.slice(at + 1);
  }
  return out;
}
