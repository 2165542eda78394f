/**
 * The zod shapes of the budget axes (budgets, top-ups, usage, metrics), built from the one
 * axis table in core/budget-axes.ts, so an axis is added there.
 */
import { z } from 'zod';
import { AXES, BUDGET_AXES, shapeOf, SPEND_AXES, type AxisRow, type BudgetAxis } from '../core/budget-axes';
import { TOKEN_SPLIT_KEYS, type TokenSplitKey } from '../core/token-split';

/** A budget number of one axis, before `.optional()`. */
function amount(axis: BudgetAxis, positive: boolean): z.ZodNumber {
  const row: AxisRow = AXES[axis];
  let n = row.kind === 'integer' ? z.number().int() : z.number().finite();
  n = positive || row.kind === 'wallClock' ? n.positive() : n.nonnegative();
  return n.max(row.max);
}

/** A budget's shape: each axis optional (absent = unlimited), described as the table says. */
export function budgetShape() {
  return shapeOf(BUDGET_AXES, (a) => {
    const d: string | undefined = (AXES[a] as AxisRow).description;
    const o = amount(a, false).optional();
    return d === undefined ? o : o.describe(d);
  });
}

/** A top-up's shape: each axis optional and strictly positive. */
export function topUpShape() {
  return shapeOf(BUDGET_AXES, (a) => amount(a, true).optional());
}

/** A usage's shape: every accumulating axis, non-negative (optional where an agent may leave one out). */
export function usageShape<O extends boolean>(optional: O) {
  return shapeOf(SPEND_AXES, (a) => {
    const n = AXES[a].kind === 'integer' ? z.number().int().nonnegative() : z.number().finite().nonnegative();
    return (optional ? n.optional() : n) as O extends true ? z.ZodOptional<z.ZodNumber> : z.ZodNumber;
  });
}

/** Plain numbers for every accumulating axis (metrics as reported). */
export function metricsShape() {
  return shapeOf(SPEND_AXES, () => z.number());
}

/** What each field of the token split counts. */
const TOKEN_SPLIT_DESCRIPTIONS: Record<TokenSplitKey, string> = {
  inputTokens: 'input tokens, cached ones included (absent: the agent reports no split)',
  outputTokens: 'output tokens (absent: the agent reports no split)',
  cachedInputTokens: 'the part of inputTokens read from the provider cache',
};

/** The token split beside `tokens` (core/token-split.ts): each field optional, absent when the agent reports no split. */
export function tokenSplitShape() {
  return Object.fromEntries(
    TOKEN_SPLIT_KEYS.map((k) => [k, z.number().int().nonnegative().optional().describe(TOKEN_SPLIT_DESCRIPTIONS[k])]),
  ) as { [K in TokenSplitKey]: z.ZodOptional<z.ZodNumber> };
}
