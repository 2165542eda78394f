import { z } from 'zod';
import { LedgerSchema } from './budget';
import { PatternSchema } from './job';
import { PrioritySchema } from './priority';
import { FailureReasonSchema, JobOutcomeSchema, JobResultSchema, TaskMetricsSchema, TaskStatusSchema } from './result';

/** Where a subtask is in its life. */
export const SubtaskStateSchema = z.enum(['pending', 'running', 'completed']);
export type SubtaskState = z.infer<typeof SubtaskStateSchema>;

/** One subtask as the job sees it while it runs. */
export const SubtaskProgressSchema = z
  .object({
    id: z.string(),
    state: SubtaskStateSchema,
    workflowId: z.string(),
    agentId: z.string().optional(),
    priority: PrioritySchema.optional().describe('the priority it runs at (1 most urgent … 5 bulk)'),
    status: TaskStatusSchema.optional(),
    failureReason: FailureReasonSchema.nullable().optional(),
    metrics: TaskMetricsSchema.optional(),
    ledger: LedgerSchema.optional(),
    clipped: z.boolean().optional().describe('its allocation was cut by the job budget'),
    batch: z.boolean().optional().describe('a batch of a wide fan-out, not a task of the spec'),
  })
  .meta({ id: 'SubtaskProgress' });
export type SubtaskProgress = z.infer<typeof SubtaskProgressSchema>;

/** Counts of subtasks by state and outcome. */
export const ProgressSchema = z.object({
  total: z.number(),
  pending: z.number(),
  running: z.number(),
  completed: z.number(),
  succeeded: z.number(),
  partial: z.number(),
  failed: z.number(),
});
export type Progress = z.infer<typeof ProgressSchema>;

/** What the job workflow answers to a status query. */
export const JobProgressSchema = z
  .object({
    jobId: z.string(),
    pattern: PatternSchema,
    phase: z.enum(['running', 'stopping', 'cancelling', 'done']),
    progress: ProgressSchema,
    subtasks: z.array(SubtaskProgressSchema),
    ledger: LedgerSchema,
  })
  .meta({ id: 'JobProgress' });
export type JobProgress = z.infer<typeof JobProgressSchema>;

/** Temporal's view of the job's workflow. */
export const JobStateSchema = z.enum(['running', 'completed', 'failed', 'cancelled', 'terminated', 'timed_out', 'continued_as_new']);

/** `GET /v1/jobs/:jobId`: the job's state, progress, ledger and, when done, its result. */
export const JobViewSchema = z
  .object({
    jobId: z.string(),
    workflowId: z.string(),
    state: JobStateSchema,
    status: JobOutcomeSchema.optional(),
    pattern: PatternSchema.optional(),
    startedAt: z.string().optional(),
    closedAt: z.string().optional(),
    progress: ProgressSchema.optional(),
    subtasks: z.array(SubtaskProgressSchema).optional(),
    ledger: LedgerSchema.optional(),
    result: JobResultSchema.optional(),
    links: z.object({ self: z.string(), result: z.string(), temporalUi: z.string() }),
  })
  .meta({ id: 'JobView' });
export type JobView = z.infer<typeof JobViewSchema>;
