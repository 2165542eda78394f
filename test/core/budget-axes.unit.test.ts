import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  BudgetSchema,
  BudgetTopUpSchema,
  LedgerSchema,
  StepReplySchema,
  TaskMetricsSchema,
  UsageSchema,
  type Budget,
  type Usage,
} from '../../schemas';
import { AXES, BUDGET_AXES, SPEND_AXES } from '../../core/budget-axes';
import { TOKEN_SPLIT_KEYS } from '../../core/token-split';
import { validateTopUp } from '../../workflows/job/budget';

/** Property names of an object schema, in order. */
const props = (s: z.ZodObject) => Object.keys(s.shape);

describe('budget axis table', () => {
  it('lists every axis once, spend axes being the accumulating ones', () => {
    expect(BUDGET_AXES).toEqual(Object.keys(AXES));
    expect(SPEND_AXES).toEqual(BUDGET_AXES.filter((a) => AXES[a].accumulates));
    expect(SPEND_AXES).not.toContain('latencySeconds');
  });

  it('drives the Budget, top-up, usage, ledger, metrics and agent-reply schemas', () => {
    expect(props(BudgetSchema)).toEqual(BUDGET_AXES);
    expect(props(BudgetTopUpSchema.shape.add)).toEqual(BUDGET_AXES);
    expect(props(LedgerSchema)).toEqual(BUDGET_AXES);
    // beside the axes, the optional token split (core/token-split.ts)
    expect(props(UsageSchema)).toEqual([...SPEND_AXES, ...TOKEN_SPLIT_KEYS]);
    expect(props(TaskMetricsSchema)).toEqual([
      'latencyMs',
      ...SPEND_AXES,
      ...TOKEN_SPLIT_KEYS,
      'steps',
      'attempts',
      'hedges',
      'hedgeCostUsd',
      'channelsHit',
      'throttledMs',
      'cached',
      'cachedFrom',
    ]);
    expect(props(StepReplySchema.shape.usage.unwrap())).toEqual([...SPEND_AXES, ...TOKEN_SPLIT_KEYS]);
  });

  it("keeps each row's rules: integers, positivity of top-ups and wall clock, the max", () => {
    for (const axis of BUDGET_AXES) {
      const row = AXES[axis];
      expect(BudgetSchema.safeParse({ [axis]: row.max }).success).toBe(true);
      expect(BudgetSchema.safeParse({ [axis]: row.max * 2 }).success).toBe(false);
      expect(BudgetSchema.safeParse({ [axis]: 1.5 }).success).toBe(row.kind !== 'integer');
      expect(BudgetSchema.safeParse({ [axis]: 0 }).success).toBe(row.kind !== 'wallClock');
      expect(BudgetTopUpSchema.safeParse({ add: { [axis]: 0 } }).success).toBe(false);
      if (row.kind === 'integer') expect(() => validateTopUp({ [axis]: 1.5 })).toThrow(/integer/);
      else expect(() => validateTopUp({ [axis]: 1.5 })).not.toThrow();
    }
  });

  it('keeps precise TypeScript types', () => {
    expectTypeOf<Budget>().toEqualTypeOf<{ costUsd?: number; tokens?: number; toolCalls?: number; latencySeconds?: number }>();
    expectTypeOf<Usage>().toEqualTypeOf<{
      costUsd: number;
      tokens: number;
      toolCalls: number;
      inputTokens?: number;
      outputTokens?: number;
      cachedInputTokens?: number;
    }>();
  });
});
