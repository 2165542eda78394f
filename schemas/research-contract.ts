/**
 * The research-subtask contract, field by field as harnesses send it (snake_case): its input,
 * its output, and Delegate's documented extensions (`agent` with `params`, the Delegator
 * fields, `output_schema`; a `delegate` block on the output). Every object is strict: an
 * unknown key is refused with its path. Mapping to Delegate's TaskSpec/TaskResult is in
 * research-mapping.ts, and only there.
 *
 *   harness ──ResearchSubtaskInput──> research-mapping ──TaskSpec──> subtask loop
 *   harness <──ResearchSubtaskOutput── research-mapping <──TaskResult──┘
 */
import { z } from 'zod';
import { AXES, type BudgetAxis } from '../core/budget-axes';
import { AgentRefSchema, IdSchema, LabelValueSchema } from './task-refs';
import { OutputSchemaSchema } from './output-schema';
import { parseStopConditions } from '../core/stop-conditions';

/** The contract's budget keys and the Delegate axis each one is. */
export const CONTRACT_AXES = {
  cost_usd: 'costUsd',
  tokens: 'tokens',
  tool_calls: 'toolCalls',
  latency_seconds: 'latencySeconds',
} as const satisfies Record<string, BudgetAxis>;
/** A budget key of the contract. */
export type ContractAxis = keyof typeof CONTRACT_AXES;

const Str = (max: number) => z.string().max(max);
const StringList = z.array(Str(4000)).max(100);

/** The contract's budget: the three axes it names are required ("the budget governs"); `tokens` is a Delegate extension. */
export const ResearchBudgetSchema = z
  .strictObject({
    latency_seconds: z.number().int().positive().max(AXES.latencySeconds.max).describe('wall-clock allowance of the whole subtask'),
    cost_usd: z.number().finite().nonnegative().max(AXES.costUsd.max).describe('money allowance, US dollars'),
    tool_calls: z.number().int().nonnegative().max(AXES.toolCalls.max).describe('maximum total tool invocations'),
    tokens: z.number().int().nonnegative().max(AXES.tokens.max).optional().describe('Delegate extension: a token cap'),
  })
  .meta({ id: 'ResearchBudget' });
export type ResearchBudget = z.infer<typeof ResearchBudgetSchema>;

/** One slim evidence item as the contract returns it; every key present, null where unknown. */
export const ResearchEvidenceSchema = z
  .strictObject({
    url: Str(4096).nullable().describe('null when the agent gave none (the item is kept: nothing found is lost)'),
    title: Str(1024).nullable(),
    snippet: Str(20_000),
    source: z.string().min(1).max(256).describe('the channel it came from, e.g. "web"'),
    fetched_at: z.iso.datetime({ offset: true }).nullable().describe('when it was fetched, or when the host received it'),
    score: z.number().finite().nullable(),
  })
  .meta({ id: 'ResearchEvidence' });
export type ResearchEvidence = z.infer<typeof ResearchEvidenceSchema>;

/**
 * An item of `context_seed`: the same slim shape, with all but `snippet` optional. The contract
 * types the seed as `list[dict]`, so a plain `{url, title, snippet}` is an item: a missing
 * `source` reads as "web" when it has a url, "context" otherwise (research-mapping.ts).
 */
export const ResearchSeedItemSchema = ResearchEvidenceSchema.partial({ url: true, title: true, fetched_at: true, score: true })
  .extend({
    source: ResearchEvidenceSchema.shape.source
      .optional()
      .describe('the channel it came from; absent: "web" with a url, "context" without'),
  })
  .meta({ id: 'ResearchSeedItem' });
export type ResearchSeedItem = z.infer<typeof ResearchSeedItemSchema>;

/** The contract's input object, before its cross-field rules (`checkResearchInput`). */
export const ResearchInputObject = z.strictObject({
  id: IdSchema.describe('stable id such as "sub_1"; echoed in the output'),
  parent_id: LabelValueSchema.min(1)
    .nullable()
    .default(null)
    .describe("the planner output this subtask came from; kept as the job label `parent_id` (so its characters are a label value's)"),
  question: z.string().trim().min(1).max(50_000),
  rationale: Str(10_000).optional(),
  scope: z.array(z.string().min(1).max(128)).max(100).optional().describe('channels or tools it may touch; routing reads them'),
  budget: ResearchBudgetSchema,
  context_seed: z.array(ResearchSeedItemSchema).max(1000).default([]).describe('evidence the parent holds: read, never re-fetched'),
  stop_conditions: StringList.default([]).describe(
    '"budget exhausted", "confidence >= 0.8", "evidence >= 5", "answer matches schema", or free text',
  ),
  // Delegator harness fields
  constraints: StringList.optional(),
  priority: z.number().int().min(1).max(1000).default(1),
  output_format: z.enum(['json', 'text', 'structured']).optional(),
  timeout_seconds: z
    .number()
    .finite()
    .positive()
    .max(86_400)
    .optional()
    .describe('per-attempt limit of one step (the whole subtask: budget.latency_seconds)'),
  retry_limit: z
    .number()
    .int()
    .min(0)
    .max(99)
    .optional()
    .describe("retries of a failed step after the first attempt (absent: the agent's own policy)"),
  // Delegate extensions
  agent: AgentRefSchema.optional().describe('Delegate extension: the agent; absent, routing picks one from scope and question'),
  params: z.record(z.string(), z.unknown()).optional().describe('Delegate extension: agent input, validated against its manifest'),
  output_schema: OutputSchemaSchema.optional().describe('Delegate extension: JSON Schema of the answer; "answer matches schema" checks it'),
});

/** The contract's cross-field rules: stop conditions parse; a schema condition has a schema; params go to a named agent. */
export function checkResearchInput(input: z.output<typeof ResearchInputObject>, ctx: z.RefinementCtx): void {
  const { conditions, issues } = parseStopConditions(input.stop_conditions);
  for (const i of issues) ctx.addIssue({ code: 'custom', path: ['stop_conditions', i.index], message: i.message });
  if (issues.length === 0) {
    conditions.forEach((c, index) => {
      if (c.kind === 'schema_match' && input.output_schema === undefined) {
        ctx.addIssue({ code: 'custom', path: ['stop_conditions', index], message: '"answer matches schema" needs an output_schema' });
      }
    });
  }
  if (input.output_format === 'structured' && input.output_schema === undefined) {
    ctx.addIssue({ code: 'custom', path: ['output_schema'], message: 'output_format "structured" needs an output_schema' });
  }
  if (input.params !== undefined && input.agent === undefined) {
    ctx.addIssue({ code: 'custom', path: ['params'], message: 'params go to a named agent: set agent too' });
  }
}

/** The contract's input, with its cross-field rules. */
// no component id: a shared component is written in its output form, where defaulted fields are required
export const ResearchSubtaskInputSchema = ResearchInputObject.superRefine(checkResearchInput);
/** The input as parsed (defaults filled). */
export type ResearchSubtaskInput = z.output<typeof ResearchSubtaskInputSchema>;
/** The input as a harness writes it (defaults optional). */
export type ResearchSubtaskRequest = z.input<typeof ResearchSubtaskInputSchema>;

/** The contract's failure vocabulary: Delegate's reasons, `circuit_open` shown as `agent_unavailable`. */
export const ResearchFailureReasonSchema = z.enum([
  'budget_exhausted',
  'timeout',
  'agent_error',
  'agent_unavailable',
  'invalid_output',
  'tool_denied',
  'no_agent',
  'depth_exceeded',
  'cancelled',
  'stopped',
  'skipped',
]);
export type ResearchFailureReason = z.infer<typeof ResearchFailureReasonSchema>;

/** What the subtask really cost. */
export const ResearchMetricsSchema = z.strictObject({
  latency_ms: z.number().nonnegative(),
  cost_usd: z.number().nonnegative(),
  tool_calls: z.number().int().nonnegative(),
  channels_hit: z.array(z.string()),
  input_tokens: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe('Delegate extension: input tokens, cached ones included (absent: no split reported)'),
  output_tokens: z.number().int().nonnegative().optional().describe('Delegate extension: output tokens (absent: no split reported)'),
  cached_input_tokens: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe('Delegate extension: the part of input_tokens read from the provider cache'),
});

/** Delegate's extension block: where the host's counts and notes go, the contract's own fields staying as written. */
export const ResearchDelegateBlockSchema = z
  .strictObject({
    parent_id: z.string().nullable().describe("the input's parent_id, echoed"),
    job_id: z.string().optional().describe('the Delegate job that ran it: GET /v1/jobs/{job_id}'),
    agent_id: z.string(),
    confidence: z.number().min(0).max(1),
    tokens: z.number().nonnegative(),
    stopped_by: z.string().nullable().describe('the stop condition that ended it, as written; null when none did'),
    dropped: z.strictObject({
      citations: z.number().int().nonnegative().describe('citations matching no evidence url (nor seed url, nor evidence id)'),
      seed_duplicates: z.number().int().nonnegative().describe('returned evidence already in context_seed'),
    }),
    data: z.unknown().optional().describe('the structured answer, when the task asked for one'),
    notes: z.array(z.string()).describe('what the host changed: a trimmed summary, shortened snippets, errors'),
  })
  .meta({ id: 'ResearchDelegateBlock' });
export type ResearchDelegateBlock = z.infer<typeof ResearchDelegateBlockSchema>;

/** The contract's output. */
export const ResearchSubtaskOutputSchema = z
  .strictObject({
    id: z.string(),
    status: z.enum(['success', 'partial', 'failure']),
    summary: z.string(),
    evidence: z.array(ResearchEvidenceSchema),
    citations: z.array(z.string()).describe('URLs, each matching an evidence item (or a context_seed item)'),
    follow_ups: z.array(z.string()),
    metrics: ResearchMetricsSchema,
    failure_reason: ResearchFailureReasonSchema.nullable(),
    delegate: ResearchDelegateBlockSchema,
  })
  .meta({ id: 'ResearchSubtaskOutput' });
export type ResearchSubtaskOutput = z.infer<typeof ResearchSubtaskOutputSchema>;

/**
 * What a TaskSpec keeps of a contract input that has no TaskSpec field: the subtask loop
 * applies the contract's rules (summary sentences) and maps its result back with it.
 */
export const ResearchMarkerSchema = z
  .strictObject({
    parentId: z.string().max(256).nullable().describe("the input's parent_id"),
    priority: z.number().int().min(1).max(1000).optional(),
    outputFormat: z.enum(['json', 'text', 'structured']).optional(),
  })
  .meta({ id: 'ResearchMarker' });
export type ResearchMarker = z.infer<typeof ResearchMarkerSchema>;
