/**
 * Orchestration overhead: a fan-out of N no-op subtasks through Delegate (the
 * `delegationJob` workflow, started straight through the Temporal client, `echo` agent)
 * vs N bare child workflows each running one no-op activity (bench/baseline/), against
 * the same dev server in the same run. Both workers run in this process.
 */
import { Worker } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import * as baselineActivities from './baseline/activities';
import { bundleWorkflows, createWorker } from '../workers/worker';
import { quietRuntime, report, round, startTemporal } from './lib';
import { delegationJob } from '../workflows/delegation-job';
import { baselineFanout } from './baseline/workflows';
import { builtinAgents } from '../activities';

const echoManifest = builtinAgents.find((a) => a.manifest.id === 'echo')!.manifest;

const SIZES = (process.env.BENCH_SIZES ?? '10,100,1000').split(',').map(Number);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 2);

quietRuntime();
const t = await startTemporal('orchestration');
const delegateQueue = 'bench-delegate';
const baselineQueue = 'bench-baseline';
const delegateWorker = await createWorker({ connection: t.workerConnection, namespace: 'default', taskQueue: delegateQueue, workflowBundle: await bundleWorkflows() });
const baselineWorker = await Worker.create({
  connection: t.workerConnection,
  taskQueue: baselineQueue,
  workflowsPath: fileURLToPath(new URL('./baseline/workflows.ts', import.meta.url)),
  activities: baselineActivities,
  maxConcurrentActivityTaskExecutions: 200,
});
const running = Promise.all([delegateWorker.run(), baselineWorker.run()]);

let seq = 0;
/** The API resolves agents at submission and hands each subtask its manifest; `resolve: true` starts without them (each subtask resolves its agent in an activity). */
async function delegate(n: number, resolve = false): Promise<number> {
  const jobId = `orch-${n}-${++seq}`;
  const started = performance.now();
  const result = (await t.client.workflow.execute(delegationJob, {
    taskQueue: delegateQueue,
    workflowId: `job/bench/${jobId}`,
    args: [{ spec: { jobId, pattern: 'fanout', maxParallel: Math.min(n, 1000), tasks: Array.from({ length: n }, (_, i) => ({ id: `t${i}`, question: `q${i}`, agent: 'echo' })) }, tenant: 'bench', ...(resolve ? {} : { agents: { echo: echoManifest } }) }],
  }));
  if (result.status !== 'success' || result.metrics.subtasks !== n) throw new Error(`delegate ${n}: ${result.status}, ${result.metrics.subtasks} subtasks`);
  return performance.now() - started;
}

async function baseline(n: number): Promise<number> {
  const started = performance.now();
  const done = await t.client.workflow.execute(baselineFanout, { taskQueue: baselineQueue, workflowId: `baseline-${n}-${++seq}`, args: [{ n }] });
  if (done !== n) throw new Error(`baseline ${n}: ${String(done)}`);
  return performance.now() - started;
}

const rows: (string | number)[][] = [];
const data = [];
try {
  await delegate(10); // warm-up: workflow caches, connections
  await baseline(10);
  for (const n of SIZES) {
    const d: number[] = [];
    const b: number[] = [];
    const u: number[] = [];
    for (let r = 0; r < REPEAT; r++) {
      // alternate, so neither side always runs on a warmer server
      if (r % 2 === 0) {
        d.push(await delegate(n));
        b.push(await baseline(n));
        u.push(await delegate(n, true));
      } else {
        u.push(await delegate(n, true));
        b.push(await baseline(n));
        d.push(await delegate(n));
      }
    }
    const best = (xs: number[]) => Math.min(...xs);
    const dRate = (n / best(d)) * 1000;
    const bRate = (n / best(b)) * 1000;
    const uRate = (n / best(u)) * 1000;
    rows.push([n, round(best(d), 0), round(dRate), round(best(b), 0), round(bRate), `${round(bRate / dRate, 2)}x`, `${round(bRate / uRate, 2)}x`]);
    data.push({ n, delegateMs: d, baselineMs: b, resolvingMs: u, delegatePerSec: dRate, baselinePerSec: bRate, ratio: bRate / dRate, resolvingRatio: bRate / uRate });
  }
  report(
    'orchestration',
    `Orchestration overhead: N no-op subtasks, Delegate fan-out vs bare child workflows (best of ${REPEAT})`,
    ['N', 'delegate ms', 'delegate subtasks/s', 'bare SDK ms', 'bare subtasks/s', 'bare/delegate', 'bare/delegate (resolveAgent per subtask)'],
    rows,
    data,
  );
} finally {
  delegateWorker.shutdown();
  baselineWorker.shutdown();
  await running.catch((err) => console.error(err));
  await t.close();
}
