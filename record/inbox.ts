/**
 * The inbox in the record: the items waiting subtasks (and jobs) opened, written by the
 * workers' local activities when a wait begins and ends, and read by any API process. The
 * workflow decides (its update handler is the one place a decision lands); the record is
 * what the API lists, so pending items are found by an index, not by asking every workflow.
 *
 *   subtask ──open──> inbox (pending) ──settle (decided | timed_out | cancelled)──> inbox
 *   API ──list(tenant, state, job, labels) · get(tenant, id)──> inbox
 */
import type { InboxDecision, InboxOpen, InboxState } from '../core/inbox';
import type { InboxItem } from '../schemas/approval';
import type { InboxTable, RecordDb } from './db';

/** Items listed at most at once. */
export const INBOX_PAGE = 500;

/** What a listing selects. */
export interface InboxFilter {
  state?: InboxState;
  jobId?: string;
  /** Every one must match the job's labels. */
  labels?: Record<string, string>;
  limit?: number;
}

/** How an item ended, as the workflow writes it. */
export type InboxSettle = Omit<InboxDecision, 'state' | 'id'> & { state: Exclude<InboxState, 'pending'> };

const iso = (ms: number | null) => (ms === null ? undefined : new Date(ms).toISOString());

/** A row as the API shows it (without its token URL, which the API adds). */
export function inboxItemOf(r: InboxTable): InboxItem {
  return {
    id: r.id,
    kind: r.kind as InboxItem['kind'],
    reason: r.reason as InboxItem['reason'],
    state: r.state as InboxItem['state'],
    jobId: r.job_id,
    ...(r.task_id ? { taskId: r.task_id } : {}),
    workflowId: r.workflow_id,
    labels: JSON.parse(r.labels) as Record<string, string>,
    detail: JSON.parse(r.detail) as Record<string, unknown>,
    onTimeout: r.on_timeout as InboxItem['onTimeout'],
    requestedAt: iso(r.requested_at)!,
    expiresAt: iso(r.expires_at)!,
    ...(r.decided_at !== null ? { decidedAt: iso(r.decided_at) } : {}),
    ...(r.decided_by ? { decidedBy: r.decided_by } : {}),
    ...(r.note ? { note: r.note } : {}),
    ...(r.answer !== null ? { answer: JSON.parse(r.answer) as unknown } : {}),
  };
}

/** The inbox part of the record. */
export function createInbox({ db }: RecordDb) {
  return {
    /** Writes a newly opened item; a retried write of the same id writes nothing. */
    async open(item: InboxOpen): Promise<void> {
      await db
        .insertInto('inbox')
        .values({
          tenant: item.tenant,
          id: item.id,
          kind: item.kind,
          reason: item.reason,
          state: 'pending',
          job_id: item.jobId,
          task_id: item.taskId ?? null,
          workflow_id: item.workflowId,
          labels: JSON.stringify(item.labels),
          detail: JSON.stringify(item.detail),
          on_timeout: item.onTimeout,
          requested_at: item.requestedAt,
          expires_at: item.expiresAt,
          decided_at: null,
          decided_by: null,
          note: null,
          answer: null,
        })
        .onConflict((oc) => oc.columns(['tenant', 'id']).doNothing())
        .execute();
    },

    /** Ends a pending item; false when it was no longer pending (a retried write, or the API's write first). */
    async settle(tenant: string, id: string, s: InboxSettle): Promise<boolean> {
      const res = await db
        .updateTable('inbox')
        .set({
          state: s.state,
          decided_at: Math.floor(s.at),
          decided_by: s.by,
          note: s.note ?? null,
          answer: s.answer === undefined ? null : JSON.stringify(s.answer),
        })
        .where('tenant', '=', tenant)
        .where('id', '=', id)
        .where('state', '=', 'pending')
        .executeTakeFirst();
      return Number(res.numUpdatedRows) > 0;
    },

    /** One item of the tenant's; undefined for an unknown id or another tenant's. */
    async get(tenant: string, id: string): Promise<InboxItem | undefined> {
      const r = await db.selectFrom('inbox').selectAll().where('tenant', '=', tenant).where('id', '=', id).executeTakeFirst();
      return r ? inboxItemOf(r) : undefined;
    },

    /** The tenant's items, oldest first (by the state index), filtered by job and labels. */
    async list(tenant: string, f: InboxFilter = {}): Promise<InboxItem[]> {
      let q = db.selectFrom('inbox').selectAll().where('tenant', '=', tenant);
      if (f.state) q = q.where('state', '=', f.state);
      if (f.jobId) q = q.where('job_id', '=', f.jobId);
      const rows = await q
        .orderBy('requested_at')
        .orderBy('id')
        .limit(Math.min(f.limit ?? INBOX_PAGE, INBOX_PAGE))
        .execute();
      const want = Object.entries(f.labels ?? {});
      return rows.map(inboxItemOf).filter((i) => want.every(([k, v]) => i.labels[k] === v));
    },
  };
}

/** The inbox in the record. */
export type Inbox = ReturnType<typeof createInbox>;
