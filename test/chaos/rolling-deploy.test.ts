/**
 * A rolling deploy under load: a job of long subtasks runs on two workers of version N;
 * worker 0 is stopped (SIGTERM, graceful) and replaced by version N+1, then worker 1. N+1's
 * subtask workflow issues a command N never did (a memo upsert, test/chaos/next-version.ts),
 * behind `patched()` as docs/operations/upgrades.md says. The job finishes with
 * every subtask's answer, no step lost or run twice, and no workflow task of any of its
 * workflows failed on nondeterminism; the runs that crossed the deploy carry N+1's marker
 * from the step N+1 first ran, and replay on N+1. The control: the same change without
 * `patched()` cannot replay a history N wrote.
 */
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, Runtime, Worker, type WorkflowBundle } from '@temporalio/worker';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { auditSteps, lostSubtasks, recordScenario } from './audit';
import { ChaosStack } from './harness';
import { DEPLOY_VERSION_MEMO, FROM_STEP_MEMO, NEXT_VERSION, NEXT_VERSION_PATCH, prepareNextVersion } from './next-version';

type History = temporal.api.history.v1.IHistory;
const NDE = temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_NON_DETERMINISTIC_ERROR;

// replay workers log each failing task as a warning, and the sinks they do not call as errors:
// the control expects a failing task and asserts it
const quiet = () => {};
const error = (m: string) => !m.includes('unregistered external sink') && console.error(m);
Runtime.install({
  logger: { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: quiet, error } as never,
  telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
});

let stack: ChaosStack;
const copies: string[] = [];
/** How long starting the two workers of version N took: the deploy starts two more, one at a time. */
let workerStartMs = 0;
beforeAll(async () => {
  stack = await ChaosStack.start({ name: 'rolling-deploy', workers: 0 });
  const t = Date.now();
  await Promise.all([stack.startWorker(0), stack.startWorker(1)]);
  workerStartMs = Date.now() - t;
}, 300_000);
afterAll(async () => {
  await stack?.stop();
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

/** Long subtasks: each must still be running when the deploy is over. */
const LONG = 4;
const STEP_MS = 1500;
/**
 * Steps of a long subtask: at least 90 s, and longer where workers start slowly (a worker
 * bundles its workflows at start: 20 s on an idle 2-core machine, a minute under load). The
 * deploy starts two workers one after the other, plus a few seconds of graceful stops.
 */
const longSteps = () => Math.ceil(Math.max(90_000, 2 * workerStartMs + 45_000) / STEP_MS);
/** Subtasks of the job submitted while the fleet is mixed (worker 0 on N+1, worker 1 on N). */
const MIXED = 4;
const MIXED_STEPS = 8;
const RUN = `rolling-${Date.now().toString(36)}`;

/** The deploy log: one line per event, seconds since the job started. */
class DeployLog {
  private readonly t0 = Date.now();
  readonly lines: string[] = [];
  add(what: string): void {
    const line = `${new Date().toISOString()}  +${((Date.now() - this.t0) / 1000).toFixed(1).padStart(6)}s  ${what}`;
    this.lines.push(line);
  }
  text(): string {
    return this.lines.join('\n');
  }
}

/** What one run's history says about the deploy. */
interface RunFacts {
  workflowId: string;
  runId: string;
  /** Completed workflow tasks per version ('N', 'N+1', or the identity when no worker of ours has it). */
  tasksBy: Record<string, number>;
  /** The version that completed the run's first workflow task. */
  firstBy?: string;
  /** The version whose workflow task recorded N+1's patch marker. */
  markerBy?: string;
  /** Workflow tasks N completed after N+1 marked the run (a run going back to old code). */
  nAfterMarker: number;
  /** Memo upserts in the history. */
  memoUpserts: number;
  /** Failed workflow tasks: cause and message. */
  failedTasks: { cause: number; message: string }[];
}

/** Reads the facts of one run from its history; `versionOf` maps a worker identity to its version. */
function factsOf(workflowId: string, runId: string, history: History, versionOf: (identity: string) => string): RunFacts {
  const facts: RunFacts = { workflowId, runId, tasksBy: {}, nAfterMarker: 0, memoUpserts: 0, failedTasks: [] };
  const completedBy = new Map<string, string>();
  for (const ev of history.events ?? []) {
    const done = ev.workflowTaskCompletedEventAttributes;
    if (done) {
      const v = versionOf(done.identity ?? '');
      completedBy.set(String(ev.eventId), v);
      facts.tasksBy[v] = (facts.tasksBy[v] ?? 0) + 1;
      facts.firstBy ??= v;
      if (facts.markerBy && v === 'N') facts.nAfterMarker += 1;
    }
    const failed = ev.workflowTaskFailedEventAttributes;
    if (failed) facts.failedTasks.push({ cause: failed.cause ?? 0, message: failed.failure?.message ?? '' });
    const marker = ev.markerRecordedEventAttributes;
    if (marker?.markerName === 'core_patch') {
      // core's patch data: one JSON payload { id, deprecated } under its details key
      const ids = Object.values(marker.details ?? {})
        .flatMap((p) => p.payloads ?? [])
        .map((p) => defaultPayloadConverter.fromPayload<{ id?: string }>(p)?.id);
      if (ids.includes(NEXT_VERSION_PATCH)) facts.markerBy = completedBy.get(String(marker.workflowTaskCompletedEventId)) ?? '?';
    }
    if (ev.workflowPropertiesModifiedEventAttributes) facts.memoUpserts += 1;
  }
  return facts;
}

/** Every run (continue-as-new chains included) of every workflow carrying the label, once `expected` ids are all listed. */
async function runsOf(client: Client, label: string, expected: string[]): Promise<{ workflowId: string; runId: string }[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const runs: { workflowId: string; runId: string }[] = [];
    for await (const wf of client.workflow.list({ query: `DelegateLabels = "${label}"` }))
      runs.push({ workflowId: wf.workflowId, runId: wf.runId });
    const ids = new Set(runs.map((r) => r.workflowId));
    if (expected.every((id) => ids.has(id))) return runs;
    if (Date.now() > deadline) throw new Error(`visibility lists ${[...ids].join(', ')}; expected ${expected.join(', ')}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A bundle of a copy's workflows, as its worker builds it (workers/bundle.ts: bundleWorkflows). */
const bundleOf = (root: string): Promise<WorkflowBundle> =>
  bundleWorkflowCode({
    workflowsPath: join(root, 'workflows/index.ts'),
    workflowInterceptorModules: [join(root, 'workflows/log-context.ts')],
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never,
  });

/** Replays one history on a bundle: undefined when it replays, else the error. */
async function replay(workflowBundle: WorkflowBundle, workflowId: string, history: History): Promise<Error | undefined> {
  try {
    await Worker.runReplayHistory({ workflowBundle, replayName: 'rolling-deploy' }, history as never, workflowId);
    return undefined;
  } catch (err) {
    return err as Error;
  }
}

it('finishes a job of long subtasks across a rolling deploy of a patched workflow change, with no nondeterminism and nothing lost', async () => {
  const log = new DeployLog();
  const STEPS = longSteps();
  const started = Date.now();
  const next = prepareNextVersion();
  const unguarded = prepareNextVersion({ unguarded: true });
  copies.push(next, unguarded);

  // identities of the workers (pid@host, the SDK's default) → their version
  const versionByPid = new Map<number, string>();
  const noteWorker = (i: number, version: string) => versionByPid.set(stack.workers[i]!.pid!, version);
  noteWorker(0, 'N');
  noteWorker(1, 'N');
  // a worker's identity ends `<pid>@<host>` (`delegate:<deployment>:<pid>@<host>`, config/deployment.ts)
  const versionOf = (identity: string) => versionByPid.get(Number(/(\d+)@[^@]*$/.exec(identity)?.[1])) ?? identity;

  const jobId = 'rolling-1';
  const label = `deploy=${RUN}`;
  const wfId = (taskId: string, job = jobId) => `job/default/${job}/${taskId}`;
  const tasks = [
    ...Array.from({ length: LONG }, (_, i) => ({
      id: `t${i}`,
      question: `long question ${i}`,
      agent: 'sim',
      timeoutSeconds: 10,
      retry: { maxAttempts: 5, initialIntervalSeconds: 0.2, backoffCoefficient: 1, maximumIntervalSeconds: 0.5 },
      params: { steps: STEPS, latencyMs: STEP_MS, answer: { n: i } },
    })),
    // done on N before the deploy: a run N+1 never touches
    { id: 'quick', question: 'quick question', agent: 'sim', params: { steps: 1, answer: { n: -1 } } },
  ];
  const mixedTasks = Array.from({ length: MIXED }, (_, i) => ({
    id: `m${i}`,
    question: `mixed question ${i}`,
    agent: 'sim',
    timeoutSeconds: 10,
    params: { steps: MIXED_STEPS, latencyMs: 1000, answer: { m: i } },
  }));
  const submitted = await stack.submit({ jobId, pattern: 'fanout', labels: { deploy: RUN }, tasks });
  expect(submitted.status).toBe(201);
  log.add(
    `job ${jobId} started on 2 workers of version N (they took ${(workerStartMs / 1000).toFixed(1)} s to start): ${LONG} subtasks of ${STEPS} steps × ${STEP_MS} ms, 1 of 1 step`,
  );

  const stepsOf = (taskId: string, job = jobId) => stack.readStepLog().filter((e) => e.stepKey.startsWith(`${wfId(taskId, job)}#`)).length;
  // every long subtask has steps behind it on N, and the quick one is done
  const deadline = Date.now() + 60_000;
  while (tasks.some((t) => stepsOf(t.id) < (t.id === 'quick' ? 1 : 2))) {
    if (Date.now() > deadline) throw new Error('the subtasks did not start on version N in 60 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  const client = await stack.client();
  // the control's history: a subtask mid-flight, written by N only
  const midDeploy = await client.workflow.getHandle(wfId('t0')).fetchHistory();
  const doneOnN = Object.fromEntries(tasks.map((t) => [t.id, stepsOf(t.id)]));
  log.add(
    `steps done on N before the deploy: ${Object.entries(doneOnN)
      .map(([id, n]) => `${id} ${n}`)
      .join(', ')}`,
  );

  for (const i of [0, 1]) {
    const pid = stack.workers[i]!.pid;
    log.add(`worker ${i} (N, pid ${pid}): SIGTERM`);
    await stack.killWorker(i, 'SIGTERM');
    log.add(`worker ${i} (N, pid ${pid}): stopped`);
    await stack.startWorker(i, {}, { root: next });
    noteWorker(i, 'N+1');
    log.add(`worker ${i} (N+1, pid ${stack.workers[i]!.pid}): polling`);
    if (i === 0) {
      // new work while old and new code serve the queue: either may take a run's first workflow task
      const mixed = await stack.submit({ jobId: 'rolling-2', pattern: 'fanout', labels: { deploy: RUN }, tasks: mixedTasks });
      expect(mixed.status).toBe(201);
      const until = Date.now() + 60_000;
      while (mixedTasks.some((t) => stepsOf(t.id, 'rolling-2') < 1)) {
        if (Date.now() > until) throw new Error('the mixed-fleet job did not start in 60 s');
        await new Promise((r) => setTimeout(r, 200));
      }
      log.add(
        `job rolling-2 submitted to the mixed fleet (N+1 and N): ${MIXED} subtasks of ${MIXED_STEPS} steps × 1000 ms, each 1 step in`,
      );
    }
  }
  const leftAtDeployEnd = Object.fromEntries(tasks.filter((t) => t.id !== 'quick').map((t) => [t.id, STEPS - stepsOf(t.id)]));
  log.add(
    `deploy done; steps left per subtask: ${Object.entries(leftAtDeployEnd)
      .map(([id, n]) => `${id} ${n}`)
      .join(', ')}`,
  );
  // the scenario is only a rolling deploy if the subtasks outlived it (else longSteps() is too short for this machine)
  for (const [id, left] of Object.entries(leftAtDeployEnd)) expect(left, `subtask ${id} finished before the deploy did`).toBeGreaterThan(0);
  // the control's bundles, built while the job finishes (settled here: a failure is reported where it is awaited)
  const bundling = Promise.all([bundleOf(next), bundleOf(unguarded)]);
  bundling.catch(() => undefined);

  const result = await stack.waitResult(jobId, STEPS * STEP_MS + 120_000);
  log.add(`job ${jobId} done: ${result.status}`);
  expect(result.status).toBe('success');
  expect(result.results.map((r) => r.id).sort()).toEqual(tasks.map((t) => t.id).sort());
  for (const r of result.results) {
    if (r.id === 'quick') expect(r).toMatchObject({ status: 'success', data: { n: -1 }, metrics: { steps: 1 } });
    else expect(r).toMatchObject({ status: 'success', data: { n: Number(r.id.slice(1)) }, metrics: { steps: STEPS } });
  }

  // the job submitted to the mixed fleet
  const mixedResult = await stack.waitResult('rolling-2', 120_000);
  expect(mixedResult.status).toBe('success');
  expect(mixedResult.results.map((r) => r.id).sort()).toEqual(mixedTasks.map((t) => t.id));
  for (const r of mixedResult.results)
    expect(r).toMatchObject({ status: 'success', data: { m: Number(r.id.slice(1)) }, metrics: { steps: MIXED_STEPS } });
  log.add(`job rolling-2 done: ${mixedResult.status}`);

  // a job started after the deploy: its runs are N+1's from their first step
  const after = await stack.submit({
    jobId: 'rolling-3',
    pattern: 'fanout',
    labels: { deploy: RUN },
    tasks: [{ id: 'a', question: 'after the deploy', agent: 'sim', params: { steps: 2, answer: { n: 100 } } }],
  });
  expect(after.status).toBe(201);
  const afterResult = await stack.waitResult('rolling-3', 60_000);
  expect(afterResult).toMatchObject({ status: 'success', results: [{ id: 'a', status: 'success', data: { n: 100 } }] });
  log.add(`job rolling-3 (started after the deploy) done: ${afterResult.status}`);

  // nothing lost, nothing run twice
  const subtaskIds = [...tasks.map((t) => wfId(t.id)), ...mixedTasks.map((t) => wfId(t.id, 'rolling-2')), wfId('a', 'rolling-3')];
  const audit = await auditSteps(client, subtaskIds, stack.readStepLog());
  expect(audit.notes).toEqual([]);
  expect(audit.recorded).toBe(LONG * STEPS + 1 + MIXED * MIXED_STEPS + 2);
  expect(audit.duplicates).toBe(0);
  expect(audit.unlogged).toBe(0);

  // every workflow of both jobs: no workflow task failed on nondeterminism
  const runs = await runsOf(client, label, [`job/default/${jobId}`, 'job/default/rolling-2', 'job/default/rolling-3', ...subtaskIds]);
  const histories = new Map<string, History>();
  const facts: RunFacts[] = [];
  for (const r of runs) {
    const history = await client.workflow.getHandle(r.workflowId, r.runId).fetchHistory();
    histories.set(`${r.workflowId} ${r.runId}`, history);
    facts.push(factsOf(r.workflowId, r.runId, history, versionOf));
  }
  const nondeterministic = facts.flatMap((f) =>
    f.failedTasks.filter((t) => t.cause === NDE || /nondetermin/i.test(t.message)).map((t) => `${f.workflowId}: ${t.message}`),
  );
  expect(nondeterministic).toEqual([]);
  // and no run went back to old code once new code had marked it (old code cannot replay that)
  expect(facts.filter((f) => f.nAfterMarker > 0).map((f) => f.workflowId)).toEqual([]);
  const failedTasks = facts.flatMap((f) => f.failedTasks.map((t) => `${f.workflowId}: cause ${t.cause}: ${t.message.slice(0, 200)}`));

  // N+1's change ran: each long subtask took the new branch once, at the first step N+1 ran,
  // in a workflow task of an N+1 worker, after workflow tasks of N that N+1 then replayed
  const memoOf = async (id: string) => ((await client.workflow.getHandle(id).describe()).memo ?? {}) as Record<string, unknown>;
  const byId = new Map(facts.map((f) => [f.workflowId, f]));
  const perTask: string[] = [];
  for (const t of tasks.filter((x) => x.id !== 'quick')) {
    const memo = await memoOf(wfId(t.id));
    const f = byId.get(wfId(t.id))!;
    expect(memo[DEPLOY_VERSION_MEMO]).toBe(NEXT_VERSION);
    const from = memo[FROM_STEP_MEMO] as number;
    // the steps done before the deploy were N's, and N+1 took over before the end
    expect(from).toBeGreaterThanOrEqual(doneOnN[t.id]);
    expect(from).toBeLessThan(STEPS);
    expect(f).toMatchObject({ markerBy: 'N+1', memoUpserts: 1 });
    expect(f.tasksBy.N).toBeGreaterThan(0);
    expect(f.tasksBy['N+1']).toBeGreaterThan(0);
    perTask.push(
      `${t.id}: steps 0–${from - 1} issued by N, ${from}–${STEPS - 1} by N+1 (workflow tasks: N ${f.tasksBy.N}, N+1 ${f.tasksBy['N+1']})`,
    );
  }
  // the quick subtask ended on N: no marker, no memo
  expect(await memoOf(wfId('quick'))).not.toHaveProperty(DEPLOY_VERSION_MEMO);
  expect(byId.get(wfId('quick'))!.memoUpserts).toBe(0);
  expect(byId.get(wfId('quick'))!.markerBy).toBeUndefined();
  // the job that started after the deploy: N+1 from its first step
  expect(await memoOf(wfId('a', 'rolling-3'))).toMatchObject({ [DEPLOY_VERSION_MEMO]: NEXT_VERSION, [FROM_STEP_MEMO]: 0 });
  expect(byId.get(wfId('a', 'rolling-3'))).toMatchObject({ markerBy: 'N+1', memoUpserts: 1 });
  expect(Object.keys(byId.get(wfId('a', 'rolling-3'))!.tasksBy)).toEqual(['N+1']);
  // the mixed-fleet job: a run N+1 began is N+1's from step 0; one N began took the new branch later
  const mixedFirst: Record<string, string[]> = {};
  for (const t of mixedTasks) {
    const f = byId.get(wfId(t.id, 'rolling-2'))!;
    const memo = await memoOf(f.workflowId);
    expect(f.markerBy, `${f.workflowId}: N+1's marker`).toBe('N+1');
    expect(memo[DEPLOY_VERSION_MEMO]).toBe(NEXT_VERSION);
    if (f.firstBy === 'N+1') expect(memo[FROM_STEP_MEMO]).toBe(0);
    (mixedFirst[f.firstBy!] ??= []).push(`${t.id} (N+1 from step ${String(memo[FROM_STEP_MEMO])})`);
  }
  perTask.push(
    `rolling-2 (mixed fleet): ${Object.entries(mixedFirst)
      .map(([v, ids]) => `begun by ${v}: ${ids.join(', ')}`)
      .join('; ')}`,
  );
  // the job workflow (unchanged) crossed the deploy too, replayed by N+1
  const job = byId.get(`job/default/${jobId}`)!;
  expect(job.tasksBy.N).toBeGreaterThan(0);
  expect(job.tasksBy['N+1']).toBeGreaterThan(0);
  perTask.push(`quick: step 0 by N, no marker; rolling-3/a: steps 0–1 by N+1 (marker at step 0)`);
  perTask.push(`job workflow ${jobId}: workflow tasks N ${job.tasksBy.N}, N+1 ${job.tasksBy['N+1']}`);

  // the control: without patched(), N+1 cannot replay what N wrote; with it, it replays that and every history above
  const [guardedBundle, unguardedBundle] = await bundling;
  const broken = await replay(unguardedBundle, wfId('t0'), midDeploy);
  expect(broken?.name).toBe('DeterminismViolationError');
  expect(await replay(guardedBundle, wfId('t0'), midDeploy)).toBeUndefined();
  const replayFailures: string[] = [];
  for (const [key, history] of histories) {
    const err = await replay(guardedBundle, key.split(' ')[0], history);
    if (err) replayFailures.push(`${key}: ${err.name}: ${err.message}`);
  }
  expect(replayFailures).toEqual([]);
  log.add(
    `control: t0's history before the deploy replays on N+1 with patched(); without it: ${broken?.name}: ${broken?.message.split('\n')[0].slice(0, 160)}`,
  );

  const text = [
    `rolling deploy (test/chaos/rolling-deploy.test.ts), patch "${NEXT_VERSION_PATCH}"`,
    log.text(),
    'per subtask:',
    ...perTask.map((l) => `  ${l}`),
    `steps: ${audit.recorded} recorded, ${audit.duplicates} duplicated, ${audit.retried} retried, ${audit.unacknowledged} unacknowledged rerun(s)`,
    `workflow tasks failed: ${failedTasks.length === 0 ? 'none' : failedTasks.join('; ')} (nondeterminism: ${nondeterministic.length})`,
    `histories replayed on N+1: ${histories.size}, all clean`,
  ].join('\n');
  console.log(text);
  if (process.env.ROLLING_DEPLOY_LOG) writeFileSync(process.env.ROLLING_DEPLOY_LOG, `${text}\n`);

  recordScenario({
    scenario: 'rolling deploy N → N+1 (patched)',
    jobs: 3,
    subtasks: tasks.length + MIXED + 1,
    lost: lostSubtasks(
      tasks.map((t) => t.id),
      result,
    ),
    duplicatedSteps: audit.duplicates,
    seconds: (Date.now() - started) / 1000,
    notes: `${Object.values(leftAtDeployEnd).join('/')} steps left at deploy end; ${nondeterministic.length} nondeterminism`,
  });
}, 1_200_000);
