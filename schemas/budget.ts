import { z } from 'zod';
import { budgetShape, tokenSplitShape, topUpShape, usageShape } from './budget-axes';
import { perAxis } from '../core/budget-axes';

export { BUDGET_AXES, SPEND_AXES, type BudgetAxis, type SpendAxis } from '../core/budget-axes';

/** Caps on one subtask's or one job's spend; any subset of axes, an absent axis is unlimited. */
export const BudgetSchema = z.strictObject(budgetShape()).meta({ id: 'Budget' });
export type Budget = z.infer<typeof BudgetSchema>;

/** What one step or one subtask spent on the axes that accumulate (latency is wall clock), and the token split where one was reported. */
export const UsageSchema = z.strictObject({ ...usageShape(false), ...tokenSplitShape() });
export type Usage = z.infer<typeof UsageSchema>;

/** A budget top-up: amounts to add to the current limits, each strictly positive. */
export const BudgetTopUpSchema = z
  .strictObject({
    add: z.strictObject(topUpShape()).refine((b) => Object.keys(b).length > 0, { message: 'add at least one budget axis' }),
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
export const LedgerSchema = z.object(perAxis(() => LedgerAxisSchema)).meta({ id: 'Ledger' });
export type Ledger = z.infer<typeof LedgerSchema>;
export type LedgerAxis = z.infer<typeof LedgerAxisSchema>;
