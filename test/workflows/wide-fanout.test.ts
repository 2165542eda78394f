import { describe, expect, inject, it } from 'vitest';
import type { JobResult } from '../../schemas';
import { delegationJob } from '../../workflows/delegation-job';
import { testClient, uniqueId, useApp } from '../helpers';

const app = useApp();

// the fan-outs above the batching threshold are in wide-fanout.soak.test.ts (`npm run test:soak`)
describe('wide fan-out as a tree of batches', () => {
  it('keeps a result too large for one payload in the children, and the API stitches it back', async () => {
    const jobId = uniqueId('big');
    const blob = 'x'.repeat(240_000);
    // 7 x 240 KB: under the 1.9 MB input limit, over the 1.5 MB result limit
    const tasks = Array.from({ length: 7 }, (_, i) => ({ id: `b${i}`, question: `q${i}`, agent: 'sim', params: { answer: { i, blob } } }));
    const submit = await app.inject({ method: 'POST', url: '/v1/jobs', payload: { jobId, pattern: 'fanout', tasks } });
    expect(submit.statusCode).toBe(201);
    const res = await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}/result?waitSeconds=60` });
    expect(res.statusCode).toBe(200);
    const r = res.json() as JobResult;
    expect(r.status).toBe('success');
    expect(r.batches?.map((b) => b.kind)).toEqual(Array(7).fill('subtask'));
    expect(r.results.map((x) => (x.data as { i: number }).i)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(Object.keys(r.output as object)).toEqual(tasks.map((t) => t.id));

    // and a single step whose output would not fit is refused clearly, not retried into a stuck job
    const huge = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        jobId: uniqueId('huge'),
        pattern: 'fanout',
        tasks: [{ id: 'h', question: 'q', agent: 'sim', params: { answer: 'y'.repeat(300_000) } }],
      },
    });
    const hr = await app.inject({ method: 'GET', url: `/v1/jobs/${huge.json().jobId}/result?waitSeconds=30` });
    expect(hr.json().results[0]).toMatchObject({ status: 'failure', failureReason: 'invalid_output' });
    expect(hr.json().results[0].errors[0]).toContain('exceeds');
  });

  it('finishes a job whose evidence alone would not fit one payload, keeping every subtask result', async () => {
    const jobId = uniqueId('heavy');
    // each subtask returns 12 distinct evidence items of 19 KB: 2.3 MB in all
    const tasks = Array.from({ length: 10 }, (_, i) => ({ id: `h${i}`, question: `q${i}`, agent: 'bulky-http' }));
    await app.inject({ method: 'POST', url: '/v1/jobs', payload: { jobId, pattern: 'fanout', tasks } });
    const res = await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}/result?waitSeconds=60` });
    expect(res.statusCode).toBe(200);
    const r = res.json() as JobResult;
    expect(r.status).toBe('success');
    expect(r.results.map((x) => x.evidence.length)).toEqual(Array(10).fill(12));
    expect(r.evidence.length).toBeGreaterThan(0);
    expect(r.evidence.length).toBeLessThan(120);
    expect(r.metrics.steps).toBe(10);
  });

  it('runs a fan-out of 101–500 tasks as batches all at once; the API gives back every task in order, as if flat', async () => {
    const jobId = uniqueId('middle');
    const tasks = Array.from({ length: 120 }, (_, i) => ({ id: `m${i}`, question: `q${i}`, agent: 'echo' }));
    const submit = await app.inject({ method: 'POST', url: '/v1/jobs', payload: { jobId, pattern: 'fanout', maxParallel: 20, tasks } });
    expect(submit.statusCode).toBe(201);
    const res = await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}/result?waitSeconds=60` });
    expect(res.statusCode).toBe(200);
    const r = res.json() as JobResult;
    expect(r).toMatchObject({ status: 'success', metrics: { subtasks: 120 } });
    expect(r.results.map((x) => x.id)).toEqual(tasks.map((t) => t.id));
    expect(Object.keys(r.output as object)).toEqual(tasks.map((t) => t.id));
    // two batches of 60 (at least 50 each), each with half the job's maxParallel
    expect(r.batches?.map((b) => b.id)).toEqual(['batch-0001', 'batch-0002']);
    const status = await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}` });
    expect(status.json()).toMatchObject({ status: 'success', progress: { total: 120, succeeded: 120 } });
  });

  it('runs the same fan-out flat where the deployment says so (DELEGATE_FANOUT_FLAT_MAX 500: the dev server)', async () => {
    const jobId = uniqueId('flat');
    const tasks = Array.from({ length: 120 }, (_, i) => ({ id: `f${i}`, question: `q${i}`, agent: 'echo' }));
    const client = await testClient();
    const r = await client.workflow.execute(delegationJob, {
      taskQueue: inject('taskQueue'),
      workflowId: `job/test/${jobId}`,
      args: [{ spec: { jobId, pattern: 'fanout', maxParallel: 20, tasks }, tenant: 'test', limits: { fanoutFlatMax: 500 } }],
    });
    expect(r).toMatchObject({ status: 'success', metrics: { subtasks: 120 } });
    expect(r.batches).toBeUndefined();
    expect(r.results.map((x) => x.id)).toEqual(tasks.map((t) => t.id));
    // its children are the tasks themselves, one level below the job
    const child = await client.workflow.getHandle(`job/test/${jobId}/f7`).describe();
    expect(child.status.name).toBe('COMPLETED');
  });
});
