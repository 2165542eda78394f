/**
 * One job as fast as many: N echo subtasks as one Delegate fan-out vs the same N as J jobs of
 * N/J running at once, and the same two shapes as bare child workflows (one parent of N, J
 * parents of N/J), on one dev server in one run, alternating, best of BENCH_REPEAT. A parent's
 * cost per child (its history, its lock on the server, its workflow task per completion) is
 * what separates the two shapes; the bare side shows how much of that is the engine's.
 *
 *   BENCH_N=400 BENCH_JOBS=8 npm run bench -- one-job
 */
import { bareRun, delegateRun, startBenchWorkers } from './delegate-runs';
import { quietRuntime, report, round, startTemporal } from './lib';

const N = Number(process.env.BENCH_N ?? 400);
const JOBS = Number(process.env.BENCH_JOBS ?? 8);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 2);

quietRuntime();
const t = await startTemporal('one-job');
const workers = await startBenchWorkers(t.workerConnection);

/** Wall ms of `jobs` runs of `n / jobs` each, started together. */
async function many(run: (n: number) => Promise<{ ms: number }>, jobs: number): Promise<number> {
  const started = performance.now();
  await Promise.all(Array.from({ length: jobs }, () => run(N / jobs)));
  return performance.now() - started;
}

try {
  await delegateRun(t.client, 10); // warm-up: workflow caches, connections
  await bareRun(t.client, 10);
  const sides = {
    delegateOne: [] as number[],
    delegateMany: [] as number[],
    bareOne: [] as number[],
    bareMany: [] as number[],
  };
  for (let r = 0; r < REPEAT; r++) {
    const order: (keyof typeof sides)[] =
      r % 2 === 0 ? ['delegateOne', 'delegateMany', 'bareOne', 'bareMany'] : ['bareMany', 'bareOne', 'delegateMany', 'delegateOne'];
    for (const side of order) {
      const delegate = side.startsWith('delegate');
      const run = delegate ? (n: number) => delegateRun(t.client, n) : (n: number) => bareRun(t.client, n);
      sides[side].push(await many(run, side.endsWith('One') ? 1 : JOBS));
    }
  }
  const best = (xs: number[]) => Math.min(...xs);
  const rate = (ms: number) => round((N / ms) * 1000);
  const row = (name: string, one: number[], several: number[]) => [
    name,
    round(best(one), 0),
    rate(best(one)),
    round(best(several), 0),
    rate(best(several)),
    `${round(best(several) / best(one), 2)}x`,
  ];
  report(
    'one-job',
    `One job of ${N} vs ${JOBS} jobs of ${N / JOBS}, at once (best of ${REPEAT})`,
    ['side', `1 × ${N} ms`, 'subtasks/s', `${JOBS} × ${N / JOBS} ms`, 'subtasks/s', 'one job / many (throughput)'],
    [row('Delegate', sides.delegateOne, sides.delegateMany), row('bare', sides.bareOne, sides.bareMany)],
    { n: N, jobs: JOBS, ...sides },
  );
} finally {
  await workers.stop().catch((err) => console.error(err));
  await t.close();
}
