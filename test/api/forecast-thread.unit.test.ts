import { afterAll, describe, expect, it } from 'vitest';
import { createForecastThreads } from '../../api/forecast-thread';
import type { ForecastJob } from '../../api/forecast-thread-plan';
import { forecastWork, type ForecastWork } from '../../api/forecast-thread-replan';
import { HttpProblem } from '../../api/errors';

// the pool of this file: a time bound far past what these forecasts take on a loaded host (under
// stress-ng a 10,000-task forecast took over 1.5 s); the bound's own test has a pool with a short one
const pool = createForecastThreads({ size: 2, timeoutMs: 30_000, perTenant: 2 });
const shortBound = createForecastThreads({ size: 2, timeoutMs: 1500, perTenant: 2 });
afterAll(() => {
  pool.close();
  shortBound.close();
});

const agents = { sim: { id: 'sim', capabilities: [], maxSteps: 10, timeoutSeconds: 30 } };
/** `votes` votes of `voters` sim voters under a latency budget no task without history can meet. */
const votesJob = (votes: number, voters: number): ForecastJob => ({
  pattern: 'fanout',
  budget: { latencySeconds: 1 },
  tasks: Array.from({ length: votes }, (_, v) => ({
    id: `vote${v}`,
    agents: [],
    job: { pattern: 'vote', tasks: Array.from({ length: voters }, (_, i) => ({ id: `v${v}-${i}`, agents: ['sim'], ref: 'sim' })) },
  })),
});
const work = (job: ForecastJob, admission?: ForecastWork['admission']): ForecastWork => ({
  job,
  agents,
  stats: new Map(),
  days: 30,
  ...(admission ? { admission } : {}),
});

describe('forecast threads', () => {
  it('forecast in a thread what the event loop would, and the loop stays free meanwhile', async () => {
    let ticks = 0;
    const tick = setInterval(() => ticks++, 20);
    const big = work(votesJob(10, 1000));
    const began = performance.now();
    const outcome = await pool.forTenant('a', (forecast) => forecast(big));
    const ms = performance.now() - began;
    clearInterval(tick);
    expect(outcome.forecast).toEqual(forecastWork(big).forecast);
    expect(outcome.forecast.samples).toBe(200);
    // a stalled loop would have ticked about once
    expect(ticks).toBeGreaterThan(ms / 20 / 4);
  });

  it('refuses a tenant past its forecasts at once with 429 and Retry-After, while another tenant is served', async () => {
    const slow = work(votesJob(10, 1000));
    const held = [pool.forTenant('hog', (f) => f(slow)), pool.forTenant('hog', (f) => f(slow))];
    const refused = await pool.forTenant('hog', (f) => f(slow)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(HttpProblem);
    expect(refused).toMatchObject({ status: 429, title: 'Too many forecasts', headers: { 'retry-after': '5' } });
    // a tenant runs on size - 1 threads: the other is free for anyone else
    const mine = await pool.forTenant('other', (f) => f(work(votesJob(1, 3))));
    expect(mine.forecast.job.children).toHaveLength(1);
    await Promise.all(held);
    // its places are back once they are answered
    await expect(pool.forTenant('hog', (f) => f(work(votesJob(1, 3))))).resolves.toBeDefined();
  });

  it('stops a forecast past its time bound with 503, and answers the next call', async () => {
    const endless = work(votesJob(10, 1000), { confidence: 0.99, replan: true, maxDraws: 1e12, maxMs: 1e9 });
    const err = await shortBound.forTenant('a', (f) => f(endless)).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503, detail: expect.stringMatching(/^the forecast passed its bound of 1500 ms and was stopped/) });
    await expect(shortBound.forTenant('a', (f) => f(work(votesJob(1, 3))))).resolves.toBeDefined();
  });
});

describe('the re-plan', () => {
  it('stops at its bound of draws, the same for every run', () => {
    const job = votesJob(10, 100);
    // a forecast of 1,000 tasks draws 1,000 samples of each: 1M; the bound leaves room for the first and four candidates
    const a = forecastWork(work(job, { confidence: 0.99, replan: true, maxDraws: 5_000_000, maxMs: 1e9 }));
    expect(a.replan).toMatchObject({ stopped: 'draws', changes: [] });
    expect(forecastWork(work(job, { confidence: 0.99, replan: true, maxDraws: 5_000_000, maxMs: 1e9 }))).toEqual(a);
  });

  it('stops at its time bound on a host too loaded to spend its draws, with what it has', () => {
    const { replan } = forecastWork(work(votesJob(2, 10), { confidence: 0.99, replan: true, maxDraws: 1e12, maxMs: 0 }));
    expect(replan).toMatchObject({ stopped: 'time', changes: [] });
  });

  it("answers an admission's forecasts with their first 200 nodes and says so; an estimate with every task", () => {
    const nodes = (n: { children?: unknown[] }): number =>
      1 + (n.children ?? []).reduce<number>((s, c) => s + nodes(c as { children?: unknown[] }), 0);
    const job = votesJob(10, 1000);
    const { forecast, replan } = forecastWork(work(job, { confidence: 0.99, replan: true, maxDraws: 5_000_000, maxMs: 1e9 }));
    for (const f of [forecast, replan!.best]) {
      expect(nodes(f.job)).toBe(200);
      expect(f.job.children).toHaveLength(10);
      expect(f.notes.at(-1)).toMatch(/^only the first 200 of the plan's nodes are shown/);
    }
    expect(nodes(forecastWork(work(job)).forecast.job)).toBe(1 + 10 + 10_000);
  });

  it('drops voters until the budget fits, as many rounds as it takes', () => {
    const job: ForecastJob = {
      pattern: 'vote',
      // no history: each voter's figures are its own budget, so five voters fit the job's ten tool calls
      budget: { toolCalls: 10 },
      tasks: Array.from({ length: 8 }, (_, i) => ({
        id: `v${i + 1}`,
        agents: ['sim'],
        ref: 'sim',
        budget: { toolCalls: 2, costUsd: 0.1 },
      })),
    };
    const { replan } = forecastWork(work(job, { confidence: 0.9, replan: true, maxDraws: 1e9, maxMs: 1e9 }));
    expect(replan?.changes.map((c) => c.text)).toEqual([
      'job: 8 → 7 voters (dropped v8)',
      'job: 7 → 6 voters (dropped v7)',
      'job: 6 → 5 voters (dropped v6)',
    ]);
    expect(replan?.best.budgetSuffices).toBe(1);
  });
});
