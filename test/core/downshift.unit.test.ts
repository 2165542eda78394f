/** The down-shift rule: quality from the record, the spent share, and which rung a task steps down to. */
import { describe, expect, it } from 'vitest';
import type { TaskStats } from '../../core/forecast-sketch';
import {
  capabilityLadder,
  downshiftNote,
  measure,
  pickRung,
  qualityOf,
  spentShare,
  type DownshiftPlan,
  type DownshiftRung,
} from '../../core/downshift';
import { usageOf } from '../../core/money';
import { statsOf } from './stats-fixtures';

const manifest = (id: string) => ({
  id,
  version: '1.0.0',
  kind: 'llm' as const,
  limits: { timeoutSeconds: 30, maxSteps: 10 },
  retry: { maxAttempts: 1, initialIntervalSeconds: 1, backoffCoefficient: 2, maximumIntervalSeconds: 1 },
});
const rung = (id: string, stats?: TaskStats): DownshiftRung => ({ ...measure(id, stats), manifest: manifest(id) });

describe('qualityOf', () => {
  it('is the smoothed success rate, partial counting half, and null without a run', () => {
    expect(qualityOf(undefined)).toBeNull();
    expect(qualityOf({ runs: 0, success: 0, partial: 0 })).toBeNull();
    expect(qualityOf({ runs: 10, success: 10, partial: 0 })).toBeCloseTo(11 / 12);
    expect(qualityOf({ runs: 4, success: 2, partial: 2 })).toBeCloseTo(4 / 6);
    // a handful of lucky runs does not pass a high floor
    expect(qualityOf({ runs: 3, success: 3, partial: 0 })!).toBeLessThan(0.9);
  });
});

describe('spentShare', () => {
  it('is the most spent capped axis, latency by the wall clock', () => {
    expect(spentShare({ costUsd: 1, tokens: 100 }, usageOf({ costUsd: 0.5, tokens: 90 }), 0)).toEqual({ share: 0.9, axis: 'tokens' });
    expect(spentShare({ latencySeconds: 10 }, usageOf({}), 8.5)).toEqual({ share: 0.85, axis: 'latencySeconds' });
    expect(spentShare({}, usageOf({ costUsd: 5 }), 100)).toEqual({ share: 0 });
  });
});

describe('pickRung', () => {
  const plan = (rungs: DownshiftRung[], qualityFloor = 0.9): DownshiftPlan => ({ threshold: 0.8, qualityFloor, rungs });
  const pricey = rung('pricey', statsOf(40, 0, 0.01));
  const mid = rung('mid', statsOf(40, 1, 0.004));
  const cheap = rung('cheap', statsOf(40, 2, 0.001));
  const poor = rung('poor', statsOf(40, 20, 0.0001));

  it('steps down to the cheapest rung at or above the floor, never up and never below it', () => {
    expect(pickRung(plan([pricey, mid, cheap, poor]), 'pricey')?.agent).toBe('cheap');
    expect(pickRung(plan([pricey, mid, cheap, poor]), 'mid')?.agent).toBe('cheap');
    // the floor rules the cheap rung out: the next one up
    expect(pickRung(plan([pricey, mid, cheap, poor], 0.95), 'pricey')?.agent).toBe('mid');
    // nothing qualifies below: no change
    expect(pickRung(plan([pricey, mid, cheap, poor], 0.99), 'pricey')).toBeUndefined();
    expect(pickRung(plan([pricey, mid, cheap]), 'cheap')).toBeUndefined();
    // an agent off the ladder is never moved
    expect(pickRung(plan([pricey, cheap]), 'other')).toBeUndefined();
  });

  it('never picks an unmeasured agent, one the task failed on, or one whose step does not fit what is left', () => {
    expect(pickRung(plan([pricey, rung('new')]), 'pricey')).toBeUndefined();
    expect(pickRung(plan([pricey, mid, cheap]), 'pricey', { exclude: new Set(['cheap']) })?.agent).toBe('mid');
    // the cheap step ($0.001) does not fit $0.0005: nor does any pricier one
    expect(pickRung(plan([pricey, mid, cheap]), 'pricey', { leftUsd: 0.0005 })).toBeUndefined();
    expect(pickRung(plan([pricey, mid, cheap]), 'pricey', { leftUsd: 0.002 })?.agent).toBe('cheap');
  });

  it('ranks a capability by measured spend, priciest first, the unmeasured ahead', () => {
    expect(capabilityLadder([cheap, rung('new'), pricey, mid]).map((r) => r.agent)).toEqual(['new', 'pricey', 'mid', 'cheap']);
  });

  it('says in one line what moved, why and on what quality', () => {
    const to = pickRung(plan([pricey, cheap]), 'pricey')!;
    const note = downshiftNote({ from: 'pricey', to, share: 0.84, axis: 'costUsd', scope: 'job' }, plan([pricey, cheap]));
    expect(note).toMatch(
      /^down-shift from pricey to cheap: the job spent or granted 84% of its costUsd \(threshold 80%\); cheap quality 0\.9\d\d over 40 runs ≥ floor 0\.9$/,
    );
  });
});
