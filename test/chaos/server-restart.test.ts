/**
 * Stop the Temporal dev server mid-job and start it again on the same SQLite file: the
 * worker and the API reconnect, the job completes, no recorded step runs twice.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { auditSteps, lostSubtasks, recordScenario } from './audit';
import { ChaosStack } from './harness';

let stack: ChaosStack;
beforeAll(async () => {
  stack = await ChaosStack.start({ name: 'server-restart' });
});
afterAll(async () => {
  await stack?.stop();
});

const TASKS = 10;
const STEPS = 6;

it('completes a job across a stop and a crash of the Temporal server, each restarted on the same db file', async () => {
  const started = Date.now();
  const jobId = 'server-restart-1';
  const tasks = Array.from({ length: TASKS }, (_, i) => ({
    id: `t${i}`,
    question: `question ${i}`,
    agent: 'sim',
    timeoutSeconds: 10,
    retry: { maxAttempts: 10, initialIntervalSeconds: 0.2, backoffCoefficient: 2, maximumIntervalSeconds: 2 },
    params: { steps: STEPS, latencyMs: 1000, answer: `a${i}` },
  }));
  expect((await stack.submit({ jobId, pattern: 'fanout', tasks })).status).toBe(201);

  // first a clean stop (SIGTERM), then a crash (SIGKILL): the SQLite file (WAL) must survive both
  const loggedAtStop: number[] = [];
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    await stack.waitForSteps((loggedAtStop.at(-1) ?? 0) + TASKS + 3);
    await stack.stopServer(signal);
    loggedAtStop.push(stack.readStepLog().length);
    await new Promise((r) => setTimeout(r, 2000));
    await stack.startServer();
  }
  expect(loggedAtStop[1]).toBeLessThan(TASKS * STEPS);

  const result = await stack.waitResult(jobId, 150_000);
  expect(result.status).toBe('success');
  expect(result.results.map((r) => [r.id, r.status, r.data])).toEqual(tasks.map((t) => [t.id, 'success', t.params.answer]));

  const audit = await auditSteps(
    await stack.client(),
    tasks.map((t) => `job/default/${jobId}/${t.id}`),
    stack.readStepLog(),
  );
  expect(audit.notes).toEqual([]);
  expect(audit.recorded).toBe(TASKS * STEPS);
  expect(audit.duplicates).toBe(0);

  recordScenario({
    scenario: 'Temporal server stop/crash + restart',
    jobs: 1,
    subtasks: TASKS,
    lost: lostSubtasks(
      tasks.map((t) => t.id),
      result,
    ),
    duplicatedSteps: audit.duplicates,
    seconds: (Date.now() - started) / 1000,
    notes: `stopped (TERM, then KILL) at ${loggedAtStop.join(' and ')} steps, down 2s each; ${audit.unacknowledged} unacknowledged rerun(s)`,
  });
});
