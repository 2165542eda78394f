/**
 * Forecasts and admission control: what `POST /v1/jobs/estimate` answers, what a job's
 * `admission` asks for, and the decision a submission reports (see core/forecast.ts).
 */
import { z } from 'zod';

/** How a job that its budget is unlikely to cover is admitted. */
export const AdmissionModeSchema = z.enum(['refuse', 'warn', 'replan']);
export type AdmissionMode = z.infer<typeof AdmissionModeSchema>;

/** A job's admission control: checked against the forecast before the job starts. */
export const AdmissionSchema = z
  .strictObject({
    mode: AdmissionModeSchema.describe(
      'refuse: 422 with the forecast; warn: start and say so; replan: fit the plan to the budget (fewer voters, lower maxParallel, a cheaper capable agent) before it starts',
    ),
    confidence: z.number().min(0.5).max(0.999).default(0.9).describe('the probability the budget must suffice with (default 0.9)'),
  })
  .meta({ id: 'Admission' });
export type Admission = z.infer<typeof AdmissionSchema>;

const Quantiles = z.object({ p50: z.number().nullable(), p90: z.number().nullable() });

/** The predicted spend and duration of one task or job. */
export const PredictedSchema = z.object({
  costUsd: Quantiles,
  tokens: Quantiles,
  toolCalls: Quantiles,
  steps: Quantiles,
  latencySeconds: Quantiles.describe('duration: wall clock of the task, or of the job as its pattern composes them'),
});

/** The forecast of one task or (nested) job. */
export const NodeForecastSchema = z
  .object({
    id: z.string(),
    kind: z.enum(['task', 'job']),
    agent: z.string().optional(),
    runs: z.number().int().describe("past runs it rests on: a task's own, a job's fewest of any of its tasks"),
    history: z.boolean().describe('false: no history, the figures are the manifest limits and the task budget'),
    basis: z.string().describe('what the history is, or why there is none'),
    successRate: z.number().optional(),
    cachedFrom: z
      .string()
      .optional()
      .describe("a task the result cache would serve (its spec's `cache`): the job its result comes from, at $0"),
    predicted: PredictedSchema,
    budgetSuffices: z.number().nullable().optional().describe('probability its own budget holds (when it has one)'),
    get children(): z.ZodOptional<z.ZodArray<typeof NodeForecastSchema>> {
      return z.array(NodeForecastSchema).optional();
    },
  })
  .meta({ id: 'NodeForecast' });
export type NodeForecastView = z.infer<typeof NodeForecastSchema>;

/** What an estimate answers. */
export const EstimateSchema = z
  .object({
    job: NodeForecastSchema,
    budgetSuffices: z
      .number()
      .nullable()
      .describe("probability that the job's budget (and every nested job's and task's own) suffices; null when it cannot be told"),
    byAxis: z.record(z.string(), z.number().nullable()).describe("per axis of the job's budget: the probability it holds"),
    notes: z.array(z.string()),
    samples: z.number().int(),
    windowDays: z.number().int(),
  })
  .meta({ id: 'Estimate' });
export type Estimate = z.infer<typeof EstimateSchema>;

/** What admission control decided for a job. */
export const AdmissionDecisionSchema = z
  .object({
    mode: AdmissionModeSchema,
    confidence: z.number(),
    decision: z.enum(['admitted', 'refused', 'warned', 'replanned']),
    budgetSuffices: z.number().nullable().describe('the forecast probability (after re-planning, for replanned)'),
    message: z.string(),
    changes: z.array(z.string()).describe('replan: what was changed, in order'),
  })
  .meta({ id: 'AdmissionDecision' });
export type AdmissionDecision = z.infer<typeof AdmissionDecisionSchema>;
