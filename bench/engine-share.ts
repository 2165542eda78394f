/**
 * How much of Delegate's distance from bare Temporal is the engine's: N echo subtasks through
 * Delegate, N bare child workflows with one no-op activity (the orchestration bench's baseline),
 * and N "shaped" bare children (bench/baseline/shaped.ts) that ask of the engine what a Delegate
 * subtask asks — its search attributes and summary at start, payloads of the sizes measured from
 * a real subtask's history, its step's activity options, the outcome's upsert — with none of
 * Delegate's code. BENCH_REPEAT rounds, each side first in turn, every run on a dev server of its
 * own (a fresh database) after a warm-up; the median's wall time, the dev server's CPU per
 * subtask (from /proc) and the bench process's (all three workers live in it; one side runs at a time).
 *
 *   shaped / bare:   what the subtask's footprint in the engine costs by itself
 *   Delegate / shaped: what the worker's code (and the job's parents) cost on top
 *
 *   BENCH_N=200 BENCH_REPEAT=3 npm run bench -- engine-share
 */
import { Worker } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import type { WorkflowBundle } from '@temporalio/worker';
import proto from '@temporalio/proto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as baselineActivities from './baseline/activities';
import type { EngineShape } from './baseline/shaped';
import { bareRun, delegateRun, patientResult, startBenchWorkers } from './delegate-runs';
import { quietRuntime, report, round, startTemporal } from './lib';
import { NON_RETRYABLE_ERROR_TYPES } from '../core/errors';
import { bundleWorkflows } from '../workers/worker';

const N = Number(process.env.BENCH_N ?? 200);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
const shapedQueue = 'bench-shaped';
const { EventType } = proto.temporal.api.enums.v1;

/** CPU ms (utime + stime) of a process, all its threads. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

/** The payload sizes of one Delegate subtask of a job, from its history: input, step input, step output, result. */
async function measuredShape(client: Client, rootId: string): Promise<EngineShape & { bytes: Record<string, number> }> {
  // the leaf: the first child of the root that is a subtask (the root of a small job starts subtasks directly)
  const root = await client.workflow.getHandle(rootId).fetchHistory();
  const first = root.events!.find((e) => e.eventType === EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED)!;
  const leafId = first.startChildWorkflowExecutionInitiatedEventAttributes!.workflowId!;
  const events = (await client.workflow.getHandle(leafId).fetchHistory()).events!;
  const size = (p?: proto.temporal.api.common.v1.IPayloads | null) => p?.payloads?.[0]?.data?.length ?? 0;
  const of = (t: number) => events.find((e) => e.eventType === t)!;
  const bytes = {
    input: size(of(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED).workflowExecutionStartedEventAttributes!.input),
    stepInput: size(of(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED).activityTaskScheduledEventAttributes!.input),
    stepOutput: size(of(EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED).activityTaskCompletedEventAttributes!.result),
    result: size(of(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED).workflowExecutionCompletedEventAttributes!.result),
  };
  // the shaped payloads' own JSON around the padding: {"i":0,"shape":{...},"pad":"…"} and the like
  const pad = (n: number, overhead: number) => Math.max(0, n - overhead);
  return {
    bytes,
    pad: {
      input: pad(bytes.input, 200),
      stepInput: pad(bytes.stepInput, 40),
      stepOutput: pad(bytes.stepOutput, 20),
      result: pad(bytes.result, 20),
    },
    nonRetryable: [...NON_RETRYABLE_ERROR_TYPES],
  };
}

let seq = 0;
async function shapedRun(client: Client, n: number, shape: EngineShape) {
  const workflowId = `shaped-${n}-${++seq}`;
  const started = performance.now();
  const done = await patientResult(
    await client.workflow.start('shapedFanout', { taskQueue: shapedQueue, workflowId, args: [{ n, shape }] }),
  );
  if (done !== n) throw new Error(`shaped ${n}: ${String(done)}`);
  return { ms: performance.now() - started, workflowId };
}

/** One run of one side on a dev server of its own (a fresh database: the server's cost per subtask grows as it fills). */
async function runSide(side: 'bare' | 'shaped' | 'delegate', n: number, bundle: WorkflowBundle, shape?: EngineShape) {
  const t = await startTemporal('engine-share');
  const workers = await startBenchWorkers(t.workerConnection, {}, bundle);
  const shapedWorker = await Worker.create({
    connection: t.workerConnection,
    taskQueue: shapedQueue,
    workflowsPath: fileURLToPath(new URL('./baseline/shaped.ts', import.meta.url)),
    activities: baselineActivities,
    maxConcurrentActivityTaskExecutions: 200,
  });
  const shapedRunning = shapedWorker.run();
  const server = t.server.process.pid!;
  try {
    // a warm-up of the side's own: workflow caches, connections; the shape is read off Delegate's
    const warm = await delegateRun(t.client, 10);
    const measured = shape ?? (await measuredShape(t.client, warm.workflowId));
    if (side === 'bare') await bareRun(t.client, 10);
    if (side === 'shaped') await shapedRun(t.client, 10, measured);
    const s0 = cpuMs(server);
    const p0 = process.cpuUsage();
    const { ms } =
      side === 'bare'
        ? await bareRun(t.client, n)
        : side === 'shaped'
          ? await shapedRun(t.client, n, measured)
          : await delegateRun(t.client, n);
    const p = process.cpuUsage(p0);
    return { ms, serverMs: cpuMs(server) - s0, workerMs: (p.user + p.system) / 1000, shape: measured };
  } finally {
    shapedWorker.shutdown();
    await shapedRunning;
    await workers.stop().catch((err) => console.error(err));
    await t.close();
  }
}

quietRuntime();
const bundle = await bundleWorkflows();
type Side = 'bare' | 'shaped' | 'delegate';
const order: Side[] = ['bare', 'shaped', 'delegate'];
const runs: Record<Side, { ms: number; serverMs: number; workerMs: number }[]> = { bare: [], shaped: [], delegate: [] };
let shape: EngineShape | undefined;
let bytes: Record<string, number> | undefined;
for (let r = 0; r < REPEAT; r++) {
  for (const side of [...order.slice(r % 3), ...order.slice(0, r % 3)]) {
    const { shape: measured, ...run } = await runSide(side, N, bundle, shape);
    shape ??= measured;
    bytes ??= (measured as { bytes?: Record<string, number> }).bytes;
    runs[side].push(run);
    console.log(
      `${side} ${Math.round(run.ms)} ms, server ${round(run.serverMs / N, 2)} ms per subtask, worker process ${round(run.workerMs / N, 2)}`,
    );
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (side: Side) => median(runs[side].map((x) => x.ms));
const per = (side: Side, k: 'serverMs' | 'workerMs') => round(median(runs[side].map((x) => x[k])) / N, 2);
report(
  'engine-share',
  `Engine share of the distance from bare: N = ${N}, median of ${REPEAT}, each run on a fresh dev server; shaped = bare children with a subtask's footprint in the engine (payloads ${JSON.stringify(bytes)} bytes)`,
  ['side', 'ms', 'subtasks/s', 'throughput / bare', 'dev server CPU ms per subtask', 'bench process CPU ms per subtask'],
  order.map((side) => [
    side,
    round(ms(side), 0),
    round((N / ms(side)) * 1000),
    `${round(ms('bare') / ms(side), 2)}x`,
    per(side, 'serverMs'),
    per(side, 'workerMs'),
  ]),
  { n: N, repeat: REPEAT, shape, runs },
);
