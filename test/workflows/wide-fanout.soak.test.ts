/**
 * Soak: fan-outs above the batching threshold (500 tasks) run as a tree of batch jobs, return
 * every result in order, stop early at a quorum and hand a merged output on. Hundreds of
 * children each: `npm run test:soak`. The payload-limit cases are in wide-fanout.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { JobResult } from '../../schemas';
import { BATCH_SIZE, BATCH_THRESHOLD } from '../../workflows/patterns/batching';
import { finalResult, testClient, uniqueId, useApp } from '../helpers';

const app = useApp();

describe('wide fan-out as a tree of batches', () => {
  it('runs a fan-out above the batching threshold in batches and returns every result in order', async () => {
    const n = BATCH_THRESHOLD + 100;
    const jobId = uniqueId('wide');
    // long questions (echoed back as data and summary) make each batch's own result spill too
    const pad = ' '.repeat(3200);
    const tasks = Array.from({ length: n }, (_, i) => ({ id: `t${i}`, question: `q${i}${pad}`, agent: 'echo' }));
    const submit = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: { jobId, pattern: 'fanout', maxParallel: 200, budget: { costUsd: 1 }, tasks },
    });
    expect(submit.statusCode).toBe(201);
    const res = await finalResult(app, jobId);
    expect(res.statusCode).toBe(200);
    const r = res.json() as JobResult;
    expect(r.status).toBe('success');
    expect(r.results).toHaveLength(n);
    expect(r.results.map((x) => x.id)).toEqual(tasks.map((t) => t.id));
    expect(Object.keys(r.output as object)).toHaveLength(n);
    expect((r.output as Record<string, string>).t599.trim()).toBe('q599');
    expect(r.metrics).toMatchObject({ subtasks: n, steps: n, attempts: n });
    expect(r.batches?.map((b) => b.tasks)).toEqual([BATCH_SIZE, BATCH_SIZE, n - 2 * BATCH_SIZE]);

    // the tree is real: the root holds batches, each batch holds its subtasks, ids derive from both
    const client = await testClient();
    const root = `job/default/${jobId}`;
    expect(r.batches?.[0].workflowId).toBe(`${root}/batch-0001`);
    const leaf = await client.workflow.getHandle(`${root}/batch-0003/t599`).describe();
    expect(leaf.status.name).toBe('COMPLETED');
  });

  it('stops a batched fan-out soon after its quorum, inside the batches too', async () => {
    const jobId = uniqueId('widequorum');
    const tasks = Array.from({ length: BATCH_THRESHOLD + 2 }, (_, i) => ({
      id: `q${i}`,
      question: 'q',
      agent: 'sim',
      params: { latencyMs: 200 },
    }));
    await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: { jobId, pattern: 'fanout', aggregation: { strategy: 'merge', quorum: 2 }, tasks },
    });
    const res = await finalResult(app, jobId);
    const r = res.json() as JobResult;
    expect(r.status).toBe('success');
    expect(r.results).toHaveLength(tasks.length);
    const ran = r.results.filter((x) => x.metrics.steps > 0).length;
    expect(ran).toBeGreaterThanOrEqual(2);
    // the quorum stopped the job early: most tasks never ran their step and were cancelled (how many
    // finished first depends on the machine's speed, so the bound is behavioural, not a count)
    expect(ran).toBeLessThan(tasks.length / 2);
    expect(r.results.filter((x) => x.failureReason === 'cancelled').length).toBeGreaterThan(tasks.length / 2);
  });

  it("hands a nested wide fan-out's merged output to the next pipeline stage", async () => {
    const jobId = uniqueId('widepipe');
    const wide = Array.from({ length: BATCH_THRESHOLD + 1 }, (_, i) => ({ id: `w${i}`, question: `a${i}`, agent: 'echo' }));
    await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        jobId,
        pattern: 'pipeline',
        tasks: [
          { id: 'gather', question: 'gather', job: { pattern: 'fanout', tasks: wide } },
          { id: 'use', question: 'use it', agent: 'sim', params: { echoPrevious: true } },
        ],
      },
    });
    const res = await finalResult(app, jobId);
    const r = res.json() as JobResult;
    expect(r.status).toBe('success');
    const merged = r.output as Record<string, string>;
    expect(Object.keys(merged)).toHaveLength(wide.length);
    expect(merged.w500).toBe('a500');
    expect(r.results[0].summary).toContain(`${wide.length} subtasks`);
  });
});
