import { describe, expect, it } from 'vitest';
import type { TaskResult } from '../../schemas';
import { emptyProgress, progressOfResults, tally, withBatchProgress } from '../../core/progress';

const result = (id: string, status: TaskResult['status']): TaskResult => ({
  id,
  agentId: 'sim',
  status,
  summary: '',
  evidence: [],
  citations: [],
  followUps: [],
  confidence: 1,
  metrics: { latencyMs: 0, costUsd: 0, tokens: 0, toolCalls: 0, steps: 1, attempts: 1, channelsHit: [] },
  failureReason: status === 'failure' ? 'agent_error' : null,
  errors: [],
});

describe('progress counts', () => {
  it('counts finished results as completed, split by outcome', () => {
    const rs = [result('a', 'success'), result('b', 'partial'), result('c', 'failure'), result('d', 'success')];
    expect(progressOfResults(rs)).toEqual({ total: 4, pending: 0, running: 0, completed: 4, succeeded: 2, partial: 1, failed: 1 });
    expect(progressOfResults([])).toEqual(emptyProgress());
  });

  it('tallies by state, an outcome only once there is one, n at a time', () => {
    const c = emptyProgress();
    tally(c, 'pending', undefined, 250);
    tally(c, 'running', undefined);
    tally(c, 'completed', 'partial');
    expect(c).toEqual({ total: 252, pending: 250, running: 1, completed: 1, succeeded: 0, partial: 1, failed: 0 });
  });

  it("replaces a running batch's tasks (all counted running) by the batch's own counts", () => {
    // the job: one batch of 250 running, one task done
    const jobCounts = { total: 251, pending: 0, running: 250, completed: 1, succeeded: 1, partial: 0, failed: 0 };
    const batch = { total: 250, pending: 100, running: 50, completed: 100, succeeded: 90, partial: 4, failed: 6 };
    const out = withBatchProgress(jobCounts, batch);
    expect(out).toEqual({ total: 251, pending: 100, running: 50, completed: 101, succeeded: 91, partial: 4, failed: 6 });
    expect(out.pending + out.running + out.completed).toBe(out.total);
    expect(jobCounts.running).toBe(250);
  });
});
