import { describe, expect, it } from 'vitest';
import { fairWant, grantable, topUpShare } from '../../core/allocation';
import { newLedger, remaining, reserve } from '../../core/budget-ledger';

describe('fair share', () => {
  it('unbudgeted tasks share what is left fairly, and exactly', () => {
    const l = newLedger({ costUsd: 0.1, tokens: 900 });
    const wants = [3, 2, 1].map((waiting) => {
      const { want, shared } = fairWant(undefined, remaining(l), waiting);
      expect(shared).toBe(true);
      return reserve(l, want).allocation;
    });
    expect(wants).toEqual([
      { costUsd: 0.033333, tokens: 300 },
      { costUsd: 0.033333, tokens: 300 },
      { costUsd: 0.033334, tokens: 300 },
    ]);
    expect(remaining(l)).toEqual({ costUsd: 0, tokens: 0 });
  });

  it('one unbudgeted task cannot take the whole job while others wait', () => {
    const { want } = fairWant(undefined, { costUsd: 1 }, 4);
    expect(want.costUsd).toBe(0.25);
  });

  it('integer axes floor but give at least 1 while something is left; nothing left gives 0', () => {
    expect(fairWant(undefined, { tokens: 10, toolCalls: 2 }, 3).want).toEqual({ tokens: 3, toolCalls: 1 });
    expect(fairWant(undefined, { costUsd: 0.000001 }, 5).want).toEqual({ costUsd: 0.000001 });
    expect(fairWant(undefined, { tokens: 0 }, 3).want).toEqual({ tokens: 0 });
  });

  it('a task keeps its own budget on the axes it sets; unlimited axes stay open', () => {
    expect(fairWant({ costUsd: 0.2 }, { costUsd: 1, tokens: 100 }, 2)).toEqual({ want: { costUsd: 0.2, tokens: 50 }, shared: true });
    expect(fairWant({ costUsd: 0.2 }, { costUsd: 1 }, 2)).toEqual({ want: { costUsd: 0.2 }, shared: false });
    expect(fairWant(undefined, {}, 2)).toEqual({ want: {}, shared: false });
  });
});

describe('top-up sharing', () => {
  it('splits new money between clipped running children and the tasks not started', () => {
    // 2 clipped children + 2 tasks waiting: each child gets a quarter of the new 0.1
    const child = { asked: { costUsd: 1 }, allocation: { costUsd: 0.01 } };
    expect(topUpShare({ costUsd: 0.1 }, { costUsd: 0.1 }, child, 4)).toEqual({ costUsd: 0.025 });
  });

  it('shares only the new money, bounded by what is left, on capped axes added', () => {
    const child = { allocation: { costUsd: 0.01, tokens: 5 } };
    expect(topUpShare({ costUsd: 0.1 }, { costUsd: 0.04, tokens: 100 }, child, 2)).toEqual({ costUsd: 0.02 });
    expect(topUpShare({ tokens: 7 }, { tokens: 7 }, child, 2)).toEqual({ tokens: 3 });
  });

  it('a task never gets more than it asked', () => {
    const child = { asked: { costUsd: 0.05 }, allocation: { costUsd: 0.04 } };
    expect(topUpShare({ costUsd: 1 }, { costUsd: 1 }, child, 1)).toEqual({ costUsd: 0.01 });
    expect(topUpShare({ costUsd: 1 }, { costUsd: 1 }, { asked: { costUsd: 0.04 }, allocation: { costUsd: 0.04 } }, 1)).toEqual({});
  });
});

describe('grantable', () => {
  it('gives what was asked up to what is left, whole micro-dollars and units, nothing below them', () => {
    expect(grantable({ costUsd: 0.5, tokens: 10 }, { costUsd: 0.2, tokens: 7.5 })).toEqual({ costUsd: 0.2, tokens: 7 });
    expect(grantable({ costUsd: 0.1234567 }, {})).toEqual({ costUsd: 0.123456 });
    expect(grantable({ costUsd: 0.1 }, { costUsd: 0 })).toEqual({});
    expect(grantable({ latencySeconds: 30 }, { latencySeconds: 12.5 })).toEqual({ latencySeconds: 12.5 });
  });
});
