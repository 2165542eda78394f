/**
 * The two sides every throughput bench times: an echo fan-out through Delegate's job
 * workflow and the same N as bare child workflows (bench/baseline/), each checked for a
 * complete result, on workers of the bench's own.
 */
import { Worker } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import type { NativeConnection, WorkflowBundle } from '@temporalio/worker';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as baselineActivities from './baseline/activities';
import { bundleWorkflows, createWorker, createWorkers, type AgentLane, type WorkerTuning } from '../workers/worker';
import { delegationJob, type JobInput } from '../workflows/delegation-job';
import { baselineFanout, baselineTree } from './baseline/workflows';
import { benchRecord, withTemporal, type BenchTemporal } from './lib';
import { builtinAgents } from '../activities';
import { FANOUT_FLAT_MAX_DEV_SERVER } from '../core/engine-limits';
import { agentQueueFor } from '../core/names';

/** The echo agent's manifest, as the API hands it to a job it resolved at submission. */
export const echoManifest = builtinAgents.find((a) => a.manifest.id === 'echo')!.manifest;
/** Children per bare parent past which the baseline becomes a tree (one parent's pending-children limit is 2,000). */
export const BARE_PER_PARENT = 1000;

let seq = 0;
/** The queue of the bench's Delegate worker (startBenchWorkers). */
export const DELEGATE_BENCH_QUEUE = 'bench-delegate';
const baselineQueue = 'bench-baseline';
/** The echo jobs' tenant, and its agent lane on the bench's queue (what the API gives a job: `agentQueue`). */
export const BENCH_TENANT = 'bench';
export const BENCH_LANE = agentQueueFor(DELEGATE_BENCH_QUEUE, BENCH_TENANT);

/** A workflow's result, asking again when a long poll times out on a busy server. */
export async function patientResult<T>(handle: { result(): Promise<T> }): Promise<T> {
  for (;;) {
    try {
      return await handle.result();
    } catch (err) {
      // a long poll that timed out, or one the busy dev server interrupted (UNAVAILABLE): ask again
      if (!/DEADLINE_EXCEEDED|deadline exceeded|interrupted|UNAVAILABLE/i.test(String((err as Error).cause ?? err))) throw err;
    }
  }
}

/**
 * The input of an N-wide echo fan-out job, as the API would start it: its agent resolved at
 * submission (unless `resolve`), the dev server's fan-out cut (npm start's) unless said otherwise,
 * and `checked` (the API ran the workflow's input rules); its steps on the tenant's lane when given
 * one (`agentQueue`: a worker must serve it, `startBenchWorkers`' lanes), else on the job's queue.
 */
export function echoJobInput(
  jobId: string,
  n: number,
  opts: { resolve?: boolean; maxParallel?: number; fanoutFlatMax?: number; agentQueue?: string } = {},
): JobInput {
  return {
    spec: {
      jobId,
      pattern: 'fanout',
      ...(opts.maxParallel !== undefined ? { maxParallel: opts.maxParallel } : {}),
      tasks: Array.from({ length: n }, (_, i) => ({ id: `t${i}`, question: `q${i}`, agent: 'echo' })),
    },
    tenant: BENCH_TENANT,
    limits: { fanoutFlatMax: opts.fanoutFlatMax ?? FANOUT_FLAT_MAX_DEV_SERVER },
    checked: true,
    ...(opts.agentQueue ? { agentQueue: opts.agentQueue } : {}),
    ...(opts.resolve ? {} : { agents: { echo: echoManifest } }),
  };
}

/** Runs an N-wide echo fan-out as a Delegate job; returns ms and the root workflow id. */
export async function delegateRun(
  client: Client,
  n: number,
  opts: { resolve?: boolean; prefix?: string; taskQueue?: string; fanoutFlatMax?: number; agentQueue?: string } = {},
) {
  const jobId = `${opts.prefix ?? 'orch'}-${n}-${++seq}`;
  const workflowId = `job/${BENCH_TENANT}/${jobId}`;
  const started = performance.now();
  const result = await patientResult(
    await client.workflow.start(delegationJob, {
      taskQueue: opts.taskQueue ?? DELEGATE_BENCH_QUEUE,
      workflowId,
      args: [echoJobInput(jobId, n, { ...opts, maxParallel: Math.min(n, 1000) })],
    }),
  );
  if (result.status !== 'success' || result.metrics.subtasks !== n)
    throw new Error(`delegate ${n}: ${result.status}, ${result.metrics.subtasks} subtasks`);
  return { ms: performance.now() - started, workflowId };
}

/** Runs N bare child workflows (a tree past BARE_PER_PARENT); returns ms and the root workflow id. */
export async function bareRun(client: Client, n: number, prefix = 'baseline') {
  const workflowId = `${prefix}-${n}-${++seq}`;
  const started = performance.now();
  const handle =
    n <= BARE_PER_PARENT
      ? await client.workflow.start(baselineFanout, { taskQueue: baselineQueue, workflowId, args: [{ n }] })
      : await client.workflow.start(baselineTree, {
          taskQueue: baselineQueue,
          workflowId,
          args: [{ n, per: BARE_PER_PARENT, parallel: 4 }],
        });
  const done = await patientResult(handle);
  if (done !== n) throw new Error(`baseline ${n}: ${String(done)}`);
  return { ms: performance.now() - started, workflowId };
}

/** Task queue of the "before" commit's worker. */
export const BEFORE_QUEUE = 'bench-delegate-before';

/** The worker module of an earlier commit's checkout (`beforeCheckout()`). */
export async function beforeWorkerModule(
  dir: string,
): Promise<{ createWorker: typeof createWorker; bundleWorkflows?: typeof bundleWorkflows }> {
  return (await import(pathToFileURL(join(dir, 'workers', 'worker.ts')).href)) as {
    createWorker: typeof createWorker;
    bundleWorkflows?: typeof bundleWorkflows;
  };
}

/** A worker of an earlier commit's checkout (`beforeCheckout()`), in this process, on BEFORE_QUEUE; `bundle`: one its own `bundleWorkflows` built. */
export async function startBeforeWorker(connection: NativeConnection, dir: string, bundle?: WorkflowBundle): Promise<Worker> {
  const old = await beforeWorkerModule(dir);
  return old.createWorker({
    connection,
    namespace: 'default',
    taskQueue: BEFORE_QUEUE,
    record: await benchRecord(),
    ...(bundle ? { workflowBundle: bundle } : {}),
  });
}

/** The baseline's worker in this process. */
export async function startBareWorker(connection: NativeConnection, tuning: WorkerTuning = {}) {
  return Worker.create({
    connection,
    taskQueue: baselineQueue,
    workflowsPath: fileURLToPath(new URL('./baseline/workflows.ts', import.meta.url)),
    activities: baselineActivities,
    maxConcurrentActivityTaskExecutions: 200,
    ...tuning,
  });
}

/** Both workers (Delegate's, with the agent lanes asked for, and the baseline's) in this process, on one connection. */
export async function startBenchWorkers(
  connection: NativeConnection,
  tuning: WorkerTuning = {},
  bundle?: Awaited<ReturnType<typeof bundleWorkflows>>,
  lanes: AgentLane[] = [],
) {
  const delegate = await createWorkers(
    {
      connection,
      namespace: 'default',
      taskQueue: DELEGATE_BENCH_QUEUE,
      workflowBundle: bundle ?? (await bundleWorkflows()),
      tuning,
      record: await benchRecord(),
    },
    lanes,
  );
  const workers = [...delegate, await startBareWorker(connection, tuning)];
  const running = Promise.all(workers.map((w) => w.run()));
  return {
    async stop() {
      for (const w of workers) w.shutdown();
      await running;
    },
  };
}

/** Runs `fn` on a dev server of its own (`withTemporal`) with the bench's workers (and `lanes`) on it, then stops both. */
export function onFreshServer<T>(
  name: string,
  bundle: WorkflowBundle,
  fn: (t: BenchTemporal) => Promise<T>,
  lanes: AgentLane[] = [],
): Promise<T> {
  return withTemporal(name, async (t) => {
    const workers = await startBenchWorkers(t.workerConnection, {}, bundle, lanes);
    try {
      return await fn(t);
    } finally {
      await workers.stop().catch((err) => console.error(err));
    }
  });
}
