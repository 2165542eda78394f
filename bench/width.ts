/**
 * Width: the widest fan-out that completes in one job (2,000 / 5,000 / 10,000 `echo`
 * subtasks), its time and the peak RSS of the worker process; then the same job on the
 * "before" commit's worker (BENCH_BEFORE, `none` to skip) and the same N as bare child
 * workflows (a tree of 1,000-wide parents: one parent may not hold more). Every run gets a
 * dev server of its own (a fresh database: on one server for every run, the server's cost per
 * subtask grows as its database fills, and the side that ran last paid for the others' histories,
 * bench/history/2026-12-05-diary.md); each Delegate run a fresh worker process (so the peak is that run's) and a
 * timeout; a size that fails or times out is reported with its progress, and the larger
 * sizes are not tried.
 */
import type { ChildProcess } from 'node:child_process';
import {
  beforeCheckout,
  peakRssMiB,
  quietRuntime,
  report,
  root,
  round,
  spawnTsx,
  withTemporal,
  stopChild,
  type BenchTemporal,
} from './lib';
import { bareRun, echoJobInput, patientResult, startBareWorker } from './delegate-runs';
import { delegationJob } from '../workflows/delegation-job';
import { jobStatusQuery } from '../contracts/messages';

const SIZES = (process.env.BENCH_WIDTHS ?? '2000,5000,10000').split(',').map(Number);
/** Per-size timeout: BENCH_WIDTH_TIMEOUT seconds, or 60 ms per subtask (at least 2 minutes). */
const timeoutFor = (n: number) => Number(process.env.BENCH_WIDTH_TIMEOUT ?? Math.max(120, Math.round(n * 0.06)));

quietRuntime();
const beforeDir = beforeCheckout();
const rows: (string | number)[][] = [];
const data = [];
let worker: ChildProcess | undefined;
let stopAt: number | undefined;

async function progress(t: BenchTemporal, workflowId: string): Promise<string> {
  try {
    const p = await t.client.workflow.getHandle(workflowId).query(jobStatusQuery);
    return p.progress ? `${p.progress.completed}/${p.progress.total} top-level children done` : 'no progress';
  } catch (err) {
    return `status query failed: ${String(err).slice(0, 80)}`;
  }
}

type Outcome = { ok: true; seconds: number; rss: number; note: string } | { ok: false; seconds: number; rss: number; note: string };

/** One N-wide job on a fresh worker process of `cwd`'s checkout, on a server of its own. */
const delegateWidth = (n: number, side: 'after' | 'before', cwd: string) => withTemporal('width', (t) => delegateWidthOn(t, n, side, cwd));

async function delegateWidthOn(t: BenchTemporal, n: number, side: 'after' | 'before', cwd: string): Promise<Outcome> {
  const taskQueue = `bench-width-${side}`;
  worker = await spawnTsx(
    'workers/main.ts',
    { TEMPORAL_ADDRESS: t.server.address, DELEGATE_TASK_QUEUE: taskQueue, LOG_LEVEL: 'info' },
    'worker running',
    cwd,
  );
  const jobId = `width-${side}-${n}`;
  const workflowId = `job/bench/${jobId}`;
  const started = performance.now();
  const handle = await t.client.workflow.start(delegationJob, {
    taskQueue,
    workflowId,
    args: [echoJobInput(jobId, n)],
  });
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    patientResult(handle).then(
      (r) => ({ kind: 'done' as const, r: r as { status: string; metrics: { subtasks: number }; batches?: unknown[] } }),
      (err: unknown) => ({ kind: 'failed' as const, err }),
    ),
    new Promise<{ kind: 'timeout' }>((resolve) => (timer = setTimeout(() => resolve({ kind: 'timeout' }), timeoutFor(n) * 1000))),
  ]);
  clearTimeout(timer);
  const seconds = (performance.now() - started) / 1000;
  const rss = peakRssMiB(worker.pid!);
  await stopChild(worker);
  worker = undefined;
  if (outcome.kind === 'done') {
    const { status, metrics, batches } = outcome.r;
    return {
      ok: status === 'success',
      seconds,
      rss,
      note: `${status}: ${metrics.subtasks} subtasks${batches ? `, ${batches.length} batches` : ''}`,
    };
  }
  const note =
    outcome.kind === 'timeout'
      ? `timeout after ${timeoutFor(n)}s: ${await progress(t, workflowId)}`
      : `failed: ${String((outcome.err as Error).cause ?? outcome.err).slice(0, 120)}`;
  await handle.terminate('bench timeout').catch(() => undefined);
  return { ok: false, seconds, rss, note };
}

/** The bare baseline for N, on an in-process worker (no Delegate worker running), on a server of its own. */
const bareWidth = (n: number) =>
  withTemporal('width', async (t) => {
    const bare = await startBareWorker(t.workerConnection);
    const running = bare.run();
    try {
      return (await bareRun(t.client, n, 'width-bare')).ms / 1000;
    } finally {
      bare.shutdown();
      await running;
    }
  });

try {
  for (const n of SIZES) {
    if (stopAt !== undefined) {
      rows.push([n, 'not tried', '', '', '', '', '', '', '', `${stopAt} did not complete`]);
      data.push({ n, outcome: 'not tried' });
      continue;
    }
    if (process.env.BENCH_WIDTH_BARE_ONLY) {
      const bareOnly = await bareWidth(n);
      console.log(`${n} bare: ${round(bareOnly)} s`);
      rows.push([n, 'bare only', '–', '–', round(bareOnly), '–', '–', '–', '–', '']);
      data.push({ n, bareSeconds: bareOnly });
      continue;
    }
    const after = await delegateWidth(n, 'after', root);
    console.log(`${n} after: ${JSON.stringify(after)}`);
    if (!after.ok) stopAt = n;
    const before = beforeDir ? await delegateWidth(n, 'before', beforeDir) : undefined;
    if (before) console.log(`${n} before: ${JSON.stringify(before)}`);
    const bare = after.ok ? await bareWidth(n) : NaN;
    const ratio = (s: number | undefined) => (s && bare ? `${round(bare / s, 2)}x` : '–');
    rows.push([
      n,
      after.ok ? 'success' : 'failed',
      round(after.seconds),
      before ? round(before.seconds) : '–',
      round(bare),
      ratio(after.ok ? after.seconds : undefined),
      ratio(before?.ok ? before.seconds : undefined),
      after.rss,
      before?.rss ?? '–',
      `${after.note}${before ? `; before: ${before.note}` : ''}`,
    ]);
    data.push({ n, after, before, bareSeconds: bare });
  }
  report(
    'width',
    `Width: one fan-out job of N echo subtasks (timeout per run: ${SIZES.map((n) => `${n}: ${timeoutFor(n)}s`).join(', ')})`,
    [
      'N',
      'outcome',
      'Delegate s',
      'before s',
      'bare s',
      'Delegate/bare throughput',
      'before/bare',
      'peak worker RSS MiB',
      'before RSS MiB',
      'notes',
    ],
    rows,
    data,
  );
} finally {
  await stopChild(worker);
}
