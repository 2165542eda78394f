/**
 * The inbox's writes, as local activities of the subtask: a wait opens its item (the record
 * row and `approval.requested` on the job's stream) and closes it (`approval.decided`). Both
 * are idempotent by the item's id, so a retried local activity writes each once.
 */
import type { InboxOpen } from '../core/inbox';
import type { RecordStore } from '../record';
import type { InboxSettle } from '../record/inbox';

/** Input of `settleInboxItem`. */
export interface SettleInboxInput {
  tenant: string;
  jobId: string;
  id: string;
  kind: InboxOpen['kind'];
  taskId?: string;
  settle: InboxSettle;
}

/** Creates the inbox activities over the record. */
export function createInboxActivities(record: Pick<RecordStore, 'inbox' | 'events'>) {
  return {
    /** Writes a newly opened item and its `approval.requested` event. */
    async openInboxItem(item: InboxOpen): Promise<void> {
      await record.inbox.open(item);
      const { tenant, jobId, id, kind, reason, taskId, detail, expiresAt, onTimeout } = item;
      await record.events.append(tenant, jobId, [
        {
          key: `approval:${id}`,
          type: kind === 'budget' ? 'budget.reached' : 'approval.requested',
          data: {
            approvalId: id,
            kind,
            reason,
            ...(taskId ? { taskId } : {}),
            detail,
            onTimeout,
            expiresAt: new Date(expiresAt).toISOString(),
          },
          at: item.requestedAt,
        },
      ]);
    },

    /** Ends an item in the record (a decision the API wrote first stays) and writes its `approval.decided` event. */
    async settleInboxItem({ tenant, jobId, id, kind, taskId, settle }: SettleInboxInput): Promise<void> {
      await record.inbox.settle(tenant, id, settle);
      await record.events.append(tenant, jobId, [
        {
          key: `decided:${id}`,
          type: 'approval.decided',
          data: {
            approvalId: id,
            kind,
            ...(taskId ? { taskId } : {}),
            state: settle.state,
            by: settle.by,
            ...(settle.note ? { note: settle.note } : {}),
            ...(settle.answer !== undefined ? { answer: settle.answer } : {}),
          },
          at: settle.at,
        },
      ]);
    },
  };
}
