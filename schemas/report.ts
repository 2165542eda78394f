import { z } from 'zod';
import { JobOutcomeSchema } from './result';
import { PatternSchema } from './job';

/** What a job spent, summed over its subtasks. */
const SpendSchema = z.object({ costUsd: z.number(), tokens: z.number(), toolCalls: z.number() });

/** One archived job as a search of the record finds it. */
export const ReportSchema = z
  .object({
    jobId: z.string(),
    workflowId: z.string(),
    pattern: PatternSchema,
    status: JobOutcomeSchema,
    labels: z.record(z.string(), z.string()),
    objective: z.string().optional(),
    startedAt: z.string(),
    closedAt: z.string(),
    subtasks: z.number(),
    agents: z.array(z.string()).describe('agents that ran its subtasks'),
    spend: SpendSchema,
    digest: z.string().describe('its first subtask summaries, shortened'),
  })
  .meta({ id: 'Report' });
export type Report = z.infer<typeof ReportSchema>;

/** A page of search hits, newest finish first. */
export const ReportPageSchema = z
  .object({
    reports: z.array(ReportSchema),
    nextPageToken: z.string().nullable().describe('pass as `nextPageToken` for the next page; null on the last'),
    nextCursor: z.string().nullable().describe('deprecated: the same as `nextPageToken`'),
  })
  .meta({ id: 'ReportPage' });

/** Counts and spend of a tenant's jobs finished in a period. */
export const ReportSummarySchema = z
  .object({
    from: z.string(),
    to: z.string(),
    jobs: z.number(),
    subtasks: z.number(),
    spend: SpendSchema,
    byStatus: z.array(z.object({ status: JobOutcomeSchema, jobs: z.number(), costUsd: z.number() })),
    byAgent: z.array(
      z.object({
        agentId: z.string(),
        subtasks: z.number(),
        costUsd: z.number(),
        tokens: z.number(),
        cacheHitRate: z
          .number()
          .nullable()
          .describe("the share of its input tokens read from the provider's prompt cache; null: no input tokens reported"),
      }),
    ),
    byRole: z
      .array(
        z.object({
          role: z.string(),
          subtasks: z.number(),
          inputTokens: z.number(),
          cachedInputTokens: z.number(),
          cacheHitRate: z.number().nullable().describe('cachedInputTokens / inputTokens; null: no input tokens reported'),
        }),
      )
      .describe("role tasks' prompt-cache reads per role (a role's prefix is the same bytes for every task)"),
    topLabels: z.array(z.object({ label: z.string().describe('key=value'), jobs: z.number() })),
    scouts: z
      .object({
        dispatched: z.number(),
        committed: z.number(),
        perSession: z.array(z.object({ parentSessionId: z.string(), parentAgent: z.string(), count: z.number() })),
        topTopics: z.array(z.object({ topic: z.string(), count: z.number() })),
        line: z.string().describe('"scouts dispatched: N (top topics a, b, c)", for a parent\'s memory'),
      })
      .optional()
      .describe('code scouts dispatched in the period'),
  })
  .meta({ id: 'ReportSummary' });
export type ReportSummary = z.infer<typeof ReportSummarySchema>;
