import { z } from 'zod';

/** The longest a cached result is served: 30 days. */
export const RESULT_CACHE_MAX_TTL_SECONDS = 30 * 86_400;

/**
 * The identical-subtask cache of a task or a job (opt-in): a subtask whose agent (id and version),
 * question, params, context, output schema and model match one that succeeded within the TTL, for
 * the same tenant, returns that result at once, booked at $0 with `metrics.cached`.
 */
export const ResultCacheSchema = z
  .strictObject({
    ttlSeconds: z
      .number()
      .int()
      .min(1)
      .max(RESULT_CACHE_MAX_TTL_SECONDS)
      .describe('how long a successful result is served to identical subtasks (at most 30 days)'),
    scope: z.literal('tenant').default('tenant').describe("who shares the cached results: the tenant's own jobs (never another tenant)"),
  })
  .meta({ id: 'ResultCache' });
export type ResultCache = z.infer<typeof ResultCacheSchema>;
