import { describe, expect, it } from 'vitest';
import type { JobSpec } from '../../schemas';
import { BATCH_SIZE, inMiddleBand, planBatches } from '../../workflows/patterns/batching';

const fanout = (n: number, maxParallel?: number): JobSpec & { jobId: string } => ({
  jobId: 'j',
  pattern: 'fanout',
  ...(maxParallel !== undefined ? { maxParallel } : {}),
  tasks: Array.from({ length: n }, (_, i) => ({ id: `t${i}`, question: `q${i}`, agent: 'echo' })),
});
const sizes = (plan: ReturnType<typeof planBatches>) => plan!.spec.tasks.map((b) => b.job!.tasks.length);

describe('a fan-out as a tree of batches', () => {
  it('runs 100 tasks flat, and 101–500 flat before the middle-band patch', () => {
    expect(planBatches(fanout(100), 100, true)).toBeUndefined();
    expect(planBatches(fanout(400), 100, false)).toBeUndefined();
    expect(inMiddleBand(fanout(100))).toBe(false);
    expect(inMiddleBand(fanout(101))).toBe(true);
    expect(inMiddleBand(fanout(501))).toBe(false);
    // the deployment's width up to which a fan-out stays flat (DELEGATE_FANOUT_FLAT_MAX): never below the band's start
    expect(inMiddleBand(fanout(400), 500)).toBe(false);
    expect(inMiddleBand(fanout(500), 500)).toBe(false);
    expect(inMiddleBand(fanout(201), 200)).toBe(true);
    expect(inMiddleBand(fanout(200), 200)).toBe(false);
    expect(inMiddleBand(fanout(101), 50)).toBe(true);
    expect(inMiddleBand(fanout(101), undefined)).toBe(true);
  });

  it('cuts 400 tasks into 8 batches of 50, all at once, each with its share of maxParallel', () => {
    const plan = planBatches(fanout(400, 400), 100, true)!;
    expect(sizes(plan)).toEqual(Array(8).fill(50));
    expect(plan.spec.maxParallel).toBe(8);
    expect(plan.spec.tasks.map((b) => b.job!.maxParallel)).toEqual(Array(8).fill(50));
    expect(plan.batchIds).toEqual(plan.spec.tasks.map((b) => b.id));
    // every task once, in order
    expect(plan.spec.tasks.flatMap((b) => b.job!.tasks.map((t) => t.id))).toEqual(fanout(400).tasks.map((t) => t.id));
  });

  it('keeps batches of at least 50 and never more in flight than maxParallel', () => {
    expect(sizes(planBatches(fanout(101), 100, true))).toEqual([51, 50]);
    const narrow = planBatches(fanout(300, 4), 100, true)!;
    expect(narrow.spec.maxParallel).toBe(4);
    expect(narrow.spec.maxParallel! * narrow.spec.tasks[0].job!.maxParallel!).toBeLessThanOrEqual(4);
    const wide = planBatches(fanout(500), 100, true)!;
    expect(sizes(wide)).toEqual(Array(8).fill(63).slice(0, 7).concat([59]));
    expect(wide.spec.maxParallel! * wide.spec.tasks[0].job!.maxParallel!).toBeLessThanOrEqual(100);
  });

  it('cuts a wide fan-out into batches of 250, two at once, with or without the patch', () => {
    for (const middle of [false, true]) {
      const plan = planBatches(fanout(1001), 100, middle)!;
      expect(sizes(plan)).toEqual([BATCH_SIZE, BATCH_SIZE, BATCH_SIZE, BATCH_SIZE, 1]);
      expect(plan.spec.maxParallel).toBe(2);
    }
  });

  it('batches a quorum per batch, at most its size', () => {
    const spec = { ...fanout(200), aggregation: { strategy: 'first_success' as const, quorum: 120 } };
    const plan = planBatches(spec, 100, true)!;
    expect(plan.spec.tasks.map((b) => b.job!.aggregation)).toEqual(Array(4).fill({ strategy: 'first_success', quorum: 50 }));
  });
});
