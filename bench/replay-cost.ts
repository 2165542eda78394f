/**
 * What the workflow code costs, without a server in the loop: one echo fan-out of N through
 * Delegate and N bare child workflows (the orchestration bench's baseline) run once on a fresh
 * dev server, their histories read back, then replayed in this process BENCH_REPEAT times, the
 * sides alternating which goes first. Replay runs every line of the workflow code a live run
 * runs (and none of the activities', the server's or the network's), so the process CPU per
 * history is the workflow thread's work plus the SDK's fixed cost per replayed run; the fixed
 * part is the same on both sides and the difference is the code's. Steadier than the throughput
 * benches on a shared machine: no server shares the cores, nothing waits.
 *
 *   subtask run:   one leaf history replayed (Delegate's subtask, bare's child)
 *   job per child: the parents' histories replayed (Delegate's job and its batches, bare's parent), per leaf
 *   replay worker start: what each replay call pays once (the bundle evaluated in a new context, its
 *                  source map parsed), measured with one leaf and taken out of the two figures above
 *
 * With BENCH_BEFORE=<commit>, that commit's worker runs the same fan-out on the same server and its
 * histories replay with its own bundle: an A/B of the workflow code alone.
 *
 *   BENCH_N=200 BENCH_REPEAT=7 npm run bench -- replay-cost
 */
import { bundleWorkflowCode, Worker, type WorkflowBundle } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import { fileURLToPath } from 'node:url';
import { BEFORE_QUEUE, bareRun, beforeWorkerModule, delegateRun, onFreshServer, startBeforeWorker } from './delegate-runs';
import { walkTree, type TreeNode } from './history-cost';
import { beforeCheckout, median, quietRuntime, report, round, silentLogger } from './lib';
import { bundleWorkflows } from '../workers/worker';
import { createWorkerMetrics } from '../telemetry/metrics';
import { metricsSinks } from '../telemetry/metrics-sinks';
import { reportSinks } from '../telemetry/report-sinks';

const N = Number(process.env.BENCH_N ?? 200);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 7);
const PARENT_TIMES = 5;
type Recorded = Omit<TreeNode, 'isParent'>;

/** A run's histories: workflows that start children (the job, its batches; bare's parent) and the leaves. */
async function tree(client: Client, rootId: string): Promise<{ parents: Recorded[]; leaves: Recorded[] }> {
  const parents: Recorded[] = [];
  const leaves: Recorded[] = [];
  await walkTree(client, rootId, ({ workflowId, history, isParent }) => (isParent ? parents : leaves).push({ workflowId, history }));
  return { parents, leaves };
}

/** CPU of this process (ms) while every history is replayed once. */
async function replayCpu(bundle: WorkflowBundle, histories: Recorded[], sinks: Parameters<typeof Worker.runReplayHistories>[0]['sinks']) {
  const c0 = process.cpuUsage();
  for await (const r of Worker.runReplayHistories({ workflowBundle: bundle, replayName: 'replay-cost', sinks }, histories)) {
    if (r.error) throw new Error(`${r.workflowId} did not replay: ${String(r.error)}`);
  }
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}

quietRuntime();
const delegateBundle = await bundleWorkflows();
const bareBundle = await bundleWorkflowCode({
  workflowsPath: fileURLToPath(new URL('./baseline/workflows.ts', import.meta.url)),
  logger: silentLogger,
});
// only when asked: the throughput benches' default "before" (issue 9's) replays nothing of today's
const beforeDir = process.env.BENCH_BEFORE ? beforeCheckout() : undefined;
const beforeCode = beforeDir ? await beforeWorkerModule(beforeDir) : undefined;
const beforeBundle = beforeCode?.bundleWorkflows ? await beforeCode.bundleWorkflows() : undefined;
if (beforeDir && !beforeBundle) throw new Error(`BENCH_BEFORE=${process.env.BENCH_BEFORE}: that commit has no bundleWorkflows()`);
const recorded = await onFreshServer('replay-cost', delegateBundle, async (t) => {
  await delegateRun(t.client, 10); // warm-up
  const delegate = await tree(t.client, (await delegateRun(t.client, N)).workflowId);
  const bare = await tree(t.client, (await bareRun(t.client, N)).workflowId);
  if (!beforeDir) return { delegate, bare };
  const worker = await startBeforeWorker(t.workerConnection, beforeDir, beforeBundle);
  const running = worker.run();
  try {
    const opts = { taskQueue: BEFORE_QUEUE, prefix: 'before' };
    await delegateRun(t.client, 10, opts);
    return { delegate, bare, before: await tree(t.client, (await delegateRun(t.client, N, opts)).workflowId) };
  } finally {
    worker.shutdown();
    await running;
  }
});
const metrics = createWorkerMetrics();
const sinks = { ...metricsSinks(metrics), ...reportSinks(metrics) };
const sides = [
  { name: 'bare child workflows', bundle: bareBundle, ...recorded.bare, sinks: undefined },
  { name: 'Delegate', bundle: delegateBundle, ...recorded.delegate, sinks },
  ...(recorded.before && beforeBundle
    ? [{ name: `Delegate, ${process.env.BENCH_BEFORE}`, bundle: beforeBundle, ...recorded.before, sinks }]
    : []),
];
for (const s of sides) if (s.leaves.length !== N) throw new Error(`${s.name}: ${s.leaves.length} leaves, expected ${N}`);
const runs = new Map(sides.map((s) => [s.name, { leaf: [] as number[], parent: [] as number[], start: [] as number[] }]));
for (let r = 0; r < REPEAT; r++) {
  for (const s of r % 2 ? [...sides].reverse() : sides) {
    const x = runs.get(s.name)!;
    // each replay call starts a replay worker (the bundle into a new context, its source map parsed):
    // a live worker does that once. A call with one leaf measures it, and the differences cancel it
    const one = await replayCpu(s.bundle, s.leaves.slice(0, 1), s.sinks);
    const leaf = ((await replayCpu(s.bundle, s.leaves, s.sinks)) - one) / (N - 1);
    x.leaf.push(leaf);
    // the parents replayed PARENT_TIMES over in one call: the code warms up on the first, as a live worker's has
    const parents = Array.from({ length: PARENT_TIMES }, () => s.parents).flat();
    x.parent.push(((await replayCpu(s.bundle, parents, s.sinks)) - one + leaf) / (N * PARENT_TIMES));
    x.start.push(one - leaf);
  }
}
const bare = runs.get(sides[0]!.name)!;
const rows = sides.map((s) => {
  const x = runs.get(s.name)!;
  const total = median(x.leaf) + median(x.parent);
  return [
    s.name,
    s.leaves.length,
    s.parents.length,
    s.leaves.reduce((n, h) => n + h.history.events!.length, 0) / N,
    round(median(x.leaf), 2),
    round(Math.min(...x.leaf), 2),
    round(median(x.parent), 2),
    round(Math.min(...x.parent), 2),
    round(total, 2),
    `${round(total / (median(bare.leaf) + median(bare.parent)), 2)}x`,
    Math.round(median(x.start)),
  ];
});
report(
  'replay-cost',
  `Workflow code's CPU without a server: N = ${N} echo subtasks, their histories replayed ${REPEAT} times per side, ms of process CPU per subtask (median, min)`,
  [
    'side',
    'leaves',
    'parents',
    'events per leaf',
    'subtask run',
    'min',
    'job per child',
    'min',
    'total (medians)',
    'vs bare',
    'replay worker start, ms',
  ],
  rows,
  Object.fromEntries(runs),
);
