/**
 * 50 concurrent jobs (20 on the cluster's server) whose agent fails 30% of its attempts (seeded): every job ends with
 * exactly the status the seeds predict, retries show in the metrics, no result is lost,
 * no recorded step runs twice. Two workers share the task queue.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seededRandom } from '../../activities/agents/sim';
import type { JobResult, TaskResult } from '../../schemas';
import { auditSteps, lostSubtasks, recordScenario } from './audit';
import { ChaosStack, chaosTemporal } from './harness';

let stack: ChaosStack;
beforeAll(async () => {
  stack = await ChaosStack.start({ name: 'flaky', workers: 2 });
});
afterAll(async () => {
  await stack?.stop();
});

/**
 * 200 subtasks at once on the dev server; 80 on the cluster's server, where a subtask costs about
 * twice the CPU (docs/operations/scaling.md): 200 at once on two cores delayed heartbeats past the steps'
 * 10 s heartbeat timeout in every run (1–3 of ~700 attempts timed out by the server, which the
 * seeds cannot predict, so the scenario would test the machine's size instead of Delegate).
 */
const JOBS = chaosTemporal() === 'cluster' ? 20 : 50;
const TASKS = 4;
const STEPS = 3;
const FAIL_RATE = 0.3;
const MAX_ATTEMPTS = 3;

/** What the sim agent's seeded failures make of one subtask: status, steps done, attempts. */
function predict(seed: number, workflowId: string): Pick<TaskResult, 'status'> & { steps: number; attempts: number } {
  let attempts = 0;
  for (let step = 0; step < STEPS; step++) {
    let ok = false;
    for (let a = 1; a <= MAX_ATTEMPTS && !ok; a++) {
      ok = seededRandom(`${seed}|${workflowId}#${step}|${a}`) >= FAIL_RATE;
      if (ok) attempts += a;
    }
    if (!ok) return { status: step > 0 ? 'partial' : 'failure', steps: step, attempts: attempts + MAX_ATTEMPTS };
  }
  return { status: 'success', steps: STEPS, attempts };
}

it(`gives each of ${JOBS} concurrent jobs with a 30% flaky agent its predicted status, losing nothing`, async () => {
  const started = Date.now();
  const specs = Array.from({ length: JOBS }, (_, j) => ({
    jobId: `flaky-${j}`,
    pattern: 'fanout' as const,
    tasks: Array.from({ length: TASKS }, (_, i) => ({
      id: `t${i}`,
      question: `job ${j} task ${i}`,
      agent: 'sim',
      retry: { maxAttempts: MAX_ATTEMPTS, initialIntervalSeconds: 0.1, backoffCoefficient: 1, maximumIntervalSeconds: 0.1 },
      params: { steps: STEPS, failRate: FAIL_RATE, seed: 1000 + j, answer: `${j}.${i}` },
    })),
  }));
  const submitted = await Promise.all(specs.map((s) => stack.submit(s)));
  expect(submitted.map((s) => s.status)).toEqual(specs.map(() => 201));

  const results = await Promise.all(specs.map((s) => stack.waitResult(s.jobId, 150_000)));
  let retried = 0;
  let lost = 0;
  const statuses: Record<string, number> = {};
  results.forEach((result: JobResult, j) => {
    const spec = specs[j];
    lost += lostSubtasks(
      spec.tasks.map((t) => t.id),
      result,
    );
    const expected = spec.tasks.map((t) => predict(t.params.seed, `job/default/${spec.jobId}/${t.id}`));
    expect(result.results.map((r) => ({ status: r.status, steps: r.metrics.steps, attempts: r.metrics.attempts }))).toEqual(expected);
    for (const r of result.results) {
      if (r.status === 'success') expect(r.data).toBe(spec.tasks.find((t) => t.id === r.id)!.params.answer);
      else expect(r.failureReason).toBe('agent_error');
      if (r.metrics.attempts > r.metrics.steps) retried++;
    }
    const ok = expected.filter((e) => e.status === 'success').length;
    const some = expected.filter((e) => e.status !== 'failure').length;
    expect(result.status).toBe(ok === TASKS ? 'success' : some > 0 ? 'partial' : 'failure');
    statuses[result.status] = (statuses[result.status] ?? 0) + 1;
  });
  expect(lost).toBe(0);
  expect(retried).toBeGreaterThan(0);

  const ids = specs.flatMap((s) => s.tasks.map((t) => `job/default/${s.jobId}/${t.id}`));
  const audit = await auditSteps(await stack.client(), ids, stack.readStepLog());
  expect(audit.notes).toEqual([]);
  expect(audit.duplicates).toBe(0);
  expect(audit.unacknowledged).toBe(0);

  recordScenario({
    scenario: `failRate 0.3 x ${JOBS} concurrent jobs`,
    jobs: JOBS,
    subtasks: JOBS * TASKS,
    lost,
    duplicatedSteps: audit.duplicates,
    seconds: (Date.now() - started) / 1000,
    notes: `jobs ${Object.entries(statuses)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}; ${retried} subtasks retried; all as seeded`,
  });
});
