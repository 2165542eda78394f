/** POST /v1/jobs with fallback agents: unknown ones are refused with 422 at their path and nothing starts. */
import { describe, expect, it } from 'vitest';
import { jobsStartedWithId, uniqueId, useApp } from '../helpers';

const app = useApp();

describe('fallback agents at the API', () => {
  it("answers 422 naming tasks[i].fallback[j] of an unknown or unfit agent or the task's own, and starts nothing", async () => {
    const jobId = uniqueId('fb-422');
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        jobId,
        pattern: 'fanout',
        tasks: [{ id: 'a', question: 'q', agent: 'sim', params: { steps: 2 }, fallback: ['sim', 'nobody', 'echo'] }],
      },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([
      { path: 'body.tasks[0].fallback[0]', message: 'agent "sim" is the task\'s own agent' },
      { path: 'body.tasks[0].fallback[1]', message: expect.stringContaining('unknown agent "nobody"') },
      { path: 'body.tasks[0].fallback[2]', message: expect.stringContaining('agent "echo" does not take the task\'s params') },
    ]);
    expect(await jobsStartedWithId(jobId)).toBe(0);
  });

  it('answers 400 for a nested job with fallbacks', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        pattern: 'fanout',
        tasks: [
          { id: 'a', question: 'q', fallback: ['echo'], job: { pattern: 'fanout', tasks: [{ id: 'b', question: 'q', agent: 'echo' }] } },
        ],
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ path: 'body.tasks[0].fallback', message: expect.stringContaining('not nested jobs') }]);
  });

  it('answers 400 for more than 8 fallbacks', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: { pattern: 'fanout', tasks: [{ id: 'a', question: 'q', agent: 'echo', fallback: Array(9).fill('echo') }] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].path).toBe('body.tasks[0].fallback');
  });
});
