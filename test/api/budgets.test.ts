import { describe, expect, it } from 'vitest';
import type { JobResult, JobView } from '../../schemas';
import { pollUntil, testClient, uniqueId, useApp } from '../helpers';
import { budgetUpdate, subtaskStatusQuery } from '../../contracts/messages';

const app = useApp();

const post = (url: string, payload: object = {}) => app.inject({ method: 'POST', url, payload });
const view = async (jobId: string) => (await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}` })).json() as JobView;
const result = async (jobId: string) => {
  const res = await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}/result?waitSeconds=30` });
  expect(res.statusCode).toBe(200);
  return res.json() as JobResult;
};

/** Waits until the job's subtask `taskId` reports `phase` (from its own status query). */
async function waitForSubtask(jobId: string, taskId: string, phase: string, timeoutMs = 20_000) {
  const client = await testClient();
  let last: string | undefined;
  await pollUntil(
    async () => {
      const s = await client.workflow
        .getHandle(`job/default/${jobId}/${taskId}`)
        .query(subtaskStatusQuery)
        .catch(() => undefined);
      last = s?.phase;
      return last === phase;
    },
    () => `subtask ${taskId} never reached ${phase} (last: ${last ?? 'no answer to the status query'})`,
    timeoutMs,
  );
}

describe('live budget top-ups', () => {
  it('a job top-up lets a subtask waiting for budget finish, and answers the new ledger', async () => {
    const jobId = uniqueId('topup');
    const submit = await post('/v1/jobs', {
      jobId,
      pattern: 'fanout',
      budget: { costUsd: 0.02 },
      tasks: [
        { id: 'w', question: 'four steps', agent: 'sim', params: { steps: 4, costUsd: 0.01, answer: 'done' }, budgetWaitSeconds: 60 },
      ],
    });
    expect(submit.statusCode).toBe(201);
    await waitForSubtask(jobId, 'w', 'waiting_for_budget');

    const v = await view(jobId);
    expect(v.state).toBe('running');
    expect(v.ledger?.costUsd).toMatchObject({ limit: 0.02, reserved: 0.02 });
    expect(v.subtasks?.[0].ledger?.costUsd).toMatchObject({ limit: 0.02, spent: 0.02, remaining: 0 });

    const top = await post(`/v1/jobs/${jobId}/budget`, { add: { costUsd: 0.03 } });
    expect(top.statusCode).toBe(200);
    expect(top.json().ledger.costUsd.limit).toBeCloseTo(0.05, 10);

    const r = await result(jobId);
    expect(r.results[0]).toMatchObject({ status: 'success', data: 'done', metrics: { steps: 4 } });
    expect(r.metrics.costUsd).toBeCloseTo(0.04, 10);
  });

  it('a subtask top-up gives one running subtask more, within what the job has left', async () => {
    const jobId = uniqueId('subtop');
    await post('/v1/jobs', {
      jobId,
      pattern: 'fanout',
      budget: { costUsd: 0.05 },
      tasks: [
        {
          id: 'w',
          question: 'four steps',
          agent: 'sim',
          params: { steps: 4, costUsd: 0.01 },
          budget: { costUsd: 0.01 },
          budgetWaitSeconds: 60,
        },
      ],
    });
    await waitForSubtask(jobId, 'w', 'waiting_for_budget');
    const missing = await post(`/v1/jobs/${jobId}/subtasks/nope/budget`, { add: { costUsd: 0.01 } });
    expect(missing.statusCode).toBe(404);
    const top = await post(`/v1/jobs/${jobId}/subtasks/w/budget`, { add: { costUsd: 1 } });
    expect(top.statusCode).toBe(200);
    expect(top.json().granted.costUsd).toBeCloseTo(0.04, 10);
    const r = await result(jobId);
    expect(r.results[0]).toMatchObject({ status: 'success', metrics: { steps: 4 } });
    expect(r.metrics.costUsd).toBeLessThanOrEqual(0.05 + 1e-9);
  });

  it('a top-up is shared, not handed out whole: tasks not started yet still get to run', async () => {
    const jobId = uniqueId('fairtop');
    await post('/v1/jobs', {
      jobId,
      pattern: 'fanout',
      maxParallel: 2,
      budget: { costUsd: 0.1 },
      tasks: ['t1', 't2', 't3', 't4'].map((id) => ({
        id,
        question: 'q',
        agent: 'sim',
        params: { steps: 5, costUsd: 0.01 },
        budgetWaitSeconds: 2,
      })),
    });
    await waitForSubtask(jobId, 't1', 'waiting_for_budget');
    expect((await post(`/v1/jobs/${jobId}/budget`, { add: { costUsd: 0.01 } })).statusCode).toBe(200);
    const r = await result(jobId);
    expect(r.budget?.refused).toEqual([]);
    for (const t of r.results) expect(t.metrics.steps).toBeGreaterThanOrEqual(2);
    expect(r.metrics.costUsd).toBeLessThanOrEqual(0.11 + 1e-9);
  });

  it('a latency top-up lets a subtask whose slow step was cut run it again and finish', async () => {
    const jobId = uniqueId('latencytop');
    await post('/v1/jobs', {
      jobId,
      pattern: 'fanout',
      tasks: [
        {
          id: 's',
          question: 'slow',
          agent: 'sim',
          // 3 s past its 1 s budget: the cut must come first even when a loaded machine delays the
          // timer's workflow task (at 1.5 s it came after the step's end under the suite's own load)
          params: { latencyMs: 4000, answer: 'late but done' },
          budget: { latencySeconds: 1 },
          budgetWaitSeconds: 60,
        },
      ],
    });
    await waitForSubtask(jobId, 's', 'waiting_for_budget');
    const top = await post(`/v1/jobs/${jobId}/subtasks/s/budget`, { add: { latencySeconds: 10 } });
    expect(top.statusCode).toBe(200);
    const r = await result(jobId);
    expect(r.results[0]).toMatchObject({
      status: 'success',
      data: 'late but done',
      failureReason: null,
      metrics: { steps: 1, attempts: 2 },
    });
  });

  it('rejects an invalid top-up with 400 and changes nothing (API and workflow validator)', async () => {
    const jobId = uniqueId('badtop');
    await post('/v1/jobs', {
      jobId,
      pattern: 'fanout',
      budget: { costUsd: 0.01 },
      tasks: [{ id: 'w', question: 'q', agent: 'sim', params: { steps: 2, costUsd: 0.01 }, budgetWaitSeconds: 60 }],
    });
    await waitForSubtask(jobId, 'w', 'waiting_for_budget');
    for (const body of [{ add: { costUsd: -1 } }, { add: { costUsd: 'lots' } }, { add: {} }, { costUsd: 1 }]) {
      const res = await post(`/v1/jobs/${jobId}/budget`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    const client = await testClient();
    const handle = client.workflow.getHandle(`job/default/${jobId}`);
    await expect(handle.executeUpdate(budgetUpdate, { args: [{ add: { costUsd: -5 } }] })).rejects.toThrow();
    await expect(handle.executeUpdate(budgetUpdate, { args: [{ add: { tokens: 1.5 } }] })).rejects.toThrow();
    expect((await view(jobId)).ledger?.costUsd.limit).toBe(0.01);
    await post(`/v1/jobs/${jobId}/cancel`);
  });
});

describe('top-ups reach subtasks inside batches and nested jobs', () => {
  // a subtask top-up inside a batch of a wide fan-out (501 tasks) is in budgets.soak.test.ts (`npm run test:soak`)
  it('a job top-up flows down through a nested job to the subtask waiting in it', async () => {
    const jobId = uniqueId('flowdown');
    await post('/v1/jobs', {
      jobId,
      pattern: 'fanout',
      budget: { costUsd: 0.01 },
      tasks: [
        {
          id: 'inner',
          question: 'q',
          job: {
            pattern: 'fanout',
            tasks: [{ id: 'x', question: 'q', agent: 'sim', params: { steps: 3, costUsd: 0.01 }, budgetWaitSeconds: 60 }],
          },
        },
      ],
    });
    await waitForSubtask(`${jobId}/inner`, 'x', 'waiting_for_budget');
    const top = await post(`/v1/jobs/${jobId}/budget`, { add: { costUsd: 0.02 } });
    expect(top.statusCode).toBe(200);
    const r = await result(jobId);
    expect(r.status).toBe('success');
    expect(r.metrics.costUsd).toBeCloseTo(0.03, 10);
  });

  it('a nested job refuses a direct top-up: the root job is the one to top up', async () => {
    const jobId = uniqueId('nesttop');
    await post('/v1/jobs', {
      jobId,
      pattern: 'fanout',
      // runs until the cancel below (its step never answers)
      tasks: [
        {
          id: 'inner',
          question: 'q',
          job: { pattern: 'fanout', tasks: [{ id: 'x', question: 'q', agent: 'sim', params: { hang: true } }] },
        },
      ],
    });
    const client = await testClient();
    await waitForSubtask(`${jobId}/inner`, 'x', 'running');
    const nested = client.workflow.getHandle(`job/default/${jobId}/inner`);
    await expect(nested.executeUpdate(budgetUpdate, { args: [{ add: { costUsd: 1 } }] })).rejects.toThrow(/update/i);
    const res = await post(`/v1/jobs/${jobId}/subtasks/inner/budget`, { add: { costUsd: 1 } });
    expect(res.statusCode).toBe(409);
    await post(`/v1/jobs/${jobId}/cancel`);
  });
});

describe('stop and cancel', () => {
  it('stop: running subtasks finish their step and return partial; nothing new starts', async () => {
    const jobId = uniqueId('stop');
    await post('/v1/jobs', {
      jobId,
      pattern: 'fanout',
      maxParallel: 2,
      tasks: ['a', 'b', 'c'].map((id) => ({ id, question: 'long', agent: 'sim', params: { steps: 20, latencyMs: 400 } })),
    });
    // a has done a step (its status query says so): the stop comes mid-subtask
    const client = await testClient();
    let steps: number | undefined;
    await pollUntil(
      async () => {
        steps = (
          await client.workflow
            .getHandle(`job/default/${jobId}/a`)
            .query(subtaskStatusQuery)
            .catch(() => undefined)
        )?.steps;
        return (steps ?? 0) >= 1;
      },
      () => `subtask a never finished a step (steps: ${steps ?? 'no answer to the status query'})`,
    );
    expect((await post(`/v1/jobs/${jobId}/stop`)).statusCode).toBe(202);
    const r = await result(jobId);
    expect(r.status).toBe('partial');
    for (const t of r.results.slice(0, 2)) {
      expect(t).toMatchObject({ status: 'partial', failureReason: 'stopped' });
      expect(t.metrics.steps).toBeGreaterThanOrEqual(1);
      expect(t.metrics.steps).toBeLessThan(20);
    }
    expect(r.results[2]).toMatchObject({ id: 'c', status: 'failure', failureReason: 'stopped', metrics: { steps: 0 } });
    expect((await post(`/v1/jobs/${jobId}/stop`)).statusCode).toBe(409);
  });

  it('cancel: children are cancelled, the job ends cancelled and keeps every finished result', async () => {
    const jobId = uniqueId('cancel');
    await post('/v1/jobs', {
      jobId,
      pattern: 'fanout',
      tasks: [
        { id: 'fast', question: 'quick', agent: 'sim', params: { answer: 'kept', costUsd: 0.01 } },
        // never answers (hang until cancelled): only the cancel ends it
        { id: 'slow', question: 'slow', agent: 'sim', params: { steps: 3, hang: true } },
      ],
    });
    await waitForSubtask(jobId, 'slow', 'running');
    // the finished result the cancel must keep: wait for it, not for a fast agent to be fast
    await waitForSubtask(jobId, 'fast', 'done');
    expect((await post(`/v1/jobs/${jobId}/cancel`)).statusCode).toBe(202);
    const r = await result(jobId);
    expect(r.status).toBe('cancelled');
    expect(r.results[0]).toMatchObject({ id: 'fast', status: 'success', data: 'kept' });
    expect(r.results[1]).toMatchObject({ id: 'slow', status: 'failure', failureReason: 'cancelled' });
    expect((await view(jobId)).status).toBe('cancelled');
  });
});
