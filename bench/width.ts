/**
 * Width: the widest fan-out that completes in one job (2,000 / 5,000 / 10,000 `echo`
 * subtasks), its time and the peak RSS of the worker process, then the same N as bare
 * child workflows (a tree of 1,000-wide parents: one parent may not hold more) on the same
 * server. Each size gets a fresh Delegate worker process (so the peak is that size's) and a
 * timeout; a size that fails or times out is reported with its progress, and the larger
 * sizes are not tried.
 */
import type { ChildProcess } from 'node:child_process';
import { peakRssMiB, quietRuntime, report, round, spawnTsx, startTemporal, stopChild } from './lib';
import { bareRun, echoManifest, startBareWorker } from './delegate-runs';
import { delegationJob } from '../workflows/delegation-job';
import { jobStatusQuery } from '../workflows/messages';

const SIZES = (process.env.BENCH_WIDTHS ?? '2000,5000,10000').split(',').map(Number);
/** Per-size timeout: BENCH_WIDTH_TIMEOUT seconds, or 60 ms per subtask (at least 2 minutes). */
const timeoutFor = (n: number) => Number(process.env.BENCH_WIDTH_TIMEOUT ?? Math.max(120, Math.round(n * 0.06)));

quietRuntime();
const t = await startTemporal('width');
const taskQueue = 'bench-width';
const rows: (string | number)[][] = [];
const data = [];
let worker: ChildProcess | undefined;
let stopAt: number | undefined;

async function progress(workflowId: string): Promise<string> {
  try {
    const p = await t.client.workflow.getHandle(workflowId).query(jobStatusQuery);
    return p.progress ? `${p.progress.completed}/${p.progress.total} top-level children done` : 'no progress';
  } catch (err) {
    return `status query failed: ${String(err).slice(0, 80)}`;
  }
}

try {
  for (const n of SIZES) {
    if (stopAt !== undefined) {
      rows.push([n, 'not tried', '', '', '', '', '', `${stopAt} did not complete`]);
      data.push({ n, outcome: 'not tried' });
      continue;
    }
    worker = await spawnTsx('workers/main.ts', { TEMPORAL_ADDRESS: t.server.address, DELEGATE_TASK_QUEUE: taskQueue, LOG_LEVEL: 'info' }, 'worker running');
    const jobId = `width-${n}`;
    const workflowId = `job/bench/${jobId}`;
    const started = performance.now();
    const handle = await t.client.workflow.start(delegationJob, {
      taskQueue,
      workflowId,
      args: [{ spec: { jobId, pattern: 'fanout', tasks: Array.from({ length: n }, (_, i) => ({ id: `t${i}`, question: `q${i}`, agent: 'echo' })) }, tenant: 'bench', agents: { echo: echoManifest } }],
    });
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      handle.result().then(
        (r) => ({ kind: 'done' as const, r: r as { status: string; metrics: { subtasks: number }; batches?: unknown[] } }),
        (err: unknown) => ({ kind: 'failed' as const, err }),
      ),
      new Promise<{ kind: 'timeout' }>((resolve) => (timer = setTimeout(() => resolve({ kind: 'timeout' }), timeoutFor(n) * 1000))),
    ]);
    clearTimeout(timer);
    const seconds = (performance.now() - started) / 1000;
    const rss = peakRssMiB(worker.pid!);
    if (outcome.kind === 'done') {
      const { status, metrics, batches } = outcome.r;
      rows.push([n, status, round(seconds), round(n / seconds), rss, `${metrics.subtasks} subtasks in the result${batches ? `, ${batches.length} batches` : ''}`]);
      data.push({ n, outcome: status, seconds, perSec: n / seconds, peakWorkerRssMiB: rss, subtasks: metrics.subtasks, batches: batches?.length });
      if (status !== 'success') stopAt = n;
    } else {
      const why = outcome.kind === 'timeout' ? `timeout after ${timeoutFor(n)}s: ${await progress(workflowId)}` : `failed: ${String((outcome.err as Error).cause ?? outcome.err).slice(0, 120)}`;
      rows.push([n, outcome.kind, round(seconds), '', rss, why]);
      data.push({ n, outcome: outcome.kind, seconds, peakWorkerRssMiB: rss, why });
      await handle.terminate('bench timeout').catch(() => undefined);
      stopAt = n;
    }
    await stopChild(worker);
    worker = undefined;
    if (outcome.kind === 'done') {
      // the bare baseline for the same N, on the same server, with the Delegate worker gone
      const bare = await startBareWorker(t.workerConnection);
      const running = bare.run();
      try {
        const { ms } = await bareRun(t.client, n, 'width-bare');
        rows[rows.length - 1].splice(4, 0, round(ms / 1000), `${round(ms / 1000 / seconds, 2)}x`);
        Object.assign(data[data.length - 1], { bareSeconds: ms / 1000 });
      } finally {
        bare.shutdown();
        await running;
      }
    } else rows[rows.length - 1].splice(4, 0, '', '');
  }
  report('width', `Width: one fan-out job of N echo subtasks (timeout per size: ${SIZES.map((n) => `${n}: ${timeoutFor(n)}s`).join(', ')})`, ['N', 'outcome', 'Delegate s', 'subtasks/s', 'bare s', 'Delegate/bare throughput', 'peak worker RSS MiB', 'notes'], rows, data);
} finally {
  await stopChild(worker);
  await t.close();
}
