/**
 * Adaptive routing's choice on synthetic histories: a clearly better agent gets nearly every
 * task, an untried one still gets some (exploration), cost counts as the weights say, and the
 * reason names the pick's figures.
 */
import { describe, expect, it } from 'vitest';
import { pickAdaptive, type AdaptiveCandidate, type RouteWeights } from '../../core/adaptive-route';
import { addBin, binsOf, emptyStats, type TaskStats } from '../../core/forecast-sketch';
import { seededRng } from '../../core/forecast-schedule';

function history(runs: number, successRate: number, costUsd: number, latencySeconds = 1): TaskStats {
  const s = emptyStats();
  for (let i = 0; i < runs; i++) {
    const status = i < Math.round(runs * successRate) ? 'success' : 'failure';
    const values = { costMicros: costUsd * 1e6, tokens: 10, toolCalls: 0, steps: 1, latencyMs: latencySeconds * 1000 };
    for (const { metric, bin } of binsOf({ status, values })) addBin(s, metric, bin, 1);
  }
  return s;
}

/** How often each agent is picked over `n` draws. */
function shares(candidates: AdaptiveCandidate[], weights: RouteWeights = {}, n = 1000) {
  const rnd = seededRng(3);
  const count = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const { agent } = pickAdaptive(candidates, weights, rnd);
    count.set(agent, (count.get(agent) ?? 0) + 1);
  }
  return (agent: string) => (count.get(agent) ?? 0) / n;
}

describe('adaptive routing', () => {
  it('sends nearly every task to the agent that succeeds far more often', () => {
    const share = shares([
      { agent: 'good', stats: history(50, 0.9, 0.01) },
      { agent: 'bad', stats: history(50, 0.4, 0.01) },
    ]);
    expect(share('good')).toBeGreaterThan(0.95);
  });

  it('still tries an agent it has no history of', () => {
    const share = shares([{ agent: 'known', stats: history(20, 0.8, 0.01) }, { agent: 'new' }]);
    expect(share('new')).toBeGreaterThan(0.05);
    expect(share('known')).toBeGreaterThan(0.5);
  });

  it('prefers the cheaper of two equally good agents, unless cost is weighted 0', () => {
    const pair = [
      { agent: 'cheap', stats: history(40, 0.9, 0.01) },
      { agent: 'dear', stats: history(40, 0.9, 0.1) },
    ];
    expect(shares(pair)('cheap')).toBeGreaterThan(0.9);
    const even = shares(pair, { cost: 0, latency: 0 })('cheap');
    expect(even).toBeGreaterThan(0.3);
    expect(even).toBeLessThan(0.7);
  });

  it('says why, with the figures of the pick and of what it beat', () => {
    const { agent, reason } = pickAdaptive(
      [
        { agent: 'good', stats: history(50, 0.9, 0.01, 2) },
        { agent: 'bad', stats: history(50, 0.2, 0.01, 2) },
      ],
      {},
      seededRng(1),
    );
    expect(agent).toBe('good');
    expect(reason).toMatch(
      /^adaptive \(Thompson sampling; weights success 1, cost 0.5, latency 0.25\): good [-\d.]+ \(success 90% of 50, \$0\.01\d*, \d\.\d+ s\); over bad/,
    );
  });
});
