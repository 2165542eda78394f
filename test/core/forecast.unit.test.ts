/**
 * The estimators on synthetic histories: the bins' quantiles stay within their error, the
 * patterns compose (fan-out and vote sum spend, a pipeline sums durations, maxParallel and
 * quorums shape the duration and the spend, nested jobs compose), a task without history
 * falls back on its limits and says so, the budget probability matches the exact one, and
 * the p90 of a job is calibrated on fresh draws.
 */
import { describe, expect, it } from 'vitest';
import { addBin, binOf, binsOf, binValue, emptyStats, GAMMA, mergeStats, quantile, type TaskStats } from '../../core/forecast-sketch';
import { forecastPlan } from '../../core/forecast';
import type { JobPlan, TaskPlan } from '../../core/forecast-plan';
import { makespan, quorumCut, seededRng } from '../../core/forecast-schedule';

/** Stats of `runs` subtasks with costs (dollars) and latencies (seconds) drawn by the functions. */
function history(runs: number, cost: (i: number) => number, latency: (i: number) => number = () => 1, successRate = 1): TaskStats {
  const s = emptyStats();
  for (let i = 0; i < runs; i++) {
    const sample = {
      status: (i < runs * successRate ? 'success' : 'failure') as 'success' | 'failure',
      values: { costMicros: Math.round(cost(i) * 1e6), tokens: 100, toolCalls: 1, steps: 2, latencyMs: latency(i) * 1000 },
    };
    for (const { metric, bin } of binsOf(sample)) addBin(s, metric, bin, 1);
  }
  return s;
}

const task = (id: string, stats?: TaskStats, extra: Partial<TaskPlan> = {}): TaskPlan => ({
  kind: 'task',
  id,
  agent: 'sim',
  stats,
  basis: stats ? 'synthetic' : 'none',
  limits: {},
  ...extra,
});
const job = (pattern: JobPlan['pattern'], children: JobPlan['children'], extra: Partial<JobPlan> = {}): JobPlan => ({
  kind: 'job',
  id: 'job',
  pattern,
  children,
  ...extra,
});

/** A log-normal draw: the shape of real costs and latencies. */
const lognormal = (rnd: () => number, mu: number, sigma: number) =>
  Math.exp(mu + sigma * Math.sqrt(-2 * Math.log(Math.max(rnd(), 1e-12))) * Math.cos(2 * Math.PI * rnd()));

const rel = (a: number, b: number) => Math.abs(a - b) / b;

describe('the fixed log bins', () => {
  it('put each value in a bin whose representative is within (γ−1)/(γ+1) of it', () => {
    const bound = (GAMMA - 1) / (GAMMA + 1) + 1e-12;
    for (const v of [1, 1.5, 2, 3, 10, 123, 4567, 1e6, 2 ** 20, 1e12]) expect(rel(binValue(binOf(v)), v)).toBeLessThanOrEqual(bound);
    expect(binValue(binOf(0))).toBe(0);
  });

  it('read quantiles of a log-normal history within 9%, and merge by addition', () => {
    const rnd = seededRng(7);
    const values = Array.from({ length: 5000 }, () => lognormal(rnd, Math.log(0.05), 0.6));
    const s = history(values.length, (i) => values[i]);
    const sorted = [...values].sort((a, b) => a - b);
    for (const q of [0.5, 0.9])
      expect(rel(quantile(s.hist.costMicros, q)! / 1e6, sorted[Math.ceil(q * sorted.length) - 1])).toBeLessThan(0.09);
    const halves = mergeStats([history(2500, (i) => values[i]), history(2500, (i) => values[2500 + i])]);
    expect(halves.runs).toBe(5000);
    expect(halves.hist.costMicros).toEqual(s.hist.costMicros);
  });
});

describe('the forecast of a plan', () => {
  const coin = history(
    1000,
    (i) => (i % 2 ? 0.2 : 0.1),
    (i) => (i % 2 ? 20 : 10),
  );

  it("gives a task its history's quantiles and runs", () => {
    const f = forecastPlan(job('fanout', [task('a', coin)]));
    const t = f.job.children![0];
    expect(t).toMatchObject({ runs: 1000, history: true, successRate: 1 });
    expect(rel(t.predicted.costUsd.p50!, 0.1)).toBeLessThan(0.09);
    expect(rel(t.predicted.costUsd.p90!, 0.2)).toBeLessThan(0.09);
    expect(rel(t.predicted.latencySeconds.p90!, 20)).toBeLessThan(0.09);
  });

  it('matches the exact probability that the budget suffices: two coin-flip tasks, $0.35 fits 3 of 4 outcomes', () => {
    const f = forecastPlan(job('fanout', [task('a', coin), task('b', coin)], { budget: { costUsd: 0.35 } }), { samples: 4000 });
    expect(f.budgetSuffices).toBeGreaterThan(0.72);
    expect(f.budgetSuffices).toBeLessThan(0.78);
    expect(f.byAxis.costUsd).toBe(f.budgetSuffices);
  });

  it('sums spend in every pattern; runs a fan-out and a vote at once, a pipeline one after the other', () => {
    const fixed = history(
      50,
      () => 0.1,
      () => 10,
    );
    const three = [task('a', fixed), task('b', fixed), task('c', fixed)];
    const fan = forecastPlan(job('fanout', three)).job.predicted;
    const vote = forecastPlan(job('vote', three)).job.predicted;
    const pipe = forecastPlan(job('pipeline', three)).job.predicted;
    for (const p of [fan, vote, pipe]) expect(rel(p.costUsd.p50!, 0.3)).toBeLessThan(0.09);
    expect(rel(fan.latencySeconds.p50!, 10)).toBeLessThan(0.09);
    expect(rel(vote.latencySeconds.p50!, 10)).toBeLessThan(0.09);
    expect(rel(pipe.latencySeconds.p50!, 30)).toBeLessThan(0.09);
    // maxParallel 1: the fan-out's tasks wait their turn
    expect(rel(forecastPlan(job('fanout', three, { maxParallel: 1 })).job.predicted.latencySeconds.p50!, 30)).toBeLessThan(0.09);
    expect(makespan([3, 1, 1, 1], 2)).toBe(3);
  });

  it('composes nested jobs, and checks their own budgets', () => {
    const fixed = history(
      50,
      () => 0.1,
      () => 10,
    );
    const inner = job('pipeline', [task('x', fixed), task('y', fixed)], { id: 'inner', budget: { costUsd: 0.15 } });
    const f = forecastPlan(job('fanout', [inner, task('z', fixed)], { budget: { costUsd: 10 } }));
    expect(rel(f.job.predicted.costUsd.p50!, 0.3)).toBeLessThan(0.09);
    expect(rel(f.job.predicted.latencySeconds.p50!, 20)).toBeLessThan(0.09);
    // the root's budget holds, the nested job's never does: the job's does not suffice
    expect(f.byAxis.costUsd).toBe(1);
    expect(f.job.children![0].budgetSuffices).toBe(0);
    expect(f.budgetSuffices).toBe(0);
  });

  it('falls back on the limits of a task without history, says so, and cannot tell a cap on an axis it has no limit for', () => {
    const f = forecastPlan(
      job('fanout', [task('known', coin), task('new', undefined, { limits: { steps: 10, latencySeconds: 300 } })], {
        budget: { costUsd: 1 },
      }),
    );
    const t = f.job.children![1];
    expect(t).toMatchObject({ history: false, runs: 0, predicted: { steps: { p50: 10, p90: 10 }, costUsd: { p50: null, p90: null } } });
    expect(f.budgetSuffices).toBeNull();
    expect(f.notes.join()).toMatch(/costUsd is capped but tasks new have no history/);
    // with a cost limit of its own (its budget) the chance can be told again
    const g = forecastPlan(
      job('fanout', [task('known', coin), task('new', undefined, { limits: { costUsd: 0.5 } })], { budget: { costUsd: 1 } }),
    );
    expect(g.budgetSuffices).toBe(1);
  });

  it('spends less in a quorum fan-out with a lower maxParallel: tasks not started at the quorum cost nothing', () => {
    const cut = quorumCut([10, 10, 10, 10], [true, true, true, true], 1, 1);
    expect(cut).toEqual({ share: [1, 0, 0, 0], duration: 10 });
    const sure = history(
      50,
      () => 0.1,
      () => 10,
    );
    const tasks = Array.from({ length: 10 }, (_, i) => task(`t${i}`, sure));
    const wide = forecastPlan(job('fanout', tasks, { quorum: 2 })).job.predicted.costUsd.p50!;
    const narrow = forecastPlan(job('fanout', tasks, { quorum: 2, maxParallel: 2 })).job.predicted.costUsd.p50!;
    expect(rel(wide, 1)).toBeLessThan(0.09);
    expect(rel(narrow, 0.2)).toBeLessThan(0.09);
  });

  it("is calibrated: fresh jobs' spend is under the p90 about 90% of the time", () => {
    const rnd = seededRng(11);
    const draw = () => lognormal(rnd, Math.log(0.02), 0.8);
    const past = Array.from({ length: 2000 }, draw);
    const s = history(past.length, (i) => past[i]);
    const plan = job(
      'fanout',
      Array.from({ length: 5 }, (_, i) => task(`t${i}`, s)),
    );
    const p90 = forecastPlan(plan, { samples: 4000 }).job.predicted.costUsd.p90!;
    let under = 0;
    const trials = 4000;
    for (let k = 0; k < trials; k++) if (draw() + draw() + draw() + draw() + draw() <= p90) under++;
    expect(under / trials).toBeGreaterThan(0.86);
    expect(under / trials).toBeLessThan(0.94);
  });
});

describe('a declared provider rate in the forecast', () => {
  it('keeps a wide fan-out on a paced provider from finishing before its steps could go out, and says why', () => {
    // 1,000 one-second tasks of two steps each, all at once: 1 s without a provider limit
    const tasks = Array.from({ length: 1000 }, (_, i) =>
      task(
        `t${i}`,
        history(20, () => 0.01),
      ),
    );
    const free = forecastPlan(job('fanout', tasks), { samples: 200 });
    expect(free.job.predicted.latencySeconds.p50).toBeLessThan(2);
    // the same on a provider taking 20 steps a second: ~2,000 steps (the sketch bins them) need ~100 s
    const paced = tasks.map((t) => ({ ...t, provider: { id: 'openai-main', stepsPerSecond: 20 } }));
    const f = forecastPlan(job('fanout', paced, { budget: { latencySeconds: 10 } }), { samples: 200 });
    expect(f.job.predicted.latencySeconds.p50).toBeGreaterThan(80);
    expect(f.byAxis.latencySeconds).toBe(0);
    expect(f.notes).toContain("provider openai-main takes 20 steps/s: the job's 1000 task(s) on it need at least 50 s (one step each)");
  });
});
