/**
 * SIGKILL the only worker in the middle of a 20-subtask fan-out, start a new one: the job
 * completes with every result and no step whose completion was recorded runs again.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { auditSteps, lostSubtasks, recordScenario } from './audit';
import { ChaosStack } from './harness';

let stack: ChaosStack;
beforeAll(async () => {
  stack = await ChaosStack.start({ name: 'worker-kill' });
});
afterAll(async () => {
  await stack?.stop();
});

const TASKS = 20;
const STEPS = 4;

it('finishes a 20-subtask fan-out after its worker is SIGKILLed mid-flight, running no recorded step twice', async () => {
  const started = Date.now();
  const jobId = 'worker-kill-1';
  const tasks = Array.from({ length: TASKS }, (_, i) => ({
    id: `t${i}`,
    question: `question ${i}`,
    agent: 'sim',
    // 10 s per attempt: an attempt lost with the worker is retried after its heartbeat timeout (10 s)
    timeoutSeconds: 10,
    retry: { maxAttempts: 5, initialIntervalSeconds: 0.2, backoffCoefficient: 1, maximumIntervalSeconds: 0.5 },
    params: { steps: STEPS, latencyMs: 1200, answer: { n: i } },
  }));
  const submitted = await stack.submit({ jobId, pattern: 'fanout', tasks });
  expect(submitted.status).toBe(201);

  // mid-flight: some steps done, every subtask sleeping inside a step
  await stack.waitForSteps(TASKS + 5);
  await stack.killWorker(0, 'SIGKILL');
  const loggedAtKill = stack.readStepLog().length;
  expect(loggedAtKill).toBeLessThan(TASKS * STEPS);
  await stack.startWorker(0);

  const result = await stack.waitResult(jobId, 120_000);
  expect(result.status).toBe('success');
  expect(result.results.map((r) => r.id).sort()).toEqual(tasks.map((t) => t.id).sort());
  for (const r of result.results) {
    expect(r).toMatchObject({ status: 'success', data: { n: Number(r.id.slice(1)) }, metrics: { steps: STEPS } });
  }

  const client = await stack.client();
  const audit = await auditSteps(
    client,
    tasks.map((t) => `job/default/${jobId}/${t.id}`),
    stack.readStepLog(),
  );
  expect(audit.notes).toEqual([]);
  expect(audit.recorded).toBe(TASKS * STEPS);
  expect(audit.duplicates).toBe(0);
  expect(audit.unlogged).toBe(0);
  // the kill hit steps in flight: they were retried on the new worker
  expect(audit.retried).toBeGreaterThan(0);
  // and the audit is not blind: a recorded step logged once more counts as a duplicate
  const log = stack.readStepLog();
  // the recorded run is the step's last logged attempt: a kill may have left an unacknowledged one before it
  const recordedRun = log.filter((e) => e.stepKey.endsWith('/t3#1')).reduce((a, b) => (b.attempt > a.attempt ? b : a));
  expect((await auditSteps(client, [`job/default/${jobId}/t3`], [...log, recordedRun])).duplicates).toBe(1);

  recordScenario({
    scenario: 'worker SIGKILL mid fan-out',
    jobs: 1,
    subtasks: TASKS,
    lost: lostSubtasks(
      tasks.map((t) => t.id),
      result,
    ),
    duplicatedSteps: audit.duplicates,
    seconds: (Date.now() - started) / 1000,
    notes: `${loggedAtKill} steps done at kill; ${audit.retried} retried, ${audit.unacknowledged} unacknowledged rerun(s)`,
  });
});
