/**
 * Providers: what several agents may share and what throttles them (one key, one account, its
 * limits). An agent names a `providers` entry of the agents file, or declares `limits` of its
 * own; either way its steps run on the provider's own activity task queue, which the server
 * paces for every worker, job and tenant at once (activities/provider-gate.ts, docs/guides/llm-agents.md).
 *
 *   agents.json  { "providers": [{ "id": "openai-main", "limits": { "requestsPerMinute": 1200 } }],
 *                  "agents": [{ "id": "writer", "kind": "llm", "account": "openai-main", ... }] }
 *   steps of writer ──> <queue>-provider-openai-main  (server rate limit 20/s, fairness key = tenant)
 */
import { z } from 'zod';

/** Most requests a minute a provider may declare: past it, a typo (an extra zero or three) is more likely than a real limit. */
export const MAX_REQUESTS_PER_MINUTE = 1_000_000;

/** Most tokens a minute a provider may declare. */
export const MAX_TOKENS_PER_MINUTE = 1_000_000_000;

/** Most concurrent requests a provider may declare (per worker: the provider queue's slots). */
export const MAX_PROVIDER_CONCURRENT = 10_000;

/** A provider's id: like an agent id (it ends up in a task queue name). */
export const ProviderIdSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/,
    'a provider id: letters, digits, "_", "." or "-", at most 64, starting with a letter or digit',
  );

/** What a provider allows: any subset, at least one. */
export const ProviderLimitsSchema = z
  .strictObject({
    requestsPerMinute: z
      .number()
      .positive()
      .max(MAX_REQUESTS_PER_MINUTE)
      .optional()
      .describe("requests a minute across every worker, job and tenant: the provider queue's rate limit, enforced by the Temporal server"),
    tokensPerMinute: z
      .int()
      .positive()
      .max(MAX_TOKENS_PER_MINUTE)
      .optional()
      .describe(
        "tokens (input + output) a minute: each step reserves its expected tokens before its call and settles with the provider's usage",
      ),
    concurrent: z
      .int()
      .positive()
      .max(MAX_PROVIDER_CONCURRENT)
      .optional()
      .describe("requests in flight at once per worker process (the provider queue's slots)"),
  })
  .refine((l) => l.requestsPerMinute !== undefined || l.tokensPerMinute !== undefined || l.concurrent !== undefined, {
    error: 'declare at least one of requestsPerMinute, tokensPerMinute, concurrent',
  })
  .meta({ id: 'ProviderLimits' });
export type ProviderLimits = z.infer<typeof ProviderLimitsSchema>;

/** A `providers` entry of the agents file: limits that the agents naming it share. */
export const ProviderConfigSchema = z
  .strictObject({
    id: ProviderIdSchema,
    description: z.string().default(''),
    limits: ProviderLimitsSchema,
  })
  .meta({ id: 'ProviderConfig' });
export type ProviderConfig = z.infer<typeof ProviderConfigSchema>;

/** The fields an agent config adds to name or declare its provider (an LLM agent's `provider` is its wire format, hence `account`). */
export const agentProviderFields = {
  account: ProviderIdSchema.optional().describe(
    "the `providers` entry whose limits this agent shares (same key, same account): its steps run on that provider's queue, paced for every worker",
  ),
  limits: ProviderLimitsSchema.optional().describe("this agent's own provider limits (a provider of its own, named after the agent)"),
};
