import { z } from 'zod';

/** What a job's live event says happened. */
export const JobEventTypeSchema = z.enum([
  'job.started',
  'job.admission',
  'subtask.started',
  'subtask.step',
  'subtask.retried',
  'subtask.delta',
  'subtask.finished',
  'subtask.downshift',
  'budget.changed',
  'budget.reached',
  'approval.requested',
  'approval.decided',
  'subtask.message',
  'vote.decided',
  'scout.committed',
  'scout.failed',
  'job.finished',
]);
export type JobEventType = z.infer<typeof JobEventTypeSchema>;

/**
 * One event of a job's live stream (`GET /v1/jobs/:jobId/events`, MCP progress): `seq` counts
 * from 1 per job, in order, without gaps; it is the SSE `id` to resume from (`Last-Event-ID`).
 */
export const JobEventSchema = z
  .object({
    seq: z.number().int().positive(),
    type: JobEventTypeSchema,
    at: z.string().describe('ISO 8601'),
    data: z.record(z.string(), z.unknown()).describe('by type: taskId, status, metrics, usage, ledger, winner, …'),
    traceId: z.string().optional().describe("the job's W3C trace id (32 hex); absent for a job started straight through Temporal"),
  })
  // the API's readers see TypedJobEventSchema (event-data.ts), which holds the name `JobEvent`
  .meta({ id: 'StoredJobEvent' });
export type JobEvent = z.infer<typeof JobEventSchema>;

/** An event as its writer hands it over: `key` makes it unique in its job (a retried write is skipped). */
export interface NewJobEvent {
  key: string;
  type: JobEventType;
  data: Record<string, unknown>;
  /** Epoch ms; default: when written. */
  at?: number;
}
