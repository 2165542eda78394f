import { describe, expect, it } from 'vitest';
import { fairGrant, fairWant, grantable, leafCount, shortOfStep, stepFloor, topUpShare, type Claim } from '../../core/allocation';
import { newLedger, remaining, reserve, settle } from '../../core/budget-ledger';

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

describe('fair grants', () => {
  const leaf: Claim = { weight: 1 };
  /** Reserves for each claim in turn, as a job does, and returns the allocations' cost. */
  function reserveAll(budget: number, claims: Claim[], floor = {}) {
    const l = newLedger({ costUsd: budget });
    return claims.map((c, i) => reserve(l, fairGrant(c, remaining(l), claims.slice(i), floor).want).allocation.costUsd);
  }

  it('N children in parallel each get an n-th, never the whole remainder', () => {
    const got = reserveAll(
      1,
      Array.from({ length: 4 }, () => leaf),
    );
    expect(got).toEqual([0.25, 0.25, 0.25, 0.25]);
  });

  it("a child's own budget caps it, and what it leaves goes to the others (max-min fair)", () => {
    // the small task comes last, yet the first two already leave it room: 0.45 + 0.45 + 0.1
    expect(reserveAll(1, [leaf, leaf, { own: { costUsd: 0.1 }, weight: 1 }])).toEqual([0.45, 0.45, 0.1]);
    // an own budget above the share is capped at the share, so it cannot starve the tasks after it
    expect(reserveAll(1, [{ own: { costUsd: 1 }, weight: 1 }, leaf])).toEqual([0.5, 0.5]);
  });

  it('a nested job of k leaves gets k shares (depth multiplies fan-out)', () => {
    const nested = { job: { tasks: Array.from({ length: 10 }, () => ({})) } };
    expect(leafCount(nested)).toBe(10);
    expect(leafCount({ job: { tasks: [nested, {}] } })).toBe(11);
    expect(reserveAll(1.1, [{ weight: leafCount(nested) }, leaf])).toEqual([1, 0.1]);
  });

  it('the floor gives one step each while it lasts: later tasks get less than a share but more than nothing', () => {
    // 10 tasks, $0.05, a step costs $0.01: the share ($0.005) would not pay one step
    const got = reserveAll(
      0.05,
      Array.from({ length: 10 }, () => leaf),
      { costUsd: 0.01 },
    );
    expect(got.slice(0, 5)).toEqual([0.01, 0.01, 0.01, 0.01, 0.01]);
    expect(got.slice(5)).toEqual([0, 0, 0, 0, 0]);
  });

  it("a finished child's unspent grant is refunded: a late child gets a larger share", () => {
    const l = newLedger({ costUsd: 1 });
    const claims = Array.from({ length: 4 }, () => leaf);
    const first = reserve(l, fairGrant(leaf, remaining(l), claims).want).allocation;
    const second = reserve(l, fairGrant(leaf, remaining(l), claims.slice(1)).want).allocation;
    expect([first.costUsd, second.costUsd]).toEqual([0.25, 0.25]);
    settle(l, first, { costUsd: 0.05, tokens: 0, toolCalls: 0 });
    // 0.95 - 0.25 held by the second = 0.7 among the two not started
    expect(fairGrant(leaf, remaining(l), claims.slice(2)).want.costUsd).toBe(0.35);
  });

  it('says when what is left cannot pay a step (the floor, or a smaller own budget)', () => {
    expect(shortOfStep(undefined, { costUsd: 0.004 }, { costUsd: 0.005 })).toBe(true);
    expect(shortOfStep(undefined, { costUsd: 0.005 }, { costUsd: 0.005 })).toBe(false);
    expect(shortOfStep({ costUsd: 0.001 }, { costUsd: 0.004 }, { costUsd: 0.005 })).toBe(false);
    expect(shortOfStep(undefined, { costUsd: 0 }, {})).toBe(true);
    expect(shortOfStep(undefined, {}, { costUsd: 1 })).toBe(false);
  });

  it('one step is the mean spend per step of what finished, rounded up to whole units', () => {
    expect(stepFloor({ costUsd: 0.01, tokens: 10, toolCalls: 0 }, 3)).toEqual({ costUsd: 0.003334, tokens: 4 });
    expect(stepFloor({ costUsd: 0.01 }, 0)).toEqual({});
  });

  it('an open axis and a task budget on it pass through; latency is the task own', () => {
    expect(fairGrant({ own: { costUsd: 0.2, latencySeconds: 5 }, weight: 1 }, {}, [leaf])).toEqual({
      want: { costUsd: 0.2, latencySeconds: 5 },
      shared: false,
      cut: false,
    });
    expect(fairGrant(leaf, { tokens: 10 }, [leaf, leaf, leaf])).toEqual({ want: { tokens: 3 }, shared: true, cut: false });
    // an own budget above the share is cut: the task is reported clipped
    expect(fairGrant({ own: { tokens: 9 }, weight: 1 }, { tokens: 10 }, [leaf, leaf])).toMatchObject({ want: { tokens: 5 }, cut: true });
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
