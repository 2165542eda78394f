import { z } from 'zod';
import { LedgerSchema } from './budget';
import { metricsShape, tokenSplitShape } from './budget-axes';
import { EvidenceSchema } from './evidence';
import { PatternSchema } from './job';
import { PrioritySchema } from './priority';
import { ResearchSubtaskOutputSchema } from './research-contract';
import { RoleReportSchema } from './role';

/** Why a subtask did not fully succeed. */
export const FailureReasonSchema = z.enum([
  'timeout',
  'budget_exhausted',
  'agent_error',
  'invalid_output',
  'tool_denied',
  'cancelled',
  'stopped',
  'circuit_open',
  /** No worker started a step within DELEGATE_STEP_SCHEDULE_TIMEOUT_SECONDS: nobody serves the lane, or every slot stayed busy. */
  'agent_unavailable',
  'no_agent',
  'depth_exceeded',
  'skipped',
  /** A human (or the parent) rejected an approval the task waited for. */
  'rejected',
]);
export type FailureReason = z.infer<typeof FailureReasonSchema>;

/** Outcome of one subtask. */
export const TaskStatusSchema = z.enum(['success', 'partial', 'failure']);
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

/** What one subtask (or one nested job) spent and did. */
export const TaskMetricsSchema = z
  .object({
    latencyMs: z.number(),
    ...metricsShape(),
    ...tokenSplitShape(),
    steps: z.number(),
    attempts: z.number(),
    hedges: z.number().optional().describe('steps that started a hedge (TaskSpec.hedge); absent: none'),
    hedgeCostUsd: z
      .number()
      .optional()
      .describe(
        "the hedges' extra spend: the answers not taken, booked in costUsd (one cut before it said so at what the answer taken cost)",
      ),
    channelsHit: z.array(z.string()),
    throttledMs: z
      .number()
      .optional()
      .describe(
        "how long the steps waited on their provider's throttling (429, 529, Retry-After) or its declared tokens per minute; absent: never",
      ),
    cached: z
      .literal(true)
      .optional()
      .describe("the result was served from the identical-subtask cache (the task's `cache`): no agent ran, booked at $0"),
    cachedFrom: z.string().optional().describe('with cached: the job whose subtask produced the result'),
  })
  .meta({ id: 'TaskMetrics' });
export type TaskMetrics = z.infer<typeof TaskMetricsSchema>;

/** One agent a subtask tried: the last one's outcome is the task's; the others failed and the task moved on. */
export const AgentTrySchema = z.object({
  agent: z.string(),
  outcome: TaskStatusSchema,
  reason: FailureReasonSchema.optional().describe('why this agent did not fully succeed'),
  error: z.string().optional(),
});
export type AgentTry = z.infer<typeof AgentTrySchema>;

/** The result of one subtask, kept whatever happened to the job. */
export const TaskResultSchema = z
  .object({
    id: z.string(),
    agentId: z.string(),
    status: TaskStatusSchema,
    summary: z.string(),
    data: z.unknown().optional(),
    evidence: z.array(EvidenceSchema),
    citations: z.array(z.string()),
    followUps: z.array(z.string()),
    confidence: z.number().min(0).max(1),
    metrics: TaskMetricsSchema,
    failureReason: FailureReasonSchema.nullable(),
    errors: z.array(z.string()),
    priority: PrioritySchema.optional().describe('the priority its steps ran at (1 most urgent … 5 bulk)'),
    stoppedBy: z.string().optional().describe('the stop condition that ended the subtask, as the task wrote it'),
    notes: z
      .array(z.string())
      .optional()
      .describe(
        'what the host did on its own: a summary re-prompt, a rubric left unjudged, an output re-prompt that fixed its error (`re-prompted after: …`, then not in `errors`)',
      ),
    routing: z
      .object({ agent: z.string(), reason: z.string() })
      .optional()
      .describe(
        'which agent the task went to and why: `named`, `only agent with capability x`, the load figures capability routing chose by, (`routing: "adaptive"`) the measured quality and posterior draws it chose by, a semantic route (`semantic: bm25 0.47 ≥ 0.30`, `semantic: embeddings cosine …`), or `research default (DELEGATE_RESEARCH_DEFAULT_AGENT)`',
      ),
    research: ResearchSubtaskOutputSchema.optional().describe(
      'a task written in the research-subtask contract: its output, as the contract shapes it',
    ),
    role: RoleReportSchema.optional().describe('a role task: the bootstrap protocol as the host observed it'),
    agentsTried: z.array(AgentTrySchema).optional().describe('a task with fallback agents: every agent tried, in order'),
    warnings: z
      .array(z.string())
      .optional()
      .describe(
        'what the caller should change though the task ran: its agent version is deprecated (`agent "x" version 1.4.0 is deprecated: …`)',
      ),
    traceId: z
      .string()
      .optional()
      .describe("the job's W3C trace id (32 hex), the one its agents received in `traceparent`; absent for a job started without one"),
  })
  .meta({ id: 'TaskResult' });
export type TaskResult = z.infer<typeof TaskResultSchema>;

/** Overall outcome of a job. */
export const JobOutcomeSchema = z.enum(['success', 'partial', 'failure', 'cancelled']);
export type JobOutcome = z.infer<typeof JobOutcomeSchema>;

/** Sums over a job's subtasks. */
export const JobMetricsSchema = TaskMetricsSchema.omit({ cached: true, cachedFrom: true })
  .extend({
    subtasks: z.number(),
    savedUsd: z.number().describe('unspent allocation of subtasks cancelled by an early decision'),
  })
  .meta({ id: 'JobMetrics' });
export type JobMetrics = z.infer<typeof JobMetricsSchema>;

/** The vote block of a vote job. */
export const VoteOutcomeSchema = z
  .object({
    winner: z.unknown().nullable(),
    tally: z.array(z.object({ ballot: z.unknown(), key: z.string(), count: z.number(), weight: z.number() })),
    agreement: z.number(),
    decidedEarly: z.boolean(),
    cancelled: z.number(),
  })
  .meta({ id: 'VoteOutcome' });
export type VoteOutcome = z.infer<typeof VoteOutcomeSchema>;

/** One batch of a wide fan-out: its results are in its own workflow's result. */
export const JobBatchSchema = z
  .object({
    id: z.string(),
    workflowId: z.string(),
    tasks: z.number(),
    kind: z
      .enum(['batch', 'subtask', 'nested'])
      .default('batch')
      .describe('what the workflow returns: a batch JobResult, a TaskResult, or a nested JobResult'),
    status: JobOutcomeSchema,
    notRun: z
      .object({ reason: FailureReasonSchema, taskIds: z.array(z.string()) })
      .optional()
      .describe('set when the batch never started'),
  })
  .meta({ id: 'JobBatch' });
export type JobBatch = z.infer<typeof JobBatchSchema>;

/** The result of a whole job. */
export const JobResultSchema = z
  .object({
    jobId: z.string(),
    pattern: PatternSchema,
    status: JobOutcomeSchema,
    output: z.unknown(),
    results: z.array(TaskResultSchema),
    batches: z.array(JobBatchSchema).optional().describe('wide or very large jobs: the API fills `results` from these'),
    outputRef: z
      .union([z.object({ merge: z.literal(true) }), z.object({ taskId: z.string() })])
      .optional()
      .describe('set when the output was too large to keep here: the API rebuilds it from the merged results or from that task'),
    vote: VoteOutcomeSchema.optional(),
    evidence: z.array(EvidenceSchema),
    followUps: z.array(z.string()),
    metrics: JobMetricsSchema,
    budget: z
      .object({
        ledger: LedgerSchema.describe('the job budget at the end: limit, spent, reserved, remaining per axis'),
        clipped: z.array(z.string()).describe('tasks whose allocation the job budget cut below what they asked'),
        refused: z.array(z.string()).describe('tasks that never ran because the job budget was spent'),
      })
      .optional(),
    traceId: z.string().optional().describe("the job's W3C trace id (32 hex): in its events, log lines and its agents' `traceparent`"),
  })
  .meta({ id: 'JobResult' });
export type JobResult = z.infer<typeof JobResultSchema>;
