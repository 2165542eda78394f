/**
 * Early decisions: a 9-voter majority vote that decides as soon as the outcome is settled
 * (and cancels the voters still running) vs waiting for all voters (a fan-out of the same
 * 9 voters). Five fast voters agree; four slow ones cannot change the outcome. Cost and
 * time of each. Skips with a message when the `vote` pattern is not available yet.
 */
import { WorkflowFailedError } from '@temporalio/client';
import type { JobResult } from '../schemas';
import { bundleWorkflows, createWorker } from '../workers/worker';
import { benchRecord, quietRuntime, report, round, startTemporal } from './lib';
import { delegationJob } from '../workflows/delegation-job';

const REPEAT = Number(process.env.BENCH_REPEAT ?? 2);
const voters = Array.from({ length: 9 }, (_, i) => ({
  id: `v${i}`,
  question: 'Which option?',
  agent: 'sim',
  params:
    i < 5
      ? { answer: 'A', steps: 3, latencyMs: 100, costUsd: 0.01 }
      : { answer: i % 2 ? 'A' : 'B', steps: 3, latencyMs: 1500, costUsd: 0.01 },
}));

quietRuntime();
const t = await startTemporal('vote');
const taskQueue = 'bench-vote';
const worker = await createWorker({
  connection: t.workerConnection,
  namespace: 'default',
  taskQueue,
  workflowBundle: await bundleWorkflows(),
  record: await benchRecord(),
});
const running = worker.run();

let seq = 0;
async function run(pattern: 'vote' | 'fanout'): Promise<{ ms: number; result: JobResult }> {
  const jobId = `${pattern}-${++seq}`;
  const spec =
    pattern === 'vote' ? { jobId, pattern, vote: { strategy: 'majority' as const }, tasks: voters } : { jobId, pattern, tasks: voters };
  const started = performance.now();
  const result = await t.client.workflow.execute(delegationJob, {
    taskQueue,
    workflowId: `job/bench/${jobId}`,
    args: [{ spec, tenant: 'bench' }],
  });
  return { ms: performance.now() - started, result };
}

try {
  let available = true;
  try {
    const probe = await run('vote');
    if (!probe.result.vote) available = false;
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) throw err;
    available = false;
    console.log(
      `vote bench skipped: the vote pattern is not available yet (${String((err.cause as Error | undefined)?.message ?? err.message)})`,
    );
  }
  if (available) {
    const rows: (string | number)[][] = [];
    const data = [];
    for (const pattern of ['vote', 'fanout'] as const) {
      const runs = [];
      for (let r = 0; r < REPEAT; r++) runs.push(await run(pattern));
      const ms = Math.min(...runs.map((x) => x.ms));
      const { result } = runs[0];
      const finished = result.results.filter((x) => x.status === 'success').length;
      rows.push([
        pattern === 'vote' ? 'majority, early decision' : 'wait for all (fan-out)',
        round(ms, 0),
        round(result.metrics.costUsd, 3),
        round(result.metrics.savedUsd ?? 0, 3),
        result.metrics.steps,
        finished,
        pattern === 'vote'
          ? `${String(result.vote?.winner)} (${result.vote?.decidedEarly ? 'early' : 'after all'}, ${result.vote?.cancelled ?? 0} cancelled)`
          : '-',
      ]);
      data.push({
        pattern,
        ms: runs.map((x) => x.ms),
        costUsd: result.metrics.costUsd,
        savedUsd: result.metrics.savedUsd,
        steps: result.metrics.steps,
        vote: result.vote,
      });
    }
    const [v, f] = data;
    rows.push([
      'early / all',
      `${round(Math.min(...v.ms) / Math.min(...f.ms), 2)}x`,
      `${round(v.costUsd / f.costUsd, 2)}x`,
      '',
      '',
      '',
      '',
    ]);
    report(
      'vote',
      `Early decisions: 9 voters (5 fast agree, 4 slow), majority; best of ${REPEAT}`,
      ['run', 'ms', 'cost USD', 'saved USD', 'steps', 'voters finished', 'winner'],
      rows,
      data,
    );
  }
} finally {
  worker.shutdown();
  await running.catch((err) => console.error(err));
  await t.close();
}
