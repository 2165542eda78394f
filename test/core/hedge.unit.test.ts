/** The hedge's rules (core/hedge.ts): the step latency read from task statistics, the delay, the decision, a forecast's extra spend. */
import { describe, expect, it } from 'vitest';
import { addBin, binOf, emptyStats, type TaskStats } from '../../core/forecast-sketch';
import { hedgeDelayMs, mayHedge } from '../../core/hedge';
import { stepLatencyOf } from '../../activities/hedge-stats';

/** Stats of tasks: each [latencyMs, steps, costUsd] once. */
function stats(tasks: [number, number, number][]): TaskStats {
  const s = emptyStats();
  for (const [ms, steps, usd] of tasks) {
    addBin(s, 'outcome', 0, 1);
    addBin(s, 'latencyMs', binOf(ms), 1);
    addBin(s, 'steps', binOf(steps), 1);
    addBin(s, 'costMicros', binOf(usd * 1e6), 1);
    addBin(s, 'tokens', binOf(100 * steps), 1);
  }
  return s;
}
const near = (x: number | undefined, v: number) => expect(Math.abs((x ?? NaN) / v - 1)).toBeLessThan(0.09);

describe('stepLatencyOf', () => {
  it("reads the quantile of one-step tasks' latency: p90 of a tail of 5% at 10× is the body, p99 the tail", () => {
    const s = stats([
      ...Array.from({ length: 95 }, () => [200, 1, 0.001] as [number, number, number]),
      ...Array.from({ length: 5 }, () => [2000, 1, 0.001] as [number, number, number]),
    ]);
    near(stepLatencyOf(s, 0.9).delayMs, 200);
    near(stepLatencyOf(s, 0.99).delayMs, 2000);
    expect(stepLatencyOf(s, 0.9).runs).toBe(100);
    near(stepLatencyOf(s, 0.9).stepCostUsd, 0.001);
  });

  it('divides a longer task by its median steps, and its spend by its mean steps', () => {
    const s = stats(Array.from({ length: 10 }, () => [1000, 4, 0.004] as [number, number, number]));
    near(stepLatencyOf(s, 0.9).delayMs, 250);
    near(stepLatencyOf(s, 0.9).stepCostUsd, 0.001);
  });

  it('has nothing to say without history', () => {
    expect(stepLatencyOf(undefined, 0.9)).toEqual({ runs: 0 });
  });
});

describe('hedgeDelayMs', () => {
  it('takes the measured quantile from 5 runs, else afterMs, else no hedge', () => {
    expect(hedgeDelayMs({ maxExtraCost: 1 }, { runs: 5, delayMs: 240 })).toBe(240);
    expect(hedgeDelayMs({ maxExtraCost: 1, afterMs: 500 }, { runs: 4, delayMs: 240 })).toBe(500);
    expect(hedgeDelayMs({ maxExtraCost: 1 }, { runs: 4, delayMs: 240 })).toBeUndefined();
    expect(hedgeDelayMs({ maxExtraCost: 1 }, undefined)).toBeUndefined();
  });
});

describe('mayHedge on a forced clock', () => {
  const base = { spec: { maxExtraCost: 0.05 }, startedAt: 1_000, delayMs: 300, extraCostUsd: 0, step: { costUsd: 0.01 }, left: {} };
  it('is due at start + delay, not a millisecond before', () => {
    expect(mayHedge({ ...base, now: 1_299 })).toEqual({ hedge: false, why: 'not_due' });
    expect(mayHedge({ ...base, now: 1_300 })).toEqual({ hedge: true });
    expect(mayHedge({ ...base, now: 9_999 })).toEqual({ hedge: true });
  });
  it('stops when one more step would pass maxExtraCost (exactly reaching it is allowed)', () => {
    expect(mayHedge({ ...base, now: 1_300, extraCostUsd: 0.04 })).toEqual({ hedge: true });
    expect(mayHedge({ ...base, now: 1_300, extraCostUsd: 0.041 })).toEqual({ hedge: false, why: 'max_extra_cost' });
    // a step of unknown cost (no step yet, no history): what was spent already decides; maxExtraCost 0 hedges nothing
    expect(mayHedge({ ...base, now: 1_300, step: { costUsd: 0 } })).toEqual({ hedge: true });
    expect(mayHedge({ ...base, now: 1_300, step: { costUsd: 0 }, extraCostUsd: 0.05 })).toEqual({ hedge: false, why: 'max_extra_cost' });
    expect(mayHedge({ ...base, now: 1_300, step: { costUsd: 0 }, spec: { maxExtraCost: 0 } })).toEqual({
      hedge: false,
      why: 'max_extra_cost',
    });
  });
  it("stops when the step and its hedge do not both fit in the budget's cost or tokens left", () => {
    expect(mayHedge({ ...base, now: 1_300, left: { costUsd: 0.02 } })).toEqual({ hedge: true });
    expect(mayHedge({ ...base, now: 1_300, left: { costUsd: 0.019 } })).toEqual({ hedge: false, why: 'budget' });
    expect(mayHedge({ ...base, now: 1_300, step: { costUsd: 0.01, tokens: 100 }, left: { tokens: 150 } })).toEqual({
      hedge: false,
      why: 'budget',
    });
  });
});

describe('a forecast of hedged tasks', () => {
  it('adds 1 − afterP of the steps to the spend, one step each, ends those steps sooner, and says so', async () => {
    const { forecastPlan } = await import('../../core/forecast');
    // a tenth of the tasks take ten times as long: the tail a hedge cuts
    const s = stats([
      ...Array.from({ length: 90 }, () => [200, 1, 0.01] as [number, number, number]),
      ...Array.from({ length: 10 }, () => [2000, 1, 0.01] as [number, number, number]),
    ]);
    const plan = (hedge?: { maxExtraCost: number }) => ({
      kind: 'job' as const,
      id: 'job',
      pattern: 'fanout' as const,
      children: Array.from({ length: 50 }, (_, i) => ({
        kind: 'task' as const,
        id: `t${i}`,
        agent: 'a',
        stats: s,
        basis: '',
        limits: {},
        ...(hedge ? { hedge } : {}),
      })),
    });
    const without = forecastPlan(plan());
    const hedged = forecastPlan(plan({ maxExtraCost: 1 }));
    const ratio = hedged.job.predicted.costUsd.p50! / without.job.predicted.costUsd.p50!;
    expect(ratio).toBeGreaterThan(1.05);
    expect(ratio).toBeLessThan(1.16);
    // fifty at once: without hedges a slow one almost always holds the job ~2 s; hedged, its step ends by the delay plus a step
    expect(without.job.predicted.latencySeconds.p50!).toBeGreaterThan(1.5);
    expect(hedged.job.predicted.latencySeconds.p50!).toBeLessThan(without.job.predicted.latencySeconds.p50! / 2);
    expect(hedged.notes.join(' ')).toMatch(/hedge their steps/);
    expect(without.notes.join(' ')).not.toMatch(/hedge/);
    // maxExtraCost 0: no hedge is ever paid for, and none ends a step sooner
    expect(forecastPlan(plan({ maxExtraCost: 0 })).job.predicted).toEqual(without.job.predicted);
  });
});
