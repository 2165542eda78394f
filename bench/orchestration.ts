/**
 * Orchestration overhead: a fan-out of N no-op subtasks through Delegate (the
 * `delegationJob` workflow, started straight through the Temporal client, `echo` agent)
 * vs N bare child workflows each running one no-op activity (bench/baseline/), against
 * the same dev server in the same run, alternating, best of BENCH_REPEAT. Then what each
 * side cost the engine, read back from the histories: events, workflow tasks and activity
 * tasks per subtask (the subtask's own, and with the parents' share). With a "before"
 * commit (BENCH_BEFORE, default DEFAULT_BEFORE_REF; `none` to skip), its worker runs the
 * same jobs in the same run, so before and after are measured side by side.
 */
import { perSubtask, treeCost } from './history-cost';
import { BEFORE_QUEUE, bareRun, delegateRun, startBeforeWorker, startBenchWorkers } from './delegate-runs';
import { beforeCheckout, DEFAULT_BEFORE_REF, quietRuntime, report, round, startTemporal } from './lib';

const SIZES = (process.env.BENCH_SIZES ?? '200,400,1000').split(',').map(Number);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 2);

quietRuntime();
const t = await startTemporal('orchestration');
const workers = await startBenchWorkers(t.workerConnection);
const beforeDir = beforeCheckout();
const beforeWorker = beforeDir ? await startBeforeWorker(t.workerConnection, beforeDir) : undefined;
const beforeRunning = beforeWorker?.run();
const before = (n: number) => delegateRun(t.client, n, { taskQueue: BEFORE_QUEUE, prefix: 'before' });

const rows: (string | number)[][] = [];
const costRows: (string | number)[][] = [];
const data = [];
try {
  await delegateRun(t.client, 10); // warm-up: workflow caches, connections
  await bareRun(t.client, 10);
  if (beforeWorker) await before(10);
  for (const n of SIZES) {
    const d: { ms: number; workflowId: string }[] = [];
    const b: { ms: number; workflowId: string }[] = [];
    const u: { ms: number; workflowId: string }[] = [];
    for (let r = 0; r < REPEAT; r++) {
      // alternate, so neither side always runs on a warmer server
      if (r % 2 === 0) {
        d.push(await delegateRun(t.client, n));
        b.push(await bareRun(t.client, n));
        if (beforeWorker) u.push(await before(n));
      } else {
        if (beforeWorker) u.push(await before(n));
        b.push(await bareRun(t.client, n));
        d.push(await delegateRun(t.client, n));
      }
    }
    const best = (xs: { ms: number }[]) => (xs.length ? Math.min(...xs.map((x) => x.ms)) : NaN);
    const dRate = (n / best(d)) * 1000;
    const bRate = (n / best(b)) * 1000;
    const uRate = (n / best(u)) * 1000;
    const dCost = perSubtask(await treeCost(t.client, d[0].workflowId), n);
    const bCost = perSubtask(await treeCost(t.client, b[0].workflowId), n);
    const uCost = u.length ? perSubtask(await treeCost(t.client, u[0].workflowId), n) : undefined;
    rows.push([
      n,
      round(best(d), 0),
      round(dRate),
      round(best(b), 0),
      round(bRate),
      `${round(dRate / bRate, 2)}x`,
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
      beforeRatio: uRate / bRate,
      delegateCost: dCost,
      baselineCost: bCost,
      beforeCost: uCost,
    });
  }
  report(
    'orchestration',
    `Orchestration overhead: N no-op subtasks, Delegate fan-out vs bare child workflows (best of ${REPEAT})`,
    [
      'N',
      'Delegate ms',
      'Delegate subtasks/s',
      'bare ms',
      'bare subtasks/s',
      'Delegate/bare throughput',
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
} finally {
  beforeWorker?.shutdown();
  await beforeRunning?.catch((err) => console.error(err));
  await workers.stop().catch((err) => console.error(err));
  await t.close();
}
