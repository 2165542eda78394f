import { describe, expect, it } from 'vitest';
import {
  exhaustedAxes,
  minBudget,
  newLedger,
  pastMaxAxes,
  remaining,
  reserve,
  settle,
  snapshot,
  topUp,
  unlimitedAxes,
} from '../../core/budget-ledger';
import { usageOf } from '../../core/money';

describe('budget ledger', () => {
  it('reserves the lower of want and what is left, and refuses when an axis is spent', () => {
    const l = newLedger({ costUsd: 0.1 });
    const a = reserve(l, { costUsd: 0.04 });
    expect(a).toEqual({ allocation: { costUsd: 0.04 }, clipped: false, refused: false });
    reserve(l, { costUsd: 0.04 });
    const c = reserve(l, { costUsd: 0.04 });
    expect(c.clipped).toBe(true);
    expect(c.allocation.costUsd).toBeCloseTo(0.02);
    expect(reserve(l, { costUsd: 0.04 }).refused).toBe(true);
    expect(l.reserved.costUsd).toBeCloseTo(0.1);
  });

  it('a child without its own budget gets everything left; unlimited axes stay unlimited', () => {
    const l = newLedger({ tokens: 500 });
    expect(reserve(l, {}).allocation).toEqual({ tokens: 500 });
    expect(reserve(newLedger({}), { costUsd: 1 }).allocation).toEqual({ costUsd: 1 });
  });

  it('settling releases the reservation and books real spend', () => {
    const l = newLedger({ costUsd: 0.1 });
    const { allocation } = reserve(l, { costUsd: 0.06 });
    settle(l, allocation, usageOf({ costUsd: 0.01, tokens: 10, toolCalls: 1 }));
    expect(remaining(l).costUsd).toBeCloseTo(0.09);
    expect(snapshot(l).costUsd).toMatchObject({ limit: 0.1, spent: 0.01, reserved: 0 });
  });

  it('exhaustion ignores float dust and counts latency as wall clock', () => {
    const l = newLedger({ costUsd: 0.05, latencySeconds: 10 });
    l.spent.costUsd = 0.01 * 5;
    expect(exhaustedAxes(l, 1)).toEqual(['costUsd']);
    l.spent.costUsd = 0.0;
    expect(exhaustedAxes(l, 10)).toEqual(['latencySeconds']);
  });

  it('top-ups raise capped axes only; minBudget takes the lower cap per axis', () => {
    const l = newLedger({ costUsd: 0.1 });
    topUp(l, { costUsd: 0.05, tokens: 100 });
    expect(l.limit).toEqual({ costUsd: 0.15 });
    expect(minBudget({ costUsd: 1, tokens: 5 }, { costUsd: 0.5 })).toEqual({ costUsd: 0.5, tokens: 5 });
  });

  it('names the axes a top-up cannot raise (open) and those it would take past the largest budget', () => {
    expect(unlimitedAxes({ costUsd: 0.1 }, { costUsd: 1, tokens: 100 })).toEqual(['tokens']);
    expect(pastMaxAxes({ costUsd: 0.02 }, { costUsd: 1e9 - 0.02 })).toEqual([]);
    expect(pastMaxAxes({ costUsd: 1e9 }, { costUsd: 0.000001 })).toEqual(['costUsd']);
    // an open axis counts from 0 (a subtask's allocation under a job that does not limit it)
    expect(pastMaxAxes({}, { tokens: 1e12, latencySeconds: 31_536_001 })).toEqual(['latencySeconds']);
  });
});
