/**
 * The small parts a task is built from (ids, labels, agent references, the retry policy),
 * apart from job.ts so that the contracts job.ts accepts (research-contract.ts) can use them
 * without an import cycle.
 */
import { z } from 'zod';

/** Ids that end up inside Temporal workflow ids: no slashes, no spaces. */
export const IdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/, 'letters, digits, "_", ".", ":" or "-", at most 128, starting with a letter or digit');

/** Label keys: letters, digits, "_", ".", "-", at most 64. */
export const LabelKeySchema = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'label keys: letters, digits, "_", ".", "-", at most 64');
/** Label values: letters, digits, space and `_ . : / @ + -`, at most 256 (they end up in visibility queries). */
export const LabelValueSchema = z
  .string()
  .regex(/^[A-Za-z0-9 _.:/@+-]{0,256}$/, 'label values: letters, digits, space and "_.:/@+-", at most 256');

/** Who works on a subtask: an agent id, any agent with a capability, or semantic routing. */
export const AgentRefSchema = z.union([
  z.string().min(1).max(128),
  z.strictObject({
    capability: z.string().min(1).max(128),
    routing: z
      .enum(['load', 'adaptive'])
      .optional()
      .describe(
        'among several agents: the least loaded (default), or adaptive: the measured best (success, cost, latency) by Thompson sampling',
      ),
    weights: z
      .strictObject({
        success: z.number().min(0).max(100).optional(),
        cost: z.number().min(0).max(100).optional(),
        latency: z.number().min(0).max(100).optional(),
      })
      .optional()
      .describe('adaptive routing: how much each measure counts (default success 1, cost 0.5, latency 0.25)'),
  }),
  z.strictObject({ route: z.literal('semantic'), hint: z.string().max(2000).optional() }),
]);
export type AgentRef = z.infer<typeof AgentRefSchema>;

/** Retry policy of one agent step. */
export const RetrySchema = z
  .strictObject({
    maxAttempts: z.number().int().min(1).max(100).default(3),
    initialIntervalSeconds: z.number().finite().positive().max(3600).default(1),
    backoffCoefficient: z.number().finite().min(1).max(10).default(2),
    maximumIntervalSeconds: z.number().finite().positive().max(86_400).default(30),
  })
  .meta({ id: 'Retry' });
export type Retry = z.infer<typeof RetrySchema>;
