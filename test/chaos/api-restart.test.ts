/**
 * SIGKILL the API mid-job and start a new one: the job runs on (it lives in Temporal, not
 * in the API), status and result are served by the new process, and resubmitting the same
 * jobId finds the existing job instead of starting a second one.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { auditSteps, lostSubtasks, recordScenario } from './audit';
import { ChaosStack } from './harness';

let stack: ChaosStack;
beforeAll(async () => {
  stack = await ChaosStack.start({ name: 'api-restart' });
});
afterAll(async () => {
  await stack?.stop();
});

const TASKS = 10;
const STEPS = 8;

it('serves status and result of a job after the API is killed and restarted', async () => {
  const started = Date.now();
  const jobId = 'api-restart-1';
  const spec = {
    jobId,
    pattern: 'fanout',
    tasks: Array.from({ length: TASKS }, (_, i) => ({
      id: `t${i}`,
      question: `question ${i}`,
      agent: 'sim',
      params: { steps: STEPS, latencyMs: 1000, answer: i },
    })),
  };
  expect((await stack.submit(spec)).status).toBe(201);
  await stack.waitForSteps(3);
  expect(await stack.get(`/v1/jobs/${jobId}`)).toMatchObject({ status: 200, body: { state: 'running' } });

  await stack.killApi('SIGKILL');
  await expect(fetch(`${stack.apiUrl}/healthz`)).rejects.toThrow();
  await stack.startApi();

  const view = await stack.get(`/v1/jobs/${jobId}`);
  expect(view.status).toBe(200);
  expect(view.body).toMatchObject({ jobId, progress: { total: TASKS } });
  expect(['running', 'completed']).toContain(view.body.state);
  // same jobId again through the new process: the existing job, not a second one
  expect(await stack.submit(spec)).toMatchObject({ status: 200, body: { jobId, status: 'existing' } });

  const result = await stack.waitResult(jobId, 60_000);
  expect(result.status).toBe('success');
  expect(result.results.map((r) => r.data)).toEqual(spec.tasks.map((t) => t.params.answer));
  expect(await stack.get(`/v1/jobs/${jobId}`)).toMatchObject({ status: 200, body: { state: 'completed', status: 'success' } });

  const client = await stack.client();
  let runs = 0;
  for await (const wf of client.workflow.list({ query: `WorkflowId = "job/default/${jobId}"` })) if (wf) runs++;
  expect(runs).toBe(1);
  const audit = await auditSteps(
    client,
    spec.tasks.map((t) => `job/default/${jobId}/${t.id}`),
    stack.readStepLog(),
  );
  expect(audit.notes).toEqual([]);
  expect(audit.duplicates).toBe(0);

  recordScenario({
    scenario: 'API SIGKILL + restart mid-job',
    jobs: 1,
    subtasks: TASKS,
    lost: lostSubtasks(
      spec.tasks.map((t) => t.id),
      result,
    ),
    duplicatedSteps: audit.duplicates,
    seconds: (Date.now() - started) / 1000,
    notes: `status served by the new API (${String(view.body.state)}); resubmission answered 200 existing`,
  });
});
