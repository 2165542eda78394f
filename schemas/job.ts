import { z } from 'zod';
import { BudgetSchema } from './budget';
import { EvidenceSchema } from './evidence';
import { AdmissionSchema } from './forecast';
import { DownshiftSchema } from './downshift';
import { ApprovalPolicySchema } from './approval';
import { OutputSchemaSchema } from './output-schema';
import { PrioritySchema } from './priority';
import { HedgeSchema } from './hedge';
import { ResearchMarkerSchema } from './research-contract';
import { ResearchTaskEntrySchema } from './research-task';
import { ResultCacheSchema } from './result-cache';
import { parseStopConditions } from '../core/stop-conditions';
import { leafCount, type TaskTree } from '../core/allocation';
import { ALLOCATION_MODES } from '../core/allocation-modes';
import { AgentRefSchema, IdSchema, LabelKeySchema, LabelValueSchema, RetrySchema } from './task-refs';

export { AgentRefSchema, IdSchema, LabelKeySchema, LabelValueSchema, RetrySchema, type AgentRef, type Retry } from './task-refs';

const StringList = z.array(z.string().max(4000)).max(100);

/** A task dispatched to a specialist role: the role and task type, and the dynamic task the host holds back until bootstrap. */
const roleTaskShape = {
  role: z.string().min(1).max(64).optional().describe('dispatch to this role (agents file `roles`) instead of naming an agent'),
  taskType: z.string().min(1).max(64).optional().describe("with role: one of the role's task types (its outputKinds keys)"),
  completionCriteria: StringList.optional().describe('with role: when the child is done'),
  authority: z.string().min(1).max(1000).optional().describe('with role: what the child may decide or change'),
  subject: z.string().min(1).max(500).optional().describe('with role: what a review reviews; the host checks the review names it'),
};
/** Fallback agents one task may name. */
export const MAX_FALLBACKS = 8;

/** The subtask contract: one specific question handed to one agent (or a nested job). */
export const TaskSpecSchema = z
  .strictObject({
    contract: z.literal('delegate').optional().describe("the contract this task is written in: Delegate's own (the default)"),
    id: IdSchema.describe('unique in the job, e.g. "sub_1"'),
    question: z.string().trim().min(1).max(50_000),
    rationale: z.string().max(10_000).optional(),
    agent: AgentRefSchema.optional().describe('agent id, { capability }, or { route: "semantic" }; absent when job is set'),
    params: z.record(z.string(), z.unknown()).optional().describe('agent input, validated against its manifest'),
    fallback: z
      .array(z.string().min(1).max(128))
      .max(MAX_FALLBACKS)
      .optional()
      .describe(
        "agent ids tried in order when the agent's circuit is open or it fails for good, within the same budget; a { capability } task without it falls back on the capability's other agents",
      ),
    downshift: DownshiftSchema.optional().describe(
      'once its budget is mostly spent, its remaining steps go to the cheapest agent of a ladder whose measured quality stays above a floor (root jobs only)',
    ),
    scope: z.array(z.string().min(1).max(128)).max(100).optional().describe('tool allowlist; default none'),
    contextSeed: z.array(EvidenceSchema).max(1000).optional(),
    constraints: StringList.optional(),
    stopConditions: StringList.optional(),
    budget: BudgetSchema.optional(),
    timeoutSeconds: z.number().finite().positive().max(86_400).optional().describe('per-attempt limit of one step'),
    budgetWaitSeconds: z
      .number()
      .finite()
      .min(0)
      .max(86_400)
      .optional()
      .describe('when the budget runs out before the agent is done, wait this long for a top-up before halting (default 0)'),
    retry: RetrySchema.optional(),
    approval: ApprovalPolicySchema.optional().describe(
      'wait for a human (or the parent) to approve: before the start, a costly step, a named tool',
    ),
    allowQuestions: z
      .boolean()
      .optional()
      .describe("a role task's need-more-information becomes a question in the inbox instead of ending the task"),
    outputSchema: OutputSchemaSchema.optional(),
    cache: ResultCacheSchema.optional().describe(
      "serve an identical subtask's recorded success (same tenant, agent id and version, question, params, context, output schema, model) within the TTL, at $0; default: the job's",
    ),
    priority: PrioritySchema.optional().describe("1 (most urgent) to 5 (bulk); default: the job's"),
    hedge: HedgeSchema.optional().describe(
      "an idempotent task's hedged steps: a step still running past its agent's measured latency quantile starts a second on the same agent; the first valid answer wins, both are booked",
    ),
    research: ResearchMarkerSchema.optional().describe(
      "set for a task written in the research-subtask contract: its result carries the contract's output",
    ),
    ...roleTaskShape,
    get job(): z.ZodOptional<typeof JobSpecObject> {
      return JobSpecObject.optional();
    },
  })
  .meta({ id: 'TaskSpec' });
export type TaskSpec = z.infer<typeof TaskSpecSchema>;

/** A job's task: Delegate's own TaskSpec, or one written in the research-subtask contract (parsed into a TaskSpec). */
export const TaskEntrySchema = z.discriminatedUnion('contract', [TaskSpecSchema, ResearchTaskEntrySchema.pipe(TaskSpecSchema)]);

/** How a job combines its subtasks. */
export const PatternSchema = z.enum(['fanout', 'pipeline', 'vote']);
export type Pattern = z.infer<typeof PatternSchema>;

/** Fan-out aggregation options. */
export const AggregationSchema = z.strictObject({
  strategy: z.enum(['merge', 'best_confidence', 'first_success']).default('merge'),
  quorum: z.number().int().positive().optional().describe('stop after n successes, cancel the rest'),
  minSuccess: z.number().int().positive().optional().describe('fewer successes than this makes the job fail'),
});
export type Aggregation = z.infer<typeof AggregationSchema>;

/** Vote options. */
export const VoteOptionsSchema = z.strictObject({
  strategy: z.enum(['majority', 'weighted', 'unanimous']).default('majority'),
  key: z
    .string()
    .max(1000)
    .regex(/^(\/.*)?$/, 'a JSON pointer ("" or starting with "/")')
    .optional(),
  threshold: z
    .number()
    .min(0.5)
    .lt(1)
    .optional()
    .describe('weighted: the share of the weight cast a winner must pass (default 0.5: more than half)'),
});
export type VoteOptions = z.infer<typeof VoteOptionsSchema>;

/** Pipeline options. */
export const PipelineOptionsSchema = z.strictObject({
  onStageFailure: z.enum(['stop', 'continue']).default('stop'),
});
export type PipelineOptions = z.infer<typeof PipelineOptionsSchema>;

const JobSpecObject = z.strictObject({
  jobId: IdSchema.optional().describe('client-chosen id: same id, same job'),
  pattern: PatternSchema,
  objective: z.string().max(50_000).optional(),
  get tasks(): z.ZodArray<typeof TaskEntrySchema> {
    return z.array(TaskEntrySchema).min(1).max(10_000);
  },
  aggregation: AggregationSchema.optional(),
  vote: VoteOptionsSchema.optional(),
  pipeline: PipelineOptionsSchema.optional(),
  budget: BudgetSchema.optional(),
  downshift: DownshiftSchema.optional().describe(
    "once the job budget is mostly spent, its tasks not yet started on a ladder's agent start on the cheapest one whose measured quality stays above a floor; each task also steps down within its own grant (root jobs only)",
  ),
  approval: ApprovalPolicySchema.optional().describe("every task's approval policy, unless the task has its own"),
  allowQuestions: z.boolean().optional().describe('every task may turn need-more-information into a question (see TaskSpec)'),
  budgetWaitSeconds: z
    .number()
    .int()
    .min(0)
    .max(30 * 86_400)
    .optional()
    .describe('when the job budget runs out, its tasks wait this long for a top-up (budget.reached, in the inbox) before halting'),
  priority: PrioritySchema.optional().describe("1 (most urgent) to 5 (bulk), the default of its tasks; default: the parent task's, else 3"),
  maxParallel: z.number().int().min(1).max(1000).optional(),
  allocation: z
    .enum(ALLOCATION_MODES)
    .optional()
    .describe(
      "how the job budget is shared among its tasks (default fair: each gets a share of what is left, weighted by the agent tasks below it, at least one step's spend, refunds going to later tasks; greedy: each may take all that is left). A nested job without its own follows its parent's",
    ),
  cache: ResultCacheSchema.optional().describe(
    "the identical-subtask cache of every agent task that sets none of its own (see TaskSpec.cache); a nested job without its own follows its parent's",
  ),
  admission: AdmissionSchema.optional().describe(
    'admission control of a root job: what happens when the forecast says its budget is unlikely to suffice (POST /v1/jobs/estimate)',
  ),
  // https, or http to loopback where a deployment allows it: the API checks the policy at
  // submission, the webhook sender again at connect time
  callbackUrl: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional(),
  callbackFormat: z
    .enum(['delegate', 'a2a'])
    .optional()
    .describe(
      "the webhook's body: Delegate's job.completed (default), or the final A2A task as a push notification (application/a2a+json)",
    ),
  callbackToken: z
    .string()
    .min(1)
    .max(1024)
    .optional()
    .describe('an a2a webhook sends it as X-A2A-Notification-Token (the push config token)'),
  labels: z.record(LabelKeySchema, LabelValueSchema).optional(),
  model: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("the job's current model: its llm children run on it (POST /v1/jobs/:jobId/model changes it mid-run)"),
  maxOutputTokens: z
    .number()
    .int()
    .positive()
    .max(1_000_000)
    .optional()
    .describe("output-token cap of one model turn of any llm child; a role's lower cap stays"),
});
type JobSpecShape = z.infer<typeof JobSpecObject>;

/** Subtasks in one job, counted across every level of nesting (tenants may have a lower quota). */
export const MAX_SUBTASKS_PER_JOB = 10_000;

/** Agent tasks in a job, across every level of nesting. */
export function countSubtasks(job: NonNullable<TaskTree['job']>): number {
  return leafCount({ job });
}

/** Tasks per pattern: a fan-out is batched into a tree; pipelines and votes run flat, so they stay within one run's history. */
export const PATTERN_TASK_CAPS = { fanout: 10_000, pipeline: 1000, vote: 1000 } as const;

/** A role task names its role and task type, and no agent or job (the role says which agent plays it). */
function checkRoleTask(t: z.infer<typeof TaskSpecSchema>, ctx: z.RefinementCtx, at: (string | number)[]): void {
  if (t.role === undefined) {
    for (const key of ['taskType', 'completionCriteria', 'authority', 'subject'] as const) {
      if (t[key] !== undefined)
        ctx.addIssue({ code: 'custom', path: [...at, key], message: `${key} belongs to a role task: set role too` });
    }
    return;
  }
  if (t.taskType === undefined) ctx.addIssue({ code: 'custom', path: [...at, 'taskType'], message: 'a role task needs a taskType' });
  if (t.agent !== undefined)
    ctx.addIssue({ code: 'custom', path: [...at, 'agent'], message: 'a role task takes its agent from the role: drop agent' });
  if (t.job !== undefined) ctx.addIssue({ code: 'custom', path: [...at, 'job'], message: 'a role task runs one child, not a job' });
}

/** Cross-field rules of a job and, recursively, of every nested job. */
function checkJob(job: JobSpecShape, ctx: z.RefinementCtx, path: (string | number)[]): void {
  const seen = new Map<string, number>();
  job.tasks.forEach((t, i) => {
    const at = [...path, 'tasks', i];
    const first = seen.get(t.id);
    if (first !== undefined) {
      ctx.addIssue({ code: 'custom', path: [...at, 'id'], message: `duplicate task id "${t.id}" (also tasks[${first}])` });
    } else seen.set(t.id, i);
    checkRoleTask(t, ctx, at);
    if (t.agent === undefined && t.job === undefined && t.role === undefined) {
      ctx.addIssue({ code: 'custom', path: [...at, 'agent'], message: 'a task needs an agent or a job' });
    }
    if (t.agent !== undefined && t.job !== undefined) {
      ctx.addIssue({ code: 'custom', path: [...at, 'job'], message: 'a task has an agent or a job, not both' });
    }
    if (t.job !== undefined && t.cache !== undefined) {
      ctx.addIssue({ code: 'custom', path: [...at, 'cache'], message: 'a nested job takes its cache on the job: set job.cache' });
    }
    if (t.job !== undefined && t.hedge !== undefined) {
      ctx.addIssue({ code: 'custom', path: [...at, 'hedge'], message: 'hedged steps are for agent tasks, not nested jobs' });
    }
    if (t.job !== undefined && t.fallback !== undefined) {
      ctx.addIssue({ code: 'custom', path: [...at, 'fallback'], message: 'fallback agents are for agent tasks, not nested jobs' });
    }
    if (t.downshift !== undefined && (t.job !== undefined || path.length > 0)) {
      ctx.addIssue({ code: 'custom', path: [...at, 'downshift'], message: 'a down-shift is for the agent tasks of a root job' });
    }
    parseStopConditions(t.stopConditions ?? []).issues.forEach((i) => {
      ctx.addIssue({ code: 'custom', path: [...at, 'stopConditions', i.index], message: i.message });
    });
    if (t.job) checkJob(t.job, ctx, [...at, 'job']);
  });
  if (job.downshift !== undefined && path.length > 0) {
    ctx.addIssue({ code: 'custom', path: [...path, 'downshift'], message: 'a down-shift is for a root job, not a nested one' });
  }
  const cap = PATTERN_TASK_CAPS[job.pattern];
  if (job.tasks.length > cap) {
    ctx.addIssue({ code: 'custom', path: [...path, 'tasks'], message: `a ${job.pattern} takes at most ${cap} tasks (nest jobs for more)` });
  }
  const agg = job.aggregation;
  for (const key of ['quorum', 'minSuccess'] as const) {
    const n = agg?.[key];
    if (n !== undefined && n > job.tasks.length) {
      ctx.addIssue({ code: 'custom', path: [...path, 'aggregation', key], message: `${key} ${n} exceeds the ${job.tasks.length} tasks` });
    }
  }
  if (job.labels && Object.keys(job.labels).length > 32) {
    ctx.addIssue({ code: 'custom', path: [...path, 'labels'], message: 'at most 32 labels' });
  }
}

/** One delegation request: a pattern over subtasks (each may be a nested job), with a job budget. */
export const JobSpecSchema = JobSpecObject.superRefine((job, ctx) => {
  checkJob(job, ctx, []);
  const n = countSubtasks(job);
  if (n > MAX_SUBTASKS_PER_JOB) {
    ctx.addIssue({
      code: 'custom',
      path: ['tasks'],
      message: `${n} subtasks across every level of nesting; a job takes at most ${MAX_SUBTASKS_PER_JOB}`,
    });
  }
}).meta({ id: 'JobSpec' });
export type JobSpec = z.infer<typeof JobSpecSchema>;
