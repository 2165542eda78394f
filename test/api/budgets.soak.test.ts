/**
 * Soak: a subtask top-up reaches the task inside a batch of a wide fan-out (501 tasks, three
 * batch jobs). Hundreds of children: `npm run test:soak`; the other top-ups are in budgets.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { JobResult, JobView } from '../../schemas';
import { finalResult, pollUntil, testClient, uniqueId, useApp, waitForSubtask } from '../helpers';
import { jobStatusQuery } from '../../contracts/messages';

const app = useApp();

const post = (url: string, payload: object = {}) => app.inject({ method: 'POST', url, payload });
const view = async (jobId: string) => (await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}` })).json() as JobView;

describe('top-ups reach subtasks inside batches and nested jobs', () => {
  it('a subtask top-up finds the batch that holds the task', async () => {
    const jobId = uniqueId('batchtop');
    const tasks = [
      {
        id: 'w',
        question: 'two steps',
        agent: 'sim',
        params: { steps: 2, costUsd: 0.01, answer: 'fed' },
        budget: { costUsd: 0.01 },
        budgetWaitSeconds: 60,
      },
      ...Array.from({ length: 500 }, (_, i) => ({ id: `e${i}`, question: 'q', agent: 'echo' })),
    ];
    expect((await post('/v1/jobs', { jobId, pattern: 'fanout', budget: { costUsd: 5 }, tasks })).statusCode).toBe(201);
    const client = await testClient();
    await waitForSubtask(`${jobId}/batch-0001`, 'w', 'waiting_for_budget');
    // progress counts real subtasks, not batches, while the job runs
    const live = (await view(jobId)).progress!;
    expect(live.total).toBe(501);
    expect(live.pending + live.running + live.completed).toBe(501);
    expect(live.running).toBeGreaterThanOrEqual(1);
    const top = await post(`/v1/jobs/${jobId}/subtasks/w/budget`, { add: { costUsd: 0.01 } });
    expect(top.statusCode).toBe(200);
    // granted from what the job holds unreserved: fair grants reserve the job's whole budget to its running
    // batches, down to a remainder of micro-dollars the splits leave (CI: 0.009981 of 0.01)
    expect(top.json().granted.costUsd).toBeCloseTo(0.01, 4);
    expect((await post(`/v1/jobs/${jobId}/subtasks/nobody/budget`, { add: { costUsd: 0.01 } })).statusCode).toBe(404);
    // a finished task inside a running batch is not topped up
    await pollUntil(
      async () => {
        const b = await client.workflow.getHandle(`job/default/${jobId}/batch-0001`).query(jobStatusQuery);
        return b.subtasks.find((x) => x.id === 'e0')?.state === 'completed';
      },
      'e0 never completed',
      60_000,
    );
    expect((await post(`/v1/jobs/${jobId}/subtasks/e0/budget`, { add: { costUsd: 0.01 } })).statusCode).toBe(409);

    const res = await finalResult(app, jobId);
    const r = res.json() as JobResult;
    expect(r.results[0]).toMatchObject({ id: 'w', status: 'success', data: 'fed', metrics: { steps: 2 } });
    const v = await view(jobId);
    expect(v.subtasks?.[0].workflowId).toBe(`job/default/${jobId}/batch-0001/w`);
    expect(v.subtasks?.[500].workflowId).toBe(`job/default/${jobId}/batch-0003/e499`);
  });
});
