import { z } from 'zod';
import { DEFAULT_DOWNSHIFT_THRESHOLD } from '../core/downshift-threshold';

/** The most agents a ladder names. */
export const MAX_LADDER = 8;

/**
 * Down-shift with a quality floor (docs/guides/spend.md): once `threshold` of a budget is spent on
 * any capped axis, the remaining steps (a task's) or the tasks not yet started (a job's) go to the
 * cheapest agent of the ladder whose measured quality stays at or above `qualityFloor`.
 */
export const DownshiftSchema = z
  .strictObject({
    ladder: z
      .array(z.string().min(1).max(128))
      .min(2)
      .max(MAX_LADDER)
      .optional()
      .describe('agent ids, priciest first: a task steps down the ladder from its agent, never up'),
    capability: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .describe("instead of a ladder: the capability's agents, ranked by their measured spend per subtask"),
    threshold: z
      .number()
      .gt(0)
      .lt(1)
      .optional()
      .describe(
        `share of the budget (any capped axis) spent before the rest goes down the ladder (default ${DEFAULT_DOWNSHIFT_THRESHOLD})`,
      ),
    qualityFloor: z
      .number()
      .min(0)
      .max(1)
      .describe(
        "the lowest measured quality a cheaper agent may have (its smoothed success rate in the tenant's record, 0..1): never below it",
      ),
  })
  .refine((d) => (d.ladder === undefined) !== (d.capability === undefined), {
    message: 'name a ladder or a capability, one of them',
  })
  .meta({ id: 'Downshift' });
export type Downshift = z.infer<typeof DownshiftSchema>;
