/**
 * What each job event carries in `data`, by its `type` (docs/reference/events.md): the client's
 * `JobEvent` and the OpenAPI document's event stream read these. Each is loose: a writer may
 * add a key before a reader knows it, and a reader must not break on it.
 */
import { z } from 'zod';
import { LedgerSchema, UsageSchema } from './budget';
import { JobEventTypeSchema, type JobEventType } from './events';
import { PatternSchema } from './job';
import { FailureReasonSchema, JobMetricsSchema, JobOutcomeSchema, TaskMetricsSchema, TaskStatusSchema } from './result';

const taskId = z.string().describe('the task id in its job');
const workflowId = z.string().describe("the subtask's workflow id");
const step = z.number().int().describe('the step number, from 1');
const attempt = z.number().int().describe('the attempt of the step, from 1');
const approvalKind = z.enum(['approval', 'question', 'budget']);

/** The data schema of each event type. */
export const JobEventDataSchemas = {
  'job.started': z.looseObject({ pattern: PatternSchema, tasks: z.number().int(), labels: z.record(z.string(), z.string()).optional() }),
  'job.admission': z.looseObject({
    mode: z.string().optional(),
    confidence: z.number().optional(),
    decision: z.enum(['admitted', 'warned', 'replanned']).optional(),
    budgetSuffices: z.boolean().optional(),
    message: z.string().optional(),
  }),
  'subtask.started': z.looseObject({ taskId, workflowId, agentId: z.string().optional() }),
  'subtask.step': z.looseObject({
    taskId,
    workflowId: workflowId.optional(),
    agentId: z.string().optional(),
    step,
    attempt,
    done: z.boolean(),
    usage: UsageSchema.partial().optional().describe('what the step spent (absent on a progress note)'),
    tools: z.array(z.string()).optional(),
    progress: z.looseObject({ state: z.string().optional(), text: z.string().optional() }).optional(),
  }),
  'subtask.retried': z.looseObject({ taskId, workflowId: workflowId.optional(), step, attempt }),
  'subtask.delta': z.looseObject({
    taskId,
    step,
    attempt,
    seq: z.number().int().describe('1, 2, … per attempt'),
    text: z.string(),
    truncated: z.boolean().optional(),
  }),
  'subtask.finished': z.looseObject({
    taskId,
    workflowId,
    agentId: z.string().optional(),
    status: TaskStatusSchema,
    failureReason: FailureReasonSchema.nullable(),
    metrics: TaskMetricsSchema,
  }),
  'subtask.downshift': z.looseObject({
    taskId,
    scope: z
      .enum(['subtask', 'job'])
      .describe("whose spend passed the threshold: the subtask's own, or the job's (the task started down-shifted)"),
    from: z.string().describe('the agent before'),
    to: z.string().describe('the cheaper agent after'),
    share: z.number().describe('the share of the budget spent on `axis`'),
    axis: z.string().optional(),
    threshold: z.number(),
    qualityFloor: z.number(),
    quality: z.looseObject({
      before: z.number().nullable().describe("the agent before's measured quality (null: not measured)"),
      after: z.number().nullable().describe("the cheaper agent's measured quality (smoothed success rate)"),
      runs: z.number().int().describe('the finished subtasks it rests on'),
    }),
  }),
  'budget.changed': z.looseObject({
    add: z.record(z.string(), z.number()).optional(),
    ledger: LedgerSchema.optional(),
    taskId: taskId.optional(),
    granted: z.record(z.string(), z.number()).optional(),
  }),
  'budget.reached': z.looseObject({
    approvalId: z.string(),
    kind: z.literal('budget'),
    taskId: taskId.optional(),
    detail: z.unknown().optional(),
    expiresAt: z.string(),
  }),
  'approval.requested': z.looseObject({
    approvalId: z.string(),
    kind: approvalKind,
    reason: z.string().optional(),
    taskId: taskId.optional(),
    detail: z.unknown().optional(),
    onTimeout: z.string().optional(),
    expiresAt: z.string(),
  }),
  'approval.decided': z.looseObject({
    approvalId: z.string(),
    kind: approvalKind,
    taskId: taskId.optional(),
    state: z.string(),
    by: z.string().optional(),
    note: z.string().optional(),
    answer: z.unknown().optional(),
  }),
  'subtask.message': z.looseObject({ taskId, step, messages: z.array(z.looseObject({ text: z.string(), from: z.string().optional() })) }),
  'vote.decided': z.looseObject({
    winner: z.unknown().describe('the winning ballot, null when none'),
    agreement: z.number(),
    decidedEarly: z.boolean(),
    cancelled: z.number().int(),
    ballots: z.number().int(),
  }),
  'scout.committed': z.looseObject({}),
  'scout.failed': z.looseObject({}),
  'job.finished': z.looseObject({ status: JobOutcomeSchema, pattern: PatternSchema, metrics: JobMetricsSchema }),
} satisfies Record<JobEventType, z.ZodType>;

/** One event whose `data` schema its `type` picks. */
function eventOf<T extends JobEventType>(type: T) {
  return z.object({
    seq: z.number().int().positive(),
    type: z.literal(type),
    at: z.string().describe('ISO 8601'),
    data: JobEventDataSchemas[type],
    traceId: z.string().optional().describe("the job's W3C trace id (32 hex); absent for a job started straight through Temporal"),
  });
}

/** The schema of each event type's event, as a union. */
type EventSchema = { [T in JobEventType]: ReturnType<typeof eventOf<T>> }[JobEventType];

/**
 * One event of a job's live stream, its `data` typed by its `type` (a discriminated union):
 * `seq` counts from 1 per job, in order, without gaps; it is the SSE `id` to resume from.
 */
export const TypedJobEventSchema = z
  // the map loses which schema belongs to which type; the tuple type puts it back
  .discriminatedUnion('type', JobEventTypeSchema.options.map((t) => eventOf(t)) as unknown as [EventSchema, ...EventSchema[]])
  .meta({ id: 'JobEvent' });
/** A job event, its `data` typed by its `type`. */
export type TypedJobEvent = z.infer<typeof TypedJobEventSchema>;
