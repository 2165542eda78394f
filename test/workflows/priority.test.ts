/** Priorities through the API: a job starts at its priority, its tasks inherit it or set their own. */
import { describe, expect, it } from 'vitest';
import { finalResult, testApp, testClient, uniqueId } from '../helpers';

// urgent work overtaking 200 bulk steps on a busy worker is in priority.soak.test.ts (`npm run test:soak`)
describe('priorities', () => {
  it('the API starts a job at its priority; its tasks default to it, a task may set its own; status and result show them', async () => {
    const app = await testApp();
    try {
      const jobId = uniqueId('prio-api');
      const res = await app.inject({
        method: 'POST',
        url: '/v1/jobs',
        payload: {
          jobId,
          pattern: 'fanout',
          priority: 2,
          tasks: [
            { id: 'inherits', question: 'q', agent: 'sim' },
            { id: 'bulk', question: 'q', agent: 'sim', priority: 5 },
            { id: 'nested', question: 'q', job: { pattern: 'fanout', tasks: [{ id: 'inner', question: 'q', agent: 'sim' }] } },
          ],
        },
      });
      expect(res.statusCode).toBe(201);
      const result = (await finalResult(app, jobId)).json();
      const priorities = Object.fromEntries(result.results.map((r: { id: string; priority?: number }) => [r.id, r.priority]));
      expect(priorities).toEqual({ inherits: 2, bulk: 5, nested: 2 });
      const { workflowId } = res.json();
      const client = await testClient();
      expect((await client.workflow.getHandle(workflowId).describe()).raw.workflowExecutionInfo?.priority?.priorityKey).toBe(2);
      expect((await client.workflow.getHandle(`${workflowId}/bulk`).describe()).raw.workflowExecutionInfo?.priority?.priorityKey).toBe(5);
      // the nested job and its task inherit the job's level
      expect(
        (await client.workflow.getHandle(`${workflowId}/nested/inner`).describe()).raw.workflowExecutionInfo?.priority?.priorityKey,
      ).toBe(2);
      const view = (await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}` })).json();
      expect(Object.fromEntries(view.subtasks.map((s: { id: string; priority?: number }) => [s.id, s.priority]))).toEqual({
        inherits: 2,
        bulk: 5,
        nested: 2,
      });
      const bad = await app.inject({
        method: 'POST',
        url: '/v1/jobs',
        payload: { pattern: 'fanout', tasks: [{ id: 'a', question: 'q', agent: 'sim', priority: 0 }] },
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.body).toContain('tasks[0].priority');
    } finally {
      await app.close();
    }
  });
});
