/**
 * The inbox through the client: what waiting subtasks ask for (approvals, questions, budget
 * waits), and the decisions that let them go on; steering messages for a running subtask.
 *
 *   list({ jobId, label }) ──GET /v1/approvals──> items ──decide(id, { decision | answer })──> the item, decided
 */
import type { createTransport } from './http.js';
import type { ApprovalDecision, InboxItem, InboxState } from './types.js';

/** Filters of `approvals.list`. */
export interface ApprovalFilters {
  /** @default 'pending' */
  state?: InboxState;
  jobId?: string;
  /** Every one must match the job's labels. */
  labels?: Record<string, string>;
  limit?: number;
}

/** The `approvals` methods of a client over `request`. */
export function approvalMethods(request: ReturnType<typeof createTransport>) {
  const path = (id: string) => `/v1/approvals/${encodeURIComponent(id)}`;
  return {
    /** The tenant's inbox items (pending unless `state` says otherwise), oldest first. */
    async list(f: ApprovalFilters = {}): Promise<InboxItem[]> {
      const label = f.labels ? Object.entries(f.labels).map(([k, v]) => `${k}=${v}`) : undefined;
      const query = { state: f.state, jobId: f.jobId, label, limit: f.limit };
      return (await request<{ items: InboxItem[] }>('GET', '/v1/approvals', { query, idempotent: true })).body.items;
    },

    /** One item (a `DelegateProblemError` 404 for an unknown id or another tenant's). */
    async get(id: string): Promise<InboxItem> {
      return (await request<InboxItem>('GET', path(id), { idempotent: true })).body;
    },

    /** Approves, rejects or answers an item; 409 once decided, 422 for an answer its schema refuses. Sent once. */
    async decide(id: string, decision: ApprovalDecision): Promise<InboxItem> {
      return (await request<InboxItem>('POST', path(id), { body: decision, idempotent: false })).body;
    },
  };
}
