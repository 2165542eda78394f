import { describe, expect, it } from 'vitest';
import type { JobSpec } from '../../schemas';
import { runJob, uniqueId } from '../helpers';

const sim = (id: string, params: Record<string, unknown>, extra: Partial<JobSpec['tasks'][number]> = {}) => ({
  id,
  question: `task ${id}`,
  agent: 'sim',
  params,
  ...extra,
});

describe('subtask budgets', () => {
  it('halts a 10-step subtask at its cost cap: partial after 5 steps, 0.05 spent', async () => {
    const r = await runJob({
      jobId: uniqueId('cost'),
      pattern: 'fanout',
      tasks: [sim('t', { steps: 10, costUsd: 0.01 }, { budget: { costUsd: 0.05 } })],
    });
    expect(r.results[0]).toMatchObject({ status: 'partial', failureReason: 'budget_exhausted', metrics: { steps: 5 } });
    expect(r.results[0].metrics.costUsd).toBeCloseTo(0.05, 10);
  });

  it('adds money exactly: step costs of 0.01, 0.05 and 3 × 0.1 report 0.3 and 0.36, not float dust', async () => {
    const r = await runJob({
      jobId: uniqueId('exact'),
      pattern: 'fanout',
      budget: { costUsd: 1 },
      tasks: [sim('a', { costUsd: 0.01 }), sim('b', { costUsd: 0.05 }), sim('c', { steps: 3, costUsd: 0.1 })],
    });
    expect(r.results.map((x) => x.metrics.costUsd)).toEqual([0.01, 0.05, 0.3]);
    expect(r.metrics.costUsd).toBe(0.36);
    expect(r.budget?.ledger.costUsd).toEqual({ limit: 1, spent: 0.36, reserved: 0, remaining: 0.64 });
    // no dollar value anywhere in the result carries float dust (0.30000000000000004)
    expect(JSON.stringify(r)).not.toMatch(/\d\.\d*(0000000|9999999)\d/);
  });

  it('caps tool calls; an agent that ignores the budget overshoots by at most the step in flight', async () => {
    const r = await runJob({
      jobId: uniqueId('tools'),
      pattern: 'fanout',
      tasks: [
        sim('honours', { steps: 10, toolCalls: 2, tools: ['search'] }, { scope: ['search'], budget: { toolCalls: 5 } }),
        sim('ignores', { steps: 10, toolCalls: 2, tools: ['search'], ignoreBudget: true }, { scope: ['search'], budget: { toolCalls: 5 } }),
      ],
    });
    const [honours, ignores] = r.results;
    expect(honours).toMatchObject({ status: 'partial', failureReason: 'budget_exhausted', metrics: { toolCalls: 5, steps: 3 } });
    expect(ignores).toMatchObject({ status: 'partial', failureReason: 'budget_exhausted', metrics: { toolCalls: 6, steps: 3 } });
  });

  it('cuts a slow step when the latency budget runs out and keeps the steps done', async () => {
    const r = await runJob({
      jobId: uniqueId('latency'),
      pattern: 'fanout',
      // step 1 ends at ~4 s, step 2 is cut at 6 s: 2 s of slack for a loaded machine to start the subtask
      tasks: [sim('slow', { steps: 3, latencyMs: 4000, answer: 'never' }, { budget: { latencySeconds: 6 } })],
    });
    const t = r.results[0];
    expect(t).toMatchObject({ status: 'partial', failureReason: 'budget_exhausted', metrics: { steps: 1 } });
    expect(t.data).toBeUndefined();
    expect(t.errors.join(' ')).toContain('latency budget');
  });
});

describe('job budgets cap their children', () => {
  it('greedy, five children wanting 0.04 under a 0.10 job budget: never more than 0.10, clipped and refused reported', async () => {
    const r = await runJob({
      jobId: uniqueId('cap'),
      pattern: 'fanout',
      allocation: 'greedy',
      budget: { costUsd: 0.1 },
      tasks: ['a', 'b', 'c', 'd', 'e'].map((id) => sim(id, { steps: 4, costUsd: 0.01, latencyMs: 100 }, { budget: { costUsd: 0.04 } })),
    });
    expect(r.metrics.costUsd).toBeLessThanOrEqual(0.1 + 1e-9);
    expect(r.budget?.clipped).toEqual(['c']);
    expect(r.budget?.refused).toEqual(['d', 'e']);
    expect(r.results.map((x) => [x.id, x.status, x.failureReason])).toEqual([
      ['a', 'success', null],
      ['b', 'success', null],
      ['c', 'partial', 'budget_exhausted'],
      ['d', 'failure', 'budget_exhausted'],
      ['e', 'failure', 'budget_exhausted'],
    ]);
    expect(r.budget?.ledger.costUsd).toMatchObject({ limit: 0.1, reserved: 0 });
    expect(r.budget!.ledger.costUsd.spent).toBeCloseTo(0.1, 10);
  });

  it('fair (the default), the same five: each gets a fifth, all clipped, none refused, never more than 0.10', async () => {
    const r = await runJob({
      jobId: uniqueId('cap-fair'),
      pattern: 'fanout',
      budget: { costUsd: 0.1 },
      tasks: ['a', 'b', 'c', 'd', 'e'].map((id) => sim(id, { steps: 4, costUsd: 0.01, latencyMs: 100 }, { budget: { costUsd: 0.04 } })),
    });
    expect(r.metrics.costUsd).toBeLessThanOrEqual(0.1 + 1e-9);
    expect(r.budget?.clipped).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(r.budget?.refused).toEqual([]);
    expect(r.results.map((x) => x.metrics.costUsd)).toEqual([0.02, 0.02, 0.02, 0.02, 0.02]);
  });

  it('splits a job budget fairly between children that bring none', async () => {
    const r = await runJob({
      jobId: uniqueId('fair'),
      pattern: 'fanout',
      budget: { tokens: 900 },
      tasks: ['a', 'b', 'c'].map((id) => sim(id, { steps: 10, tokens: 100 })),
    });
    expect(r.results.map((x) => x.metrics.tokens)).toEqual([300, 300, 300]);
    expect(r.budget?.refused).toEqual([]);
  });

  it('a nested job cannot spend beyond the allocation its parent gave it', async () => {
    const r = await runJob({
      jobId: uniqueId('nestcap'),
      pattern: 'fanout',
      budget: { costUsd: 0.05 },
      tasks: [
        {
          id: 'inner',
          question: 'nested',
          budget: { costUsd: 0.5 },
          job: { pattern: 'fanout', tasks: ['x', 'y', 'z'].map((id) => sim(id, { steps: 5, costUsd: 0.01 })) },
        },
      ],
    });
    expect(r.metrics.costUsd).toBeLessThanOrEqual(0.05 + 1e-9);
    expect(r.metrics.costUsd).toBeGreaterThan(0.04);
    expect(r.budget?.clipped).toEqual(['inner']);
  });
});
