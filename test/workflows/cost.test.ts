import { describe, expect, it } from 'vitest';
import { finalResult, runJob, testClient, uniqueId, useApp } from '../helpers';

const app = useApp();

/** Events, workflow tasks and activity tasks in a workflow's history. */
async function costOf(workflowId: string) {
  const history = await (await testClient()).workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const count = (name: string) => events.filter((e) => e[name as keyof typeof e] != null).length;
  return {
    events: events.length,
    workflowTasks: count('workflowTaskCompletedEventAttributes'),
    activityTasks: count('activityTaskScheduledEventAttributes'),
  };
}

describe('the cost of a subtask', () => {
  it('a subtask submitted through the API costs what a bare child workflow with one activity costs, and one upsert', async () => {
    const jobId = uniqueId('cost');
    // an agent named by capability: resolved at submission, like an id
    const submit = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        jobId,
        pattern: 'fanout',
        tasks: [
          { id: 'a', question: 'q', agent: 'echo' },
          { id: 'b', question: 'q', agent: { capability: 'sim' } },
        ],
      },
    });
    expect(submit.statusCode).toBe(201);
    const r = (await finalResult(app, jobId)).json();
    expect(r.status).toBe('success');
    expect(r.results.map((x: { agentId: string }) => x.agentId)).toEqual(['echo', 'sim']);
    for (const task of ['a', 'b']) {
      // started, 3 × workflow task, 3 × activity, 3 × workflow task, completed: the bare baseline,
      // plus the one upsert of the subtask's outcome (status, agent) for the UI, in the last task
      expect(await costOf(`job/default/${jobId}/${task}`), task).toEqual({ events: 12, workflowTasks: 2, activityTasks: 1 });
    }
  });

  it('a job started straight through Temporal without manifests still finds its agents', async () => {
    const jobId = uniqueId('cost-direct');
    const r = await runJob({ jobId, pattern: 'fanout', tasks: [{ id: 'a', question: 'q', agent: { capability: 'sim' } }] });
    expect(r.results[0]).toMatchObject({ agentId: 'sim', status: 'success' });
    // one more activity: resolveAgent
    expect((await costOf(`job/test/${jobId}/a`)).activityTasks).toBe(2);
  });
});
