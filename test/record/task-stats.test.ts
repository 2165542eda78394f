/**
 * The record's task statistics on both stores: the archive adds each measured subtask to
 * its agent's bins in the same transaction, a window sums its days (older days left out),
 * concurrent archives lose no count, and quantiles read back match the values archived
 * within the bins' error.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { ArchiveInput } from '../../record';
import { DAY_MS } from '../../record/task-stats';
import { quantile } from '../../core/forecast-sketch';
import { taskResult } from '../task-result';
import { openFreshRecord, RECORD_STORES } from '../record-stores';

const NOW = Date.UTC(2026, 5, 15, 12);

/** A finished vote job of `agent` tasks with these costs (dollars) and latencies (ms). */
function job(
  tenant: string,
  jobId: string,
  agent: string,
  costs: number[],
  closedAt = NOW,
  status: 'success' | 'failure' = 'success',
): ArchiveInput {
  return {
    tenant,
    jobId,
    workflowId: `job/${tenant}/${jobId}`,
    specHash: null,
    startedAt: closedAt - 1000,
    closedAt,
    result: {
      jobId,
      pattern: 'vote',
      status,
      output: null,
      results: costs.map((c, k) =>
        taskResult(`t${k}`, null, {
          agentId: agent,
          status,
          failureReason: status === 'failure' ? 'agent_error' : null,
          metrics: { latencyMs: 1000 * (k + 1), costUsd: c, tokens: 100, toolCalls: 1, steps: 2, attempts: 1, channelsHit: [] },
        }),
      ),
      evidence: [],
      followUps: [],
      metrics: {
        latencyMs: 0,
        costUsd: 0,
        tokens: 0,
        toolCalls: 0,
        steps: 0,
        attempts: 0,
        channelsHit: [],
        subtasks: costs.length,
        savedUsd: 0,
      },
    },
  };
}

describe.each(RECORD_STORES)('record task statistics on %s', (kind) => {
  const record = openFreshRecord(kind);

  it('counts every archived subtask once, per agent and pattern, within the window only', async () => {
    const costs = Array.from({ length: 40 }, (_, k) => 0.01 * (k + 1));
    await record.store.archive(job('acme', 'j1', 'alpha', costs.slice(0, 20)));
    await record.store.archive(job('acme', 'j2', 'alpha', costs.slice(20)));
    // a second archive of the same job writes nothing, statistics included
    await record.store.archive(job('acme', 'j2', 'alpha', costs.slice(20)));
    await record.store.archive(job('acme', 'old', 'alpha', [5, 5, 5], NOW - 40 * DAY_MS));
    await record.store.archive(job('other', 'j1', 'alpha', [9]));
    await record.store.archive(job('acme', 'j3', 'beta', [0.5], NOW, 'failure'));

    const stats = await record.store.stats.window('acme', ['alpha', 'beta', 'nobody'], { now: NOW });
    expect([...stats.keys()].sort()).toEqual(['alpha', 'beta']);
    const alpha = stats.get('alpha')!.get('vote')!;
    expect({ runs: alpha.runs, success: alpha.success, failure: alpha.failure }).toEqual({ runs: 40, success: 40, failure: 0 });
    const p50 = quantile(alpha.hist.costMicros, 0.5)! / 1e6;
    const p90 = quantile(alpha.hist.costMicros, 0.9)! / 1e6;
    expect(Math.abs(p50 - 0.2) / 0.2).toBeLessThan(0.09);
    expect(Math.abs(p90 - 0.36) / 0.36).toBeLessThan(0.09);
    expect(stats.get('beta')!.get('vote')!).toMatchObject({ runs: 1, failure: 1 });
    // the old job counts in a window long enough to reach it
    const long = await record.store.stats.window('acme', ['alpha'], { now: NOW, days: 60 });
    expect(long.get('alpha')!.get('vote')!.runs).toBe(43);
  });

  it('counts a failure for each agent a fallback moved on from', async () => {
    const j = job('fb', 'f1', 'second', [0.02]);
    j.result.results[0].agentsTried = [
      { agent: 'first', outcome: 'failure', reason: 'agent_error' },
      { agent: 'second', outcome: 'success' },
    ];
    await record.store.archive(j);
    const stats = await record.store.stats.window('fb', ['first', 'second'], { now: NOW });
    expect(stats.get('first')!.get('vote')!).toMatchObject({ runs: 1, failure: 1 });
    expect(stats.get('first')!.get('vote')!.hist.costMicros.size).toBe(0);
    expect(stats.get('second')!.get('vote')!).toMatchObject({ runs: 1, success: 1 });
  });

  it('leaves out a task the budget refused before its first step: it says nothing of its agent', async () => {
    const j = job('refused', 'r1', 'agent', [0.02, 0]);
    Object.assign(j.result.results[1], { status: 'failure', failureReason: 'budget_exhausted' });
    j.result.results[1].metrics.steps = 0;
    await record.store.archive(j);
    const stats = await record.store.stats.window('refused', ['agent'], { now: NOW });
    expect(stats.get('agent')!.get('vote')!).toMatchObject({ runs: 1, success: 1, failure: 0 });
  });

  it('loses no count when archives of one agent run at once', async () => {
    await Promise.all(Array.from({ length: 12 }, (_, i) => record.store.archive(job('race', `r${i}`, 'gamma', [0.01, 0.02, 0.03]))));
    const stats = await record.store.stats.window('race', ['gamma'], { now: NOW });
    const s = stats.get('gamma')!.get('vote')!;
    expect(s.runs).toBe(36);
    expect([...s.hist.steps.values()].reduce((a, n) => a + n, 0)).toBe(36);
    // bounded: one row per occupied (metric, bin) of the day, not one per subtask
    const rows = await sql<{ n: number }>`SELECT count(*) AS n FROM task_stats WHERE tenant = 'race'`.execute(record.db.db);
    expect(Number(rows.rows[0].n)).toBeLessThan(20);
  });
});
