import { describe, expect, it } from 'vitest';
import type { JobResult, JobView } from '../../schemas';
import { appForTest, finalResult, jobsStartedWithId, pollUntil, uniqueId, useApp } from '../helpers';

const app = useApp();

/** A task nesting `levels` jobs below it, each a one-task pipeline, ending in an echo. */
function nested(id: string, levels: number): Record<string, unknown> {
  if (levels === 0) return { id, question: 'the leaf', agent: 'echo' };
  return { id, question: `level ${levels}`, job: { pattern: 'pipeline', tasks: [nested(`${id}${levels}`, levels - 1)] } };
}

describe('nesting depth at submission', () => {
  it('refuses a spec one level deeper than the cap (3) with 422 naming the task path; nothing starts', async () => {
    const jobId = uniqueId('deep');
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: { jobId, pattern: 'vote', tasks: [nested('ok', 3), nested('deep', 4)] },
    });
    expect(res.statusCode).toBe(422);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json().errors).toEqual([
      { path: 'body.tasks[1].job.tasks[0].job.tasks[0].job.tasks[0].job', message: 'nested job at depth 4 exceeds the cap of 3 levels' },
    ]);
    expect(await jobsStartedWithId(jobId)).toBe(0);
  });

  it('runs a spec exactly at the cap', async () => {
    const jobId = uniqueId('atcap');
    const submit = await app.inject({ method: 'POST', url: '/v1/jobs', payload: { jobId, pattern: 'fanout', tasks: [nested('t', 3)] } });
    expect(submit.statusCode).toBe(201);
    const res = await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}/result?waitSeconds=30` });
    expect(res.statusCode).toBe(200);
    const result = res.json() as JobResult;
    expect(result.status).toBe('success');
    expect(result.output).toEqual({ t: 'the leaf' });
  });

  it('honours the operator cap (DELEGATE_MAX_DEPTH)', async () => {
    const shallow = await appForTest({ DELEGATE_MAX_DEPTH: '1' });
    const res = await shallow.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: { jobId: uniqueId('cap1'), pattern: 'pipeline', tasks: [nested('one', 1), nested('two', 2)] },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors.map((e: { path: string }) => e.path)).toEqual(['body.tasks[1].job.tasks[0].job']);
  });
});

describe('a running nested job in the job view', () => {
  it("shows the running nested job's own live ledger (its answer to the 'status' query)", async () => {
    const jobId = uniqueId('nestlive');
    const spec = {
      jobId,
      pattern: 'fanout',
      budget: { costUsd: 1 },
      tasks: [
        {
          id: 'inner',
          question: 'q',
          job: { pattern: 'fanout', tasks: [{ id: 's', question: 'slow', agent: 'sim', params: { hang: true } }] },
        },
      ],
    };
    expect((await app.inject({ method: 'POST', url: '/v1/jobs', payload: spec })).statusCode).toBe(201);
    try {
      let last: JobView | undefined;
      await pollUntil(async () => {
        last = (await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}` })).json() as JobView;
        return last.subtasks?.[0]?.state === 'running' && last.subtasks[0].ledger !== undefined;
      }, 'the running nested job never showed a ledger in the view');
      expect(last?.subtasks?.[0]).toMatchObject({ id: 'inner', agentId: 'job:fanout', state: 'running' });
      expect(last?.subtasks?.[0].ledger?.costUsd.limit).toBeGreaterThan(0);
    } finally {
      await app.inject({ method: 'POST', url: `/v1/jobs/${jobId}/cancel`, payload: {} });
      await finalResult(app, jobId);
    }
  });
});
