import { describe, expect, it } from 'vitest';
import type { TaskResult } from '../../schemas';
import { addOn, addUsd, floorOn, fromMicros, splitOn, subUsd, sumUsd, toMicros, usageOf } from '../../core/money';
import { charge, newLedger, remaining, reserve, settle, snapshot, type LedgerState } from '../../core/budget-ledger';
import { emptyMetrics, sumMetrics } from '../../core/task-results';

const step = (costUsd: number) => usageOf({ costUsd });
const result = (id: string, costUsd: number): TaskResult => ({
  id,
  agentId: 'sim',
  status: 'success',
  summary: '',
  evidence: [],
  citations: [],
  followUps: [],
  confidence: 1,
  metrics: { ...emptyMetrics(), costUsd },
  failureReason: null,
  errors: [],
});

describe('exact money', () => {
  it('counts integer micro-dollars and reports dollars that print exactly', () => {
    expect(0.01 + 0.05).not.toBe(0.06); // the float dust this module exists for
    expect(addUsd(0.01, 0.05)).toBe(0.06);
    expect(sumUsd([0.1, 0.1, 0.1])).toBe(0.3);
    expect(subUsd(0.3, 0.1)).toBe(0.2);
    expect(toMicros(0.06)).toBe(60_000);
    expect(fromMicros(60_000)).toBe(0.06);
    expect(String(addOn('costUsd', 0.1, 0.2))).toBe('0.3');
    expect(addOn('tokens', 7, 5)).toBe(12);
  });

  it('splits and floors to whole micro-dollars and whole units', () => {
    expect(splitOn('costUsd', 0.1, 3)).toBe(0.033333);
    expect(splitOn('tokens', 100, 3)).toBe(33);
    expect(floorOn('costUsd', 0.06)).toBe(0.06);
    expect(floorOn('costUsd', 0.0600009)).toBe(0.06);
    expect(floorOn('tokens', 2.9)).toBe(2);
  });

  it("0.01 + 0.05 is 0.06 in the ledger, in a subtask's metrics and in a job total", () => {
    // a subtask charging its steps: its metrics are its ledger's spend
    const sub = newLedger({ costUsd: 0.1 });
    charge(sub, step(0.01));
    charge(sub, step(0.05));
    expect(sub.spent.costUsd).toBe(0.06);
    expect(remaining(sub).costUsd).toBe(0.04);
    // the job: reserves, then settles what each child spent
    const job = newLedger({ costUsd: 1 });
    const a = reserve(job, { costUsd: 0.3 });
    const b = reserve(job, { costUsd: 0.3 });
    settle(job, a.allocation, step(0.01));
    settle(job, b.allocation, step(0.05));
    expect(snapshot(job).costUsd).toEqual({ limit: 1, spent: 0.06, reserved: 0, remaining: 0.94 });
    expect(sumMetrics([result('a', 0.01), result('b', 0.05)], 0).costUsd).toBe(0.06);
  });

  it('reads a ledger carried by older code, float dust and all', () => {
    // as written before the axis table: an axis added since is simply absent (it counts 0)
    const old = {
      limit: { costUsd: 0.15000000000000002 },
      spent: { costUsd: 0.060000000000000005, tokens: 0, toolCalls: 0 },
      reserved: { costUsd: 0, tokens: 0, toolCalls: 0 },
    } as LedgerState;
    charge(old, step(0.04));
    expect(old.spent.costUsd).toBe(0.1);
    expect(remaining(old).costUsd).toBe(0.05);
  });
});
