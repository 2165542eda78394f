/**
 * How much of Delegate's distance from bare Temporal is the engine's: N echo subtasks through
 * Delegate, N bare child workflows with one no-op activity (the orchestration bench's baseline),
 * and N "shaped" bare children (bench/baseline/shaped.ts) that ask of the engine what a Delegate
 * subtask asks — its summary at start and its search attributes at its end, payloads of the sizes measured from
 * a real subtask's history, its step's activity options, the outcome's upsert — with none of
 * Delegate's code. BENCH_REPEAT rounds, each side first in turn, every run on a dev server of its
 * own (a fresh database) after a warm-up of its own; the median's wall time, the dev server's CPU per
 * subtask (from /proc) and the bench process's (all three workers live in it; one side runs at a time),
 * and what the dev server wrote per subtask (its SQLite's pages through `write()`: steadier than CPU).
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
import { fileURLToPath } from 'node:url';
import * as baselineActivities from './baseline/activities';
import type { EngineShape } from './baseline/shaped';
import { bareRun, delegateRun, onFreshServer, patientResult } from './delegate-runs';
import { firstChildHistory } from './history-cost';
import { cpuPerSubtask, median, quietRuntime, report, round } from './lib';
import { NON_RETRYABLE_ERROR_TYPES } from '../core/errors';
import { bundleWorkflows } from '../workers/worker';

const N = Number(process.env.BENCH_N ?? 200);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
const shapedQueue = 'bench-shaped';
const { EventType } = proto.temporal.api.enums.v1;

/** The payload sizes of one Delegate subtask of a job, from its history: input, step input, step output, result. */
async function measuredShape(client: Client, rootId: string): Promise<EngineShape & { bytes: Record<string, number> }> {
  // the leaf: the root's first child, a subtask (the root of a small job starts subtasks directly)
  const events = (await firstChildHistory(client, rootId)).events!;
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

type Side = 'bare' | 'shaped' | 'delegate';

/** One run of one side on a dev server of its own, with the shaped baseline's worker beside the bench's, after a warm-up of 10 of its own. */
const runSide = (side: Side, n: number, bundle: WorkflowBundle, shape: EngineShape) =>
  onFreshServer('engine-share', bundle, async (t) => {
    const shapedWorker = await Worker.create({
      connection: t.workerConnection,
      taskQueue: shapedQueue,
      workflowsPath: fileURLToPath(new URL('./baseline/shaped.ts', import.meta.url)),
      activities: baselineActivities,
      maxConcurrentActivityTaskExecutions: 200,
    });
    const shapedRunning = shapedWorker.run();
    const run = (k: number) =>
      side === 'bare' ? bareRun(t.client, k) : side === 'shaped' ? shapedRun(t.client, k, shape) : delegateRun(t.client, k);
    try {
      await run(10);
      return await cpuPerSubtask(t.server, n, () => run(n));
    } finally {
      shapedWorker.shutdown();
      await shapedRunning;
    }
  });

quietRuntime();
const bundle = await bundleWorkflows();
// the shape is read off a Delegate job of 10, once, on a server of its own
const shape = await onFreshServer('engine-share', bundle, async (t) =>
  measuredShape(t.client, (await delegateRun(t.client, 10)).workflowId),
);
const order: Side[] = ['bare', 'shaped', 'delegate'];
const runs: Record<Side, Awaited<ReturnType<typeof runSide>>[]> = { bare: [], shaped: [], delegate: [] };
for (let r = 0; r < REPEAT; r++) {
  for (const side of [...order.slice(r % 3), ...order.slice(0, r % 3)]) {
    const run = await runSide(side, N, bundle, shape);
    runs[side].push(run);
    console.log(
      `${side} ${Math.round(run.ms)} ms, server ${round(run.serverMs, 2)} ms per subtask, worker process ${round(run.processMs, 2)}, server wrote ${round(run.serverWriteKiB, 1)} KiB in ${round(run.serverWrites, 1)} write() calls per subtask`,
    );
  }
}
const ms = (side: Side) => median(runs[side].map((x) => x.ms));
const per = (side: Side, k: 'serverMs' | 'processMs' | 'serverWriteKiB' | 'serverWrites', digits = 2) =>
  round(median(runs[side].map((x) => x[k])), digits);
report(
  'engine-share',
  `Engine share of the distance from bare: N = ${N}, median of ${REPEAT}, each run on a fresh dev server; shaped = bare children with a subtask's footprint in the engine (payloads ${JSON.stringify(shape.bytes)} bytes)`,
  [
    'side',
    'ms',
    'subtasks/s',
    'throughput / bare',
    'dev server CPU ms per subtask',
    'bench process CPU ms per subtask',
    'dev server KiB written per subtask',
    'dev server write() calls per subtask',
  ],
  order.map((side) => [
    side,
    round(ms(side), 0),
    round((N / ms(side)) * 1000),
    `${round(ms('bare') / ms(side), 2)}x`,
    per(side, 'serverMs'),
    per(side, 'processMs'),
    per(side, 'serverWriteKiB', 0),
    per(side, 'serverWrites', 0),
  ]),
  { n: N, repeat: REPEAT, shape, runs },
);
