/**
 * Budget fidelity, the number we quote: over a seeded random run of many jobs (parallel and
 * sequential fan-outs, nested jobs, children with and without budgets of their own, agents
 * that honour the budget they are told and agents that ignore it), a job's spend never
 * exceeds its budget by more than its largest single step: spend / budget <= 1 + step / budget.
 */
import { describe, expect, it } from 'vitest';
import type { JobSpec, TaskSpec } from '../../schemas';
import { runJob, uniqueId } from '../helpers';

/** mulberry32: a small seeded PRNG, so a failing run can be replayed. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Generated {
  spec: JobSpec & { jobId: string };
  largestStep: number;
}

function generate(rand: () => number, i: number): Generated {
  const pick = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const sequential = rand() < 0.3;
  let largestStep = 0;
  const simTask = (id: string): TaskSpec => {
    const costUsd = Math.round((0.001 + rand() * 0.02) * 1e6) / 1e6;
    largestStep = Math.max(largestStep, costUsd);
    return {
      id,
      question: `q ${id}`,
      agent: 'sim',
      // only sequential jobs get agents that ignore the budget: parallel ones could each overshoot by a step
      params: { steps: pick(1, 8), costUsd, ignoreBudget: sequential && rand() < 0.5 },
      ...(rand() < 0.4 ? { budget: { costUsd: Math.round(rand() * 0.05 * 1e6) / 1e6 || 0.001 } } : {}),
    };
  };
  const tasks: TaskSpec[] = Array.from({ length: pick(2, 6) }, (_, k) =>
    !sequential && rand() < 0.25
      ? {
          id: `n${k}`,
          question: 'nested',
          job: { pattern: 'fanout', tasks: Array.from({ length: pick(2, 3) }, (_, j) => simTask(`n${k}s${j}`)) },
        }
      : simTask(`t${k}`),
  );
  return {
    spec: {
      jobId: uniqueId(`fid${i}`),
      pattern: 'fanout',
      budget: { costUsd: Math.round((0.01 + rand() * 0.09) * 1e6) / 1e6 },
      maxParallel: sequential ? 1 : pick(2, 6),
      tasks,
    },
    largestStep,
  };
}

describe('budget fidelity', () => {
  it('spend / budget never exceeds 1 + largest step / budget over 40 random jobs', async () => {
    const rand = prng(20261130);
    const jobs = Array.from({ length: 40 }, (_, i) => generate(rand, i));
    const results = await Promise.all(jobs.map((j) => runJob(j.spec)));
    let worst = 0;
    results.forEach((r, i) => {
      const budget = jobs[i].spec.budget!.costUsd!;
      const bound = 1 + jobs[i].largestStep / budget;
      const ratio = r.metrics.costUsd / budget;
      worst = Math.max(worst, ratio);
      expect(ratio, `${r.jobId}: spent ${r.metrics.costUsd} of ${budget}`).toBeLessThanOrEqual(bound + 1e-9);
      expect(r.budget?.ledger.costUsd.reserved).toBeCloseTo(0, 9);
    });
    // the run did exercise the caps: some jobs used (nearly) all of their budget
    expect(worst).toBeGreaterThan(0.9);
    console.log(`budget fidelity: worst spend/budget over ${jobs.length} jobs = ${worst.toFixed(4)}`);
  });
});
