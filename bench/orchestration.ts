/**
 * Orchestration overhead: a fan-out of N no-op subtasks through Delegate (the
 * `delegationJob` workflow, started straight through the Temporal client, `echo` agent)
 * vs N bare child workflows each running one no-op activity (bench/baseline/), against
 * dev servers of the same kind in the same run, each run on a server of its own (a fresh
 * database, after a warm-up of 10: on one server for every run, its cost per subtask grows as
 * its database fills and the later side pays more), each side first in turn, best of
 * BENCH_REPEAT, and the ratio of each side's median run (steadier than best-of on a 2-core
 * host: BENCH_REPEAT=5 for a figure to compare across days). Then what each side cost the
 * engine, read back from the histories of its first run: events, workflow tasks and activity
 * tasks per subtask (the subtask's own, and with the parents' share). With a "before"
 * commit (BENCH_BEFORE, default DEFAULT_BEFORE_REF; `none` to skip), its worker runs the
 * same jobs in the same run, so before and after are measured side by side.
 */
import { perSubtask, treeCost } from './history-cost';
import { BEFORE_QUEUE, bareRun, beforeWorkerModule, delegateRun, onFreshServer, startBeforeWorker } from './delegate-runs';
import { beforeCheckout, DEFAULT_BEFORE_REF, median, quietRuntime, report, round } from './lib';
import { bundleWorkflows } from '../workers/worker';

const SIZES = (process.env.BENCH_SIZES ?? '200,400,1000').split(',').map(Number);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 2);

quietRuntime();
type Side = 'delegate' | 'bare' | 'before';
const bundle = await bundleWorkflows();
const beforeDir = beforeCheckout();
const beforeCode = beforeDir ? await beforeWorkerModule(beforeDir) : undefined;
const beforeBundle = beforeCode?.bundleWorkflows ? await beforeCode.bundleWorkflows() : undefined;

/**
 * One timed run of one side on a dev server of its own, after a warm-up of 10; with `cost`, what
 * the run cost the engine, read back from its histories.
 */
const runOn = (side: Side, n: number, cost: boolean) =>
  onFreshServer('orchestration', bundle, async (t) => {
    const beforeWorker = side === 'before' ? await startBeforeWorker(t.workerConnection, beforeDir!, beforeBundle) : undefined;
    const beforeRunning = beforeWorker?.run();
    const run = (k: number) =>
      side === 'bare'
        ? bareRun(t.client, k)
        : delegateRun(t.client, k, side === 'before' ? { taskQueue: BEFORE_QUEUE, prefix: 'before' } : {});
    try {
      await run(10);
      const { ms, workflowId } = await run(n);
      return { ms, cost: cost ? perSubtask(await treeCost(t.client, workflowId), n) : undefined };
    } finally {
      beforeWorker?.shutdown();
      await beforeRunning?.catch((err) => console.error(err));
    }
  });

const sides: Side[] = ['delegate', 'bare', ...(beforeCode ? (['before'] as const) : [])];
const rows: (string | number)[][] = [];
const costRows: (string | number)[][] = [];
const data = [];
for (const n of SIZES) {
  const runs: Record<Side, { ms: number; cost?: ReturnType<typeof perSubtask> }[]> = { delegate: [], bare: [], before: [] };
  for (let r = 0; r < REPEAT; r++) {
    // each side first in turn, so none always runs on a warmer machine
    for (const side of [...sides.slice(r % sides.length), ...sides.slice(0, r % sides.length)])
      runs[side].push(await runOn(side, n, r === 0));
  }
  const best = (xs: { ms: number }[]) => (xs.length ? Math.min(...xs.map((x) => x.ms)) : NaN);
  // best-of keeps each side's luckiest run, which on this 2-core host moves a ratio by ±10% from run to run; medians move less
  const middle = (xs: { ms: number }[]) => median(xs.map((x) => x.ms));
  const [d, b, u] = [runs.delegate, runs.bare, runs.before];
  const dRate = (n / best(d)) * 1000;
  const bRate = (n / best(b)) * 1000;
  const uRate = (n / best(u)) * 1000;
  const [dCost, bCost, uCost] = [d[0]!.cost!, b[0]!.cost!, u[0]?.cost];
  rows.push([
    n,
    round(best(d), 0),
    round(dRate),
    round(best(b), 0),
    round(bRate),
    `${round(dRate / bRate, 2)}x`,
    `${round(middle(b) / middle(d), 2)}x`,
    u.length ? `${round(uRate / bRate, 2)}x` : '–',
  ]);
  const fmt = (c: { events: number; workflowTasks: number; activityTasks: number }) =>
    `${c.events} / ${c.workflowTasks} / ${c.activityTasks}`;
  costRows.push([
    n,
    fmt(dCost.subtask),
    fmt(bCost.subtask),
    uCost ? fmt(uCost.subtask) : '–',
    fmt(dCost.withParents),
    fmt(bCost.withParents),
    uCost ? fmt(uCost.withParents) : '–',
  ]);
  data.push({
    n,
    delegateMs: d.map((x) => x.ms),
    baselineMs: b.map((x) => x.ms),
    beforeMs: u.map((x) => x.ms),
    delegatePerSec: dRate,
    baselinePerSec: bRate,
    ratio: dRate / bRate,
    medianRatio: middle(b) / middle(d),
    beforeRatio: uRate / bRate,
    delegateCost: dCost,
    baselineCost: bCost,
    beforeCost: uCost,
  });
}
report(
  'orchestration',
  `Orchestration overhead: N no-op subtasks, Delegate fan-out vs bare child workflows (best of ${REPEAT} and the ratio of the medians, each run on a fresh dev server)`,
  [
    'N',
    'Delegate ms',
    'Delegate subtasks/s',
    'bare ms',
    'bare subtasks/s',
    'Delegate/bare throughput',
    'Delegate/bare, medians',
    `before (${process.env.BENCH_BEFORE ?? DEFAULT_BEFORE_REF})/bare`,
  ],
  rows,
  data,
);
report(
  'orchestration-cost',
  'Engine cost per subtask, from the histories: events / workflow tasks / activity tasks',
  ['N', 'Delegate subtask', 'bare child', 'before subtask', 'Delegate incl. parents', 'bare incl. parent', 'before incl. parents'],
  costRows,
  data.map(({ n, delegateCost, baselineCost, beforeCost }) => ({ n, delegateCost, baselineCost, beforeCost })),
);
