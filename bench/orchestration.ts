/**
 * Orchestration overhead: a fan-out of N no-op subtasks through Delegate (the
 * `delegationJob` workflow, started straight through the Temporal client, `echo` agent)
 * vs N bare child workflows each running one no-op activity (bench/baseline/), against
 * the same dev server in the same run, alternating, best of BENCH_REPEAT. Then what each
 * side cost the engine, read back from the histories: events, workflow tasks and activity
 * tasks per subtask (the subtask's own, and with the parents' share).
 */
import { perSubtask, treeCost } from './history-cost';
import { bareRun, delegateRun, startBenchWorkers } from './delegate-runs';
import { quietRuntime, report, round, startTemporal } from './lib';

const SIZES = (process.env.BENCH_SIZES ?? '200,400,1000').split(',').map(Number);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 2);

quietRuntime();
const t = await startTemporal('orchestration');
const workers = await startBenchWorkers(t.workerConnection);

const rows: (string | number)[][] = [];
const costRows: (string | number)[][] = [];
const data = [];
try {
  await delegateRun(t.client, 10); // warm-up: workflow caches, connections
  await bareRun(t.client, 10);
  for (const n of SIZES) {
    const d: { ms: number; workflowId: string }[] = [];
    const b: { ms: number; workflowId: string }[] = [];
    const u: { ms: number; workflowId: string }[] = [];
    for (let r = 0; r < REPEAT; r++) {
      // alternate, so neither side always runs on a warmer server
      if (r % 2 === 0) {
        d.push(await delegateRun(t.client, n));
        b.push(await bareRun(t.client, n));
        u.push(await delegateRun(t.client, n, { resolve: true }));
      } else {
        u.push(await delegateRun(t.client, n, { resolve: true }));
        b.push(await bareRun(t.client, n));
        d.push(await delegateRun(t.client, n));
      }
    }
    const best = (xs: { ms: number }[]) => Math.min(...xs.map((x) => x.ms));
    const dRate = (n / best(d)) * 1000;
    const bRate = (n / best(b)) * 1000;
    const uRate = (n / best(u)) * 1000;
    const dCost = perSubtask(await treeCost(t.client, d[0].workflowId), n);
    const bCost = perSubtask(await treeCost(t.client, b[0].workflowId), n);
    rows.push([n, round(best(d), 0), round(dRate), round(best(b), 0), round(bRate), `${round(dRate / bRate, 2)}x`, `${round(uRate / bRate, 2)}x`]);
    const fmt = (c: { events: number; workflowTasks: number; activityTasks: number }) => `${c.events} / ${c.workflowTasks} / ${c.activityTasks}`;
    costRows.push([n, fmt(dCost.subtask), fmt(bCost.subtask), fmt(dCost.withParents), fmt(bCost.withParents)]);
    data.push({ n, delegateMs: d.map((x) => x.ms), baselineMs: b.map((x) => x.ms), resolvingMs: u.map((x) => x.ms), delegatePerSec: dRate, baselinePerSec: bRate, ratio: dRate / bRate, resolvingRatio: uRate / bRate, delegateCost: dCost, baselineCost: bCost });
  }
  report(
    'orchestration',
    `Orchestration overhead: N no-op subtasks, Delegate fan-out vs bare child workflows (best of ${REPEAT})`,
    ['N', 'Delegate ms', 'Delegate subtasks/s', 'bare ms', 'bare subtasks/s', 'Delegate/bare throughput', 'same, agent resolved per subtask'],
    rows,
    data,
  );
  report(
    'orchestration-cost',
    'Engine cost per subtask, from the histories: events / workflow tasks / activity tasks',
    ['N', 'Delegate subtask', 'bare child', 'Delegate incl. parents', 'bare incl. parent'],
    costRows,
    data.map(({ n, delegateCost, baselineCost }) => ({ n, delegateCost, baselineCost })),
  );
} finally {
  await workers.stop().catch((err) => console.error(err));
  await t.close();
}
