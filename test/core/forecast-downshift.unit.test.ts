/** The forecast of a job with a ladder: the tasks starting past the threshold count at the cheaper agent's figures. */
import { describe, expect, it } from 'vitest';
import { forecastPlan } from '../../core/forecast';
import type { JobPlan, TaskPlan } from '../../core/forecast-plan';
import { planOf, type ForecastJob } from '../../api/forecast-thread-plan';
import { statsOf } from './stats-fixtures';

const pricey = statsOf(40, 0, 0.01);
const cheap = statsOf(40, 1, 0.001);
const task = (i: number, stats = pricey, agent = 'pricey'): TaskPlan => ({
  kind: 'task',
  id: `t${i}`,
  agent,
  basis: '',
  limits: {},
  stats,
});

describe('the forecast of a job with a ladder', () => {
  it('counts the cheaper agent for the tasks started once the threshold was spent', () => {
    const plain: JobPlan = { kind: 'job', id: 'job', pattern: 'fanout', maxParallel: 1, budget: { costUsd: 0.05 }, children: [] };
    for (let i = 0; i < 10; i++) plain.children.push(task(i));
    const without = forecastPlan(plain);
    // ten pricey tasks: about $0.10 (the bins' figures) against $0.05
    const p50 = without.job.predicted.costUsd.p50!;
    expect(p50).toBeGreaterThan(0.09);
    expect(without.budgetSuffices).toBe(0);
    const laddered: JobPlan = {
      ...plain,
      downshiftAt: 0.8,
      children: plain.children.map((c) => ({ ...(c as TaskPlan), downshiftTo: task(0, cheap, 'cheap') })),
    };
    const withLadder = forecastPlan(laddered);
    // four pricey tasks spend about $0.04 (80%), the other six start on cheap: about $0.046, under half
    expect(withLadder.job.predicted.costUsd.p50! / p50).toBeGreaterThan(0.4);
    expect(withLadder.job.predicted.costUsd.p50! / p50).toBeLessThan(0.5);
    expect(withLadder.budgetSuffices).toBe(1);
  });

  it('starts a wave of maxParallel before anything settled: only later tasks step down', () => {
    const job: JobPlan = {
      kind: 'job',
      id: 'job',
      pattern: 'fanout',
      maxParallel: 5,
      budget: { costUsd: 0.05 },
      downshiftAt: 0.8,
      children: [],
    };
    for (let i = 0; i < 10; i++) job.children.push({ ...task(i), downshiftTo: task(i, cheap, 'cheap') });
    // the first five start at once, each later one as one finishes: the ninth after four settled
    // ($0.04, 80%), so eight pricey and two cheap, about 0.82 of ten pricey
    const all = forecastPlan({ ...job, downshiftAt: undefined }).job.predicted.costUsd.p50!;
    expect(forecastPlan(job).job.predicted.costUsd.p50! / all).toBeCloseTo(0.82, 1);
  });

  it('plans each task on a ladder agent with the rung its job would start it on, above the floor only', () => {
    const agents = Object.fromEntries(
      ['pricey', 'cheap', 'poor'].map((id) => [id, { id, capabilities: [], maxSteps: 1, timeoutSeconds: 30 }]),
    );
    const stats = new Map([
      ['pricey', new Map([['fanout' as const, pricey]])],
      ['cheap', new Map([['fanout' as const, cheap]])],
      ['poor', new Map([['fanout' as const, statsOf(40, 20, 0.0001)]])],
    ]);
    const job: ForecastJob = {
      pattern: 'fanout',
      budget: { costUsd: 0.05 },
      downshift: { threshold: 0.8, qualityFloor: 0.9, agents: ['pricey', 'cheap', 'poor'], byCost: false },
      tasks: [
        { id: 'a', agents: ['pricey'] },
        { id: 'b', agents: ['poor'] },
      ],
    };
    const plan = planOf(job, agents, stats, 30);
    expect(plan.downshiftAt).toBe(0.8);
    const [a, b] = plan.children as TaskPlan[];
    expect(a.downshiftTo?.agent).toBe('cheap');
    expect(a.downshiftTo?.basis).toMatch(/^down-shifted to cheap/);
    expect(b.downshiftTo).toBeUndefined();
  });

  it("counts a task's own ladder by its steps: those after the one that passed the threshold of its budget at the cheaper agent's", () => {
    // ten steps of $0.004 against a budget of $0.02: the fourth passes 80%, the six after it run on cheap
    const tenSteps = statsOf(40, 0, 0.04, 10);
    const cheapSteps = statsOf(40, 1, 0.004, 10);
    const one = (t: TaskPlan): JobPlan => ({ kind: 'job', id: 'job', pattern: 'fanout', children: [t] });
    const own: TaskPlan = { ...task(0, tenSteps), budget: { costUsd: 0.02 } };
    const without = forecastPlan(one(own)).job.predicted.costUsd.p50!;
    const shifted = forecastPlan(one({ ...own, selfShift: { at: 0.8, to: task(0, cheapSteps, 'cheap') } })).job.predicted.costUsd.p50!;
    // about 4 × 0.004 + 6 × 0.0004 = 0.0184 of about 0.04 (the bins' figures)
    expect(shifted / without).toBeGreaterThan(0.4);
    expect(shifted / without).toBeLessThan(0.5);
    // one step can only run where it started: a one-step task is the same with its ladder or without
    const oneStep: TaskPlan = { ...task(0, statsOf(40, 0, 0.04, 1)), budget: { costUsd: 0.02 } };
    expect(forecastPlan(one({ ...oneStep, selfShift: { at: 0.8, to: task(0, cheapSteps, 'cheap') } })).job.predicted).toEqual(
      forecastPlan(one(oneStep)).job.predicted,
    );
  });

  it("plans a task's own ladder when it has a budget: its rung above the floor, and the threshold", () => {
    const agents = Object.fromEntries(['pricey', 'cheap'].map((id) => [id, { id, capabilities: [], maxSteps: 10, timeoutSeconds: 30 }]));
    const stats = new Map([
      ['pricey', new Map([['fanout' as const, pricey]])],
      ['cheap', new Map([['fanout' as const, cheap]])],
    ]);
    const downshift = { threshold: 0.7, qualityFloor: 0.9, agents: ['pricey', 'cheap'], byCost: false };
    const job: ForecastJob = {
      pattern: 'fanout',
      tasks: [
        { id: 'a', agents: ['pricey'], budget: { costUsd: 0.01 }, downshift },
        { id: 'b', agents: ['pricey'], downshift },
      ],
    };
    const [a, b] = planOf(job, agents, stats, 30).children as TaskPlan[];
    expect(a.selfShift?.at).toBe(0.7);
    expect(a.selfShift?.to.agent).toBe('cheap');
    // without a budget of its own there is no threshold to pass
    expect(b.selfShift).toBeUndefined();
  });
});
