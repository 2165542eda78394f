/** The CLI's progress line: leaves counted once, nested jobs not counted twice, spend vs budget. */
import { describe, expect, it } from 'vitest';
import type { JobEvent } from 'delegate/client';
import { JobProgressLine } from '../../cli/progress';

let seq = 0;
const ev = (type: JobEvent['type'], data: Record<string, unknown>) => ({ seq: ++seq, type, at: '2026-11-30T00:00:00Z', data }) as JobEvent;

describe('JobProgressLine', () => {
  it('counts finished leaves (not the nested job holding them), sums step spend, follows the budget', () => {
    const p = new JobProgressLine('j1', 3, 0.1);
    const root = 'job/default/j1';
    p.apply(ev('subtask.started', { taskId: 'a', workflowId: `${root}/a` }));
    p.apply(ev('subtask.started', { taskId: 'n', workflowId: `${root}/n` }));
    p.apply(ev('subtask.started', { taskId: 'x', workflowId: `${root}/n/x` }));
    p.apply(ev('subtask.step', { taskId: 'a', usage: { costUsd: 0.01, tokens: 10 } }));
    p.apply(ev('subtask.step', { taskId: 'x', usage: { costUsd: 0.02, tokens: 10 } }));
    expect(p.apply(ev('subtask.finished', { taskId: 'a', workflowId: `${root}/a`, status: 'success' }))).toBe(
      '[1/3] a success · $0.03 of $0.10',
    );
    p.apply(ev('subtask.finished', { taskId: 'x', workflowId: `${root}/n/x`, status: 'partial', failureReason: 'budget_exhausted' }));
    // the nested job's own finish, and a repeat of a leaf's: neither counts
    expect(p.apply(ev('subtask.finished', { taskId: 'n', workflowId: `${root}/n`, status: 'partial' }))).toBeUndefined();
    expect(p.apply(ev('subtask.finished', { taskId: 'a', workflowId: `${root}/a`, status: 'success' }))).toBeUndefined();
    expect(p.done).toBe(2);
    p.apply(ev('budget.changed', { ledger: { costUsd: { limit: 0.5, spent: 0.03, reserved: 0, remaining: 0.47 } } }));
    expect(p.line(10)).toBe('j1 ███████░░░ 2/3 subtasks · $0.03 of $0.50');
    expect(p.apply(ev('job.finished', { status: 'partial', metrics: { costUsd: 0.04 } }))).toBe('job j1 partial · $0.04 of $0.50');
    expect(p.line(10)).toContain('· partial');
  });

  it('takes counts and spend from a job view when there are no events', () => {
    const p = new JobProgressLine('j2', 5);
    p.fromView({
      jobId: 'j2',
      workflowId: 'w',
      state: 'running',
      links: { self: '', result: '', temporalUi: '' },
      progress: { total: 4, pending: 1, running: 1, completed: 2, succeeded: 2, partial: 0, failed: 0 },
      ledger: { costUsd: { limit: null, spent: 1.5, reserved: 0, remaining: null } } as never,
    });
    expect(p.line(4)).toBe('j2 ██░░ 2/4 subtasks · $1.50');
  });
});
