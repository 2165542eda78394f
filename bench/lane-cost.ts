/**
 * What a tenant's agent lane costs a fan-out: the same N echo subtasks through Delegate, once
 * with the steps on the job's own task queue (how the other benches start jobs) and once on the
 * tenant's lane (`agentQueue`, how the API starts every job: docs/concepts/tenants-and-lanes.md).
 * A step in a lane is not on its subtask's queue, so the server cannot hand it back with the
 * workflow task that scheduled it (eager activity dispatch): a poll and a match more per step.
 * BENCH_REPEAT rounds, each side first in turn, every run on a dev server of its own after a
 * warm-up; medians of the wall time, the dev server's CPU and the bench process's per subtask.
 *
 *   BENCH_N=200 BENCH_REPEAT=4 npm run bench -- lane-cost
 */
import { echoJobInput, onFreshServer, patientResult } from './delegate-runs';
import { benchRecord, quietRuntime, report, round, statCpu } from './lib';
import { agentQueueFor } from '../core/names';
import { bundleWorkflows, createWorkers } from '../workers/worker';
import { delegationJob } from '../workflows/delegation-job';

const N = Number(process.env.BENCH_N ?? 200);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 4);
/** The queue the bench's Delegate worker polls (bench/delegate-runs.ts) and the bench tenant's lane on it. */
const JOB_QUEUE = 'bench-delegate';
const TENANT = 'bench';
const LANE = agentQueueFor(JOB_QUEUE, TENANT);

quietRuntime();
const bundle = await bundleWorkflows();
type Side = 'job queue' | 'tenant lane';
const sides: Side[] = ['job queue', 'tenant lane'];
const runs: Record<Side, { ms: number; serverMs: number; processMs: number }[]> = { 'job queue': [], 'tenant lane': [] };

let seq = 0;
const runSide = (side: Side) =>
  onFreshServer('lane-cost', bundle, async (t) => {
    // the lane's own activity worker, as a worker process makes one per tenant (workers/main.ts); the set's
    // first worker (workflows, on a queue nothing uses) runs too, so that shutting the set down lets the process end
    const workers = await createWorkers(
      {
        connection: t.workerConnection,
        namespace: 'default',
        taskQueue: 'bench-lane-host',
        workflowBundle: bundle,
        record: await benchRecord(),
      },
      [{ taskQueue: LANE, slots: 200 }],
    );
    const running = Promise.all(workers.map((w) => w.run()));
    const run = async (n: number) => {
      const jobId = `lane-${n}-${++seq}`;
      const input = {
        ...echoJobInput(jobId, n, { maxParallel: Math.min(n, 1000) }),
        ...(side === 'tenant lane' ? { agentQueue: LANE } : {}),
      };
      const started = performance.now();
      const result = await patientResult(
        await t.client.workflow.start(delegationJob, { taskQueue: JOB_QUEUE, workflowId: `job/${TENANT}/${jobId}`, args: [input] }),
      );
      if (result.status !== 'success' || result.metrics.subtasks !== n) throw new Error(`${side} ${n}: ${result.status}`);
      return performance.now() - started;
    };
    try {
      await run(10);
      const server = `/proc/${t.server.process.pid!}/stat`;
      const s0 = statCpu(server).ms;
      const p0 = process.cpuUsage();
      const ms = await run(N);
      const p = process.cpuUsage(p0);
      return { ms, serverMs: (statCpu(server).ms - s0) / N, processMs: (p.user + p.system) / 1000 / N };
    } finally {
      workers.forEach((w) => w.shutdown());
      await running;
    }
  });

for (let r = 0; r < REPEAT; r++)
  for (const side of [...sides.slice(r % 2), ...sides.slice(0, r % 2)]) {
    const x = await runSide(side);
    runs[side].push(x);
    console.log(`${side}: ${Math.round(x.ms)} ms, server ${round(x.serverMs, 2)} ms per subtask, process ${round(x.processMs, 2)}`);
  }

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const med = (side: Side, k: 'ms' | 'serverMs' | 'processMs') => median(runs[side].map((x) => x[k]));
report(
  'lane-cost',
  `Steps on the job's queue vs the tenant's lane: N = ${N} echo subtasks through Delegate, median of ${REPEAT}, each run on a fresh dev server`,
  ['steps on', 'ms', 'subtasks/s', 'throughput / job queue', 'dev server CPU ms per subtask', 'bench process CPU ms per subtask'],
  sides.map((side) => [
    side,
    round(med(side, 'ms'), 0),
    round((N / med(side, 'ms')) * 1000),
    `${round(med('job queue', 'ms') / med(side, 'ms'), 2)}x`,
    round(med(side, 'serverMs'), 2),
    round(med(side, 'processMs'), 2),
  ]),
  { n: N, repeat: REPEAT, lane: LANE, runs },
);
