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
import { BENCH_LANE, delegateRun, onFreshServer } from './delegate-runs';
import { cpuPerSubtask, median, quietRuntime, report, round } from './lib';
import { bundleWorkflows } from '../workers/worker';

const N = Number(process.env.BENCH_N ?? 200);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 4);

quietRuntime();
const bundle = await bundleWorkflows();
type Side = 'job queue' | 'tenant lane';
const sides: Side[] = ['job queue', 'tenant lane'];
const runs: Record<Side, { ms: number; serverMs: number; processMs: number }[]> = { 'job queue': [], 'tenant lane': [] };

// both sides' workers serve the lane (as a worker process does for each tenant: workers/main.ts); one side's jobs use it
const runSide = (side: Side) =>
  onFreshServer(
    'lane-cost',
    bundle,
    async (t) => {
      const run = (n: number) =>
        delegateRun(t.client, n, { prefix: 'lane', ...(side === 'tenant lane' ? { agentQueue: BENCH_LANE } : {}) });
      await run(10);
      return cpuPerSubtask(t.server, N, () => run(N));
    },
    [{ taskQueue: BENCH_LANE, slots: 200 }],
  );

for (let r = 0; r < REPEAT; r++)
  for (const side of [...sides.slice(r % 2), ...sides.slice(0, r % 2)]) {
    const x = await runSide(side);
    runs[side].push(x);
    console.log(`${side}: ${Math.round(x.ms)} ms, server ${round(x.serverMs, 2)} ms per subtask, process ${round(x.processMs, 2)}`);
  }

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
  { n: N, repeat: REPEAT, lane: BENCH_LANE, runs },
);
