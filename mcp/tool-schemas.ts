/**
 * What a model reads of each tool's input and output: compact schemas, so that `tools/list`
 * stays small in the context of every harness that connects (test/mcp/tool-list.unit.test.ts
 * holds the default tool set under 16 KB). They guide and do not decide: every handler checks its
 * input against the full contract of schemas/ (JobSpecSchema, ResearchSubtaskInputSchema,
 * ScoutRequestSchema) and answers a tool error naming the field, and the full input schemas are
 * in the tools' reference resources (tool-reference.ts).
 *
 *   tools/list ──> compact shape ──(SDK parse: types and defaults)──> handler ──full zod contract──> backend
 *
 * Loose objects let the fields left out of a compact shape through to the full check. Numbers are
 * plain `number`s: zod's int() would list ±2^53 bounds in every one of them.
 */
import { z } from 'zod';
import { AXES } from '../core/budget-axes';
import { AggregationSchema, IdSchema, PipelineOptionsSchema, VoteOptionsSchema } from '../schemas';
import { INBOX_STATES } from '../core/inbox';

/**
 * A tool's input or output schema as listed, without the `$schema` line zod writes at its top (a
 * root `undefined` is dropped from the JSON): 52 bytes a schema, twice a tool, on every connect.
 * MCP reads a schema without one as JSON Schema 2020-12, which reads these (no definitions, no
 * draft-only keywords) as draft-07 does.
 */
export function listed<S extends z.ZodRawShape>(
  schema: S | z.ZodObject<S, z.core.$ZodObjectConfig>,
): z.ZodObject<S, z.core.$ZodObjectConfig> {
  const object = schema instanceof z.ZodObject ? schema : z.object(schema);
  return object.meta({ $schema: undefined });
}

/** An id as IdSchema checks it, listed as a plain string (its pattern is a refusal's business). */
export const idArg = (what: string) =>
  z
    .string()
    .refine((s) => IdSchema.safeParse(s).success, 'not a valid id')
    .describe(what);

/** A job id that a delegate_* tool returned. */
export const JobIdShape = { jobId: idArg('the jobId a delegate_* tool returned') };

/** Caps on the budget axes (core/budget-axes.ts), any subset. */
export const budgetArg = () =>
  z.object(Object.fromEntries(Object.keys(AXES).map((axis) => [axis, z.number().optional()]))).describe('caps, any subset');

/** How long a tool call waits, `dflt` seconds unless told, at most `max`. */
export const waitArg = (dflt: number, max: number) => z.number().min(0).max(max).default(dflt);

/** One subtask of a pattern tool: the fields a task needs, the others of a TaskSpec let through. */
const TaskArg = z.looseObject({
  id: z.string().describe('unique in the job'),
  question: z.string(),
  agent: z.unknown().optional().describe('id, or { capability }'),
  params: z.unknown().optional(),
});

/** The pattern options each pattern tool takes, with the enums of the real schemas. */
const patternOptions = {
  fanout: {
    aggregation: z.object({ strategy: AggregationSchema.shape.strategy.unwrap().optional(), quorum: z.number().optional() }).optional(),
  },
  pipeline: { pipeline: z.object({ onStageFailure: PipelineOptionsSchema.shape.onStageFailure.unwrap().optional() }).optional() },
  vote: {
    vote: z
      .object({ strategy: VoteOptionsSchema.shape.strategy.unwrap().optional(), key: z.string().optional().describe('JSON pointer') })
      .optional(),
  },
} as const;

/** A pattern tool's input: a JobSpec without `pattern`, and how long to wait for its result. */
export const patternInput = (pattern: keyof typeof patternOptions) =>
  z.looseObject({
    jobId: z.string().optional().describe('same id, same job'),
    objective: z.string().optional(),
    tasks: z.array(TaskArg).min(1),
    budget: budgetArg().optional(),
    ...patternOptions[pattern],
    wait: z.boolean().default(true).describe('false: answer the jobId at once'),
    waitSeconds: waitArg(45, 3600),
  });

/** A budget top-up: amounts added to the limits. */
export const topUpArg = () => budgetArg().describe('amounts to add');

/** delegate_research_subtask's input: the contract's fields a subtask needs, the others let through. */
export const researchInput = z.looseObject({
  id: z.string(),
  parent_id: z.string().nullable().optional(),
  question: z.string(),
  scope: z.array(z.string()).optional().describe('channels or tools'),
  budget: z.looseObject({ latency_seconds: z.number(), cost_usd: z.number(), tool_calls: z.number() }),
  context_seed: z.array(z.unknown()).optional().describe('evidence you hold'),
  stop_conditions: z.array(z.string()).optional(),
  waitSeconds: waitArg(45, 3600),
});

/** A scout request (delegate_scout, scout_prep): the fields of ScoutRequestSchema, checked there. */
export const scoutRequestShape = {
  question: z.string(),
  scopePaths: z.array(z.string()).min(1).describe('relative to the scout root'),
  parentAgent: z.string(),
  parentSessionId: z.string(),
  featureSlug: z.string().nullable().optional(),
  parentSessionExcerpt: z.string().describe('why you ask: 50–1000 characters'),
};

/** job_replay's input: the source job, the overrides, and how long to wait for the comparison. */
export const replayInput = {
  jobId: idArg('the finished job to replay'),
  agent: z.string().optional().describe('agent id for every replayed task'),
  model: z.string().optional(),
  tasks: z.array(z.string()).optional().describe('task ids (default all)'),
  replayId: z.string().optional().describe('the replay job id: again to wait for it'),
  waitSeconds: waitArg(45, 3600),
};

/** delegate_approvals' filters. */
export const approvalsInput = {
  jobId: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  state: z.enum(INBOX_STATES).optional().describe('default pending'),
};

/** An object answer with these members named, and any others; nested values are named, not typed (the reference shows them). */
const answer = (shape: z.ZodRawShape) => listed(z.looseObject(shape));
const str = z.string();
const opt = z.string().optional();
const any = z.unknown().optional();

/**
 * The answers' output schemas: what every answer of a tool holds, whichever way it ended (done,
 * still running), so that `structuredContent` always validates.
 */
export const OUTPUT = {
  /** A job tool's answer: the result once done, else its state and progress. */
  job: answer({ jobId: str, status: opt, state: opt, result: any }),
  view: answer({ jobId: str, state: str, progress: any }),
  control: answer({ jobId: str, state: str }),
  ledger: answer({ jobId: str, ledger: any }),
  agents: answer({ agents: z.array(any) }),
  research: answer({ id: str, status: str, summary: any }),
  /** A scout's report once settled (findings …), else the scout's id and state. */
  scout: answer({ status: opt, state: opt, findings: any }),
  prep: answer({ id: str, prompt: str }),
  outcome: answer({ valid: z.boolean(), committed: z.boolean(), report: any }),
  items: answer({ items: z.array(any) }),
  item: answer({ id: str, state: str }),
  /** A role task's answer: its status and checked output once done, else its state and progress. */
  role: answer({ jobId: str, status: opt, state: opt, output: any }),
  /** A replay's answer: the comparison once the replay is done, else its id and state. */
  replay: answer({ jobId: str, replayOf: str, state: opt, totals: any, subtasks: any }),
} as const;
