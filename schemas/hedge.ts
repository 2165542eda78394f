import { z } from 'zod';

/**
 * Hedged steps of an idempotent task: a step still running past its agent's measured latency
 * quantile `afterP` starts a second, identical step on the same agent (or on `agent`); the first
 * valid answer wins, the other is cancelled, both are booked. Setting it says the task may run
 * twice at once.
 */
export const HedgeSchema = z
  .strictObject({
    afterP: z
      .number()
      .min(0.5)
      .max(0.999)
      .optional()
      .describe("hedge a step still running past this quantile of the agent's measured step latency (the record's; default 0.9)"),
    maxExtraCost: z
      .number()
      .finite()
      .min(0)
      .max(1_000_000)
      .describe("USD: hedges stop once their extra spend would pass this (or the task's budget)"),
    afterMs: z
      .number()
      .int()
      .min(1)
      .max(86_400_000)
      .optional()
      .describe('the delay while the record holds fewer than 5 finished tasks of the agent; absent: no hedge until it does'),
    agent: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .describe(
        "hedge on this agent (one of the task's fallbacks, say) instead of the same one: a step its agent starts afresh (the first); when its answer wins, the task goes on with it",
      ),
  })
  .meta({ id: 'Hedge' });
export type Hedge = z.infer<typeof HedgeSchema>;
