import { describe, expect, it } from 'vitest';
import { taskResult } from '../task-result';
import { emptyMetrics } from '../../core/task-results';
import type { JobBatch, JobResult, TaskResult } from '../../schemas';
import { batchesToFetch, stitchBatches, type FetchedChildren } from '../../core/stitching';

const result = taskResult;
const job = (jobId: string, extra: Partial<JobResult> = {}): JobResult => ({
  jobId,
  pattern: 'fanout',
  status: 'success',
  output: null,
  results: [],
  evidence: [],
  followUps: [],
  metrics: { ...emptyMetrics(), steps: 0, attempts: 0, subtasks: 0, savedUsd: 0 },
  ...extra,
});
const entry = (id: string, kind: JobBatch['kind'], tasks = 1, extra: Partial<JobBatch> = {}): JobBatch => ({
  id,
  workflowId: `job/t/root/${id}`,
  tasks,
  kind,
  status: 'success',
  ...extra,
});
const fetched = (tasks: [string, TaskResult][] = [], jobs: [string, JobResult][] = []): FetchedChildren => ({
  tasks: new Map(tasks),
  jobs: new Map(jobs),
});

describe('stitching a spilled job result', () => {
  it('leaves a result without batches as it is', () => {
    const r = job('flat', { results: [result('a', 1)], output: { a: 1 } });
    expect(stitchBatches(r, fetched())).toBe(r);
    expect(batchesToFetch(r)).toEqual([]);
  });

  it('puts batches of batches back in task order, each level stitched by its own call', () => {
    // batch-0001 spilled too: its results live in its two subtasks
    const inner = job('b1', { batches: [entry('t0', 'subtask'), entry('t1', 'subtask')], output: { t0: 'x0', t1: 'x1' } });
    const b1 = stitchBatches(
      inner,
      fetched([
        ['t0', result('t0', 'x0')],
        ['t1', result('t1', 'x1')],
      ]),
    );
    expect(b1.results.map((r) => r.id)).toEqual(['t0', 't1']);
    const b2 = job('b2', { results: [result('t2', 'x2'), result('t3', 'x3')], output: { t2: 'x2', t3: 'x3' } });
    const root = job('root', { batches: [entry('batch-0001', 'batch', 2), entry('batch-0002', 'batch', 2)], outputRef: { merge: true } });
    const out = stitchBatches(
      root,
      fetched(
        [],
        [
          ['batch-0002', b2],
          ['batch-0001', b1],
        ],
      ),
    );
    expect(out.results.map((r) => r.id)).toEqual(['t0', 't1', 't2', 't3']);
    expect(out.output).toEqual({ t0: 'x0', t1: 'x1', t2: 'x2', t3: 'x3' });
    // what is not stitched is kept
    expect(out.jobId).toBe('root');
    expect(out.batches).toHaveLength(2);
  });

  it('turns a batch that never started into not-run results with its reason; it is not fetched', () => {
    const root = job('root', {
      status: 'partial',
      batches: [
        entry('batch-0001', 'batch', 1),
        entry('batch-0002', 'batch', 2, { status: 'failure', notRun: { reason: 'budget_exhausted', taskIds: ['t1', 't2'] } }),
      ],
    });
    expect(batchesToFetch(root).map((b) => b.id)).toEqual(['batch-0001']);
    const out = stitchBatches(root, fetched([], [['batch-0001', job('b1', { results: [result('t0', 0)] })]]));
    expect(out.results.map((r) => [r.id, r.status, r.failureReason])).toEqual([
      ['t0', 'success', null],
      ['t1', 'failure', 'budget_exhausted'],
      ['t2', 'failure', 'budget_exhausted'],
    ]);
    expect(out.results[1].summary).toBe('not started: budget_exhausted');
  });

  it('rebuilds an output kept by reference from the task that owns it', () => {
    const root = job('p', {
      pattern: 'pipeline',
      batches: [entry('s1', 'subtask'), entry('s2', 'subtask')],
      outputRef: { taskId: 's2' },
    });
    const out = stitchBatches(
      root,
      fetched([
        ['s1', result('s1', 'draft')],
        ['s2', result('s2', { big: 'final' })],
      ]),
    );
    expect(out.output).toEqual({ big: 'final' });
    // a referenced task that left no data gives null, not undefined
    const none = stitchBatches(
      root,
      fetched([
        ['s1', result('s1', 'draft')],
        ['s2', result('s2', undefined)],
      ]),
    );
    expect(none.output).toBeNull();
  });

  it("merges across batches from each batch's merged map, skipping a batch that kept none", () => {
    const root = job('root', {
      batches: [entry('b1', 'batch', 2), entry('b2', 'batch', 1), entry('b3', 'batch', 1)],
      outputRef: { merge: true },
    });
    const out = stitchBatches(
      root,
      fetched(
        [],
        [
          // b1's map is what counts: not rebuilt from its results (t1 failed and is not in it)
          ['b1', job('b1', { results: [result('t0', 'a'), result('t1', 'b', { status: 'failure' })], output: { t0: 'a' } })],
          ['b2', job('b2', { results: [result('t2', 'c')], output: null, status: 'failure' })],
          ['b3', job('b3', { results: [result('t3', 'd')], output: { t3: 'd' } })],
        ],
      ),
    );
    expect(out.output).toEqual({ t0: 'a', t3: 'd' });
  });

  it('merges the results of mixed subtask and nested entries, a nested job as its output, failures left out', () => {
    const nested = job('n', { pattern: 'vote', status: 'success', output: 'yes', results: [result('v1', 'yes'), result('v2', 'yes')] });
    const root = job('root', {
      status: 'partial',
      batches: [entry('a', 'subtask'), entry('n', 'nested'), entry('f', 'subtask', 1, { status: 'failure' }), entry('p', 'subtask')],
      outputRef: { merge: true },
    });
    const out = stitchBatches(
      root,
      fetched(
        [
          ['a', result('a', 1)],
          ['f', result('f', 'bad', { status: 'failure', failureReason: 'agent_error' })],
          ['p', result('p', 2, { status: 'partial' })],
        ],
        [['n', nested]],
      ),
    );
    expect(out.results.map((r) => [r.id, r.agentId, r.status])).toEqual([
      ['a', 'sim', 'success'],
      ['n', 'job:vote', 'success'],
      ['f', 'sim', 'failure'],
      ['p', 'sim', 'partial'],
    ]);
    expect(out.output).toEqual({ a: 1, n: 'yes', p: 2 });
  });

  it('says which child was not fetched instead of stitching a hole', () => {
    const root = job('root', { batches: [entry('s1', 'subtask')] });
    expect(() => stitchBatches(root, fetched())).toThrow(/subtask "s1" \(job\/t\/root\/s1\) was not fetched/);
  });
});
