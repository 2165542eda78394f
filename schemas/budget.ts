import { z } from 'zod';

/** Caps on one subtask's or one job's spend; any subset of axes, an absent axis is unlimited. */
export const BudgetSchema = z
  .strictObject({
    costUsd: z.number().finite().nonnegative().max(1e9).optional().describe('US dollars'),
    tokens: z.number().int().nonnegative().max(1e12).optional(),
    toolCalls: z.number().int().nonnegative().max(1e9).optional(),
    latencySeconds: z.number().finite().positive().max(31_536_000).optional().describe('wall clock of the whole subtask'),
  })
  .meta({ id: 'Budget' });
export type Budget = z.infer<typeof BudgetSchema>;

/** The budget axes, in the order they are reported. */
export const BUDGET_AXES = ['costUsd', 'tokens', 'toolCalls', 'latencySeconds'] as const;
export type BudgetAxis = (typeof BUDGET_AXES)[number];

/** What one step or one subtask spent on the axes that accumulate (latency is wall clock). */
export const UsageSchema = z.strictObject({
  costUsd: z.number().finite().nonnegative(),
  tokens: z.number().int().nonnegative(),
  toolCalls: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof UsageSchema>;

/** A budget top-up: amounts to add to the current limits, each strictly positive. */
export const BudgetTopUpSchema = z
  .strictObject({
    add: z
      .strictObject({
        costUsd: z.number().finite().positive().max(1e9).optional(),
        tokens: z.number().int().positive().max(1e12).optional(),
        toolCalls: z.number().int().positive().max(1e9).optional(),
        latencySeconds: z.number().finite().positive().max(31_536_000).optional(),
      })
      .refine((b) => Object.keys(b).length > 0, { message: 'add at least one budget axis' }),
  })
  .meta({ id: 'BudgetTopUp' });
export type BudgetTopUp = z.infer<typeof BudgetTopUpSchema>;

/** One axis of a ledger as reported: limit (null = unlimited), spent, reserved, remaining. */
export const LedgerAxisSchema = z.object({
  limit: z.number().nullable(),
  spent: z.number(),
  reserved: z.number(),
  remaining: z.number().nullable(),
});
/** A ledger snapshot across all axes. */
export const LedgerSchema = z
  .object({
    costUsd: LedgerAxisSchema,
    tokens: LedgerAxisSchema,
    toolCalls: LedgerAxisSchema,
    latencySeconds: LedgerAxisSchema,
  })
  .meta({ id: 'Ledger' });
export type Ledger = z.infer<typeof LedgerSchema>;
export type LedgerAxis = z.infer<typeof LedgerAxisSchema>;
