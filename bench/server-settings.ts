/**
 * What each dev-server and worker setting buys: Delegate and bare fan-outs of N echo
 * subtasks on a fresh dev server per variant, variants interleaved round by round (so
 * none always runs on a cooler machine), best of BENCH_ROUNDS.
 * - server: stock settings, all of DEV_THROUGHPUT_SETTINGS, and all but one group;
 * - worker: the SDK's defaults vs autoscaling pollers, a small workflow cache, two workflow threads, on the tuned server.
 * BENCH_N (default 1000), BENCH_ROUNDS (2), BENCH_VARIANTS (comma list of names) narrow it.
 */
import { DEV_THROUGHPUT_SETTINGS, EVENTS_CACHE_SETTINGS } from '../scripts/dev-server';
import type { WorkerTuning } from '../workers/worker';
import { bundleWorkflows } from '../workers/worker';
import { bareRun, delegateRun, startBenchWorkers } from './delegate-runs';
import { quietRuntime, report, round, startTemporal } from './lib';

const N = Number(process.env.BENCH_N ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

/** Setting groups left out one at a time (a group's keys only make sense together). */
const GROUPS: Record<string, string[]> = {
  'transfer workers 32': ['history.transferProcessorSchedulerWorkerCount'],
  'lock timeout 5s': ['history.cacheNonUserContextLockTimeout'],
  'no forced SA refresh': ['system.forceSearchAttributesCacheRefreshOnRead'],
  'eager activities': ['system.enableActivityEagerExecution'],
  '1 task-queue partition': ['matching.numTaskqueueReadPartitions', 'matching.numTaskqueueWritePartitions'],
  'events cache 64 MiB': Object.keys(EVENTS_CACHE_SETTINGS),
};
const only = (keys: string[]) => Object.fromEntries(Object.entries(DEV_THROUGHPUT_SETTINGS).filter(([k]) => keys.includes(k)));
const without = (keys: string[]) => Object.fromEntries(Object.entries(DEV_THROUGHPUT_SETTINGS).filter(([k]) => !keys.includes(k)));

interface Variant {
  name: string;
  settings: Record<string, string>;
  tuning?: WorkerTuning;
}
const ALL_VARIANTS: Variant[] = [
  { name: 'stock server', settings: {} },
  { name: 'tuned server', settings: DEV_THROUGHPUT_SETTINGS },
  ...Object.entries(GROUPS).map(([name, keys]) => ({ name: `tuned − ${name}`, settings: without(keys) })),
  // the one setting that matters most, with the timeout it needs, alone on the stock server
  {
    name: 'stock + transfer workers 32 + lock timeout 5s',
    settings: only([...GROUPS['transfer workers 32'], ...GROUPS['lock timeout 5s']]),
  },
  {
    name: 'tuned + autoscaling pollers',
    settings: DEV_THROUGHPUT_SETTINGS,
    tuning: { workflowTaskPollerBehavior: { type: 'autoscaling' }, activityTaskPollerBehavior: { type: 'autoscaling' } },
  },
  { name: 'tuned + cache of 50 workflows', settings: DEV_THROUGHPUT_SETTINGS, tuning: { maxCachedWorkflows: 50 } },
  { name: 'tuned + 2 workflow threads', settings: DEV_THROUGHPUT_SETTINGS, tuning: { workflowThreadPoolSize: 2 } },
];
const picked = process.env.BENCH_VARIANTS?.split(',').map((s) => s.trim());
const variants = picked ? ALL_VARIANTS.filter((v) => picked.some((p) => v.name.includes(p))) : ALL_VARIANTS;

quietRuntime();
const bundle = await bundleWorkflows();
const times = new Map<string, { delegate: number[]; bare: number[]; failures: string[] }>(
  variants.map((v) => [v.name, { delegate: [], bare: [], failures: [] }]),
);

for (let r = 0; r < ROUNDS; r++) {
  // rotate the order each round
  const order = variants.map((_, i) => variants[(i + r) % variants.length]);
  for (const v of order) {
    const t = await startTemporal('settings', v.settings);
    const workers = await startBenchWorkers(t.workerConnection, v.tuning, bundle);
    const slot = times.get(v.name)!;
    try {
      await delegateRun(t.client, 10); // warm-up
      await bareRun(t.client, 10);
      const sides = r % 2 === 0 ? (['delegate', 'bare'] as const) : (['bare', 'delegate'] as const);
      for (const side of sides) {
        try {
          slot[side].push((side === 'delegate' ? await delegateRun(t.client, N) : await bareRun(t.client, N)).ms);
        } catch (err) {
          slot.failures.push(`${side}: ${String(err).slice(0, 100)}`);
        }
      }
      console.log(
        `round ${r + 1}, ${v.name}: delegate ${slot.delegate.map((x) => round(x / 1000)).join('/')} s, bare ${slot.bare.map((x) => round(x / 1000)).join('/')} s`,
      );
    } finally {
      await workers.stop().catch((err) => console.error(err));
      await t.close();
    }
  }
}

const rate = (ms: number[]) => (ms.length ? (N / Math.min(...ms)) * 1000 : NaN);
const stock = times.get('stock server');
const rows = variants.map((v) => {
  const s = times.get(v.name)!;
  const d = rate(s.delegate);
  const b = rate(s.bare);
  return [
    v.name,
    round(d),
    round(b),
    `${round(d / b, 2)}x`,
    stock ? `${round(d / rate(stock.delegate), 2)}x` : '',
    stock ? `${round(b / rate(stock.bare), 2)}x` : '',
    s.failures.join('; '),
  ];
});
report(
  'server-settings',
  `Server and worker settings: N = ${N} echo subtasks, subtasks/s, best of ${ROUNDS}, fresh dev server per variant`,
  ['variant', 'Delegate/s', 'bare/s', 'Delegate/bare', 'Delegate vs stock', 'bare vs stock', 'failures'],
  rows,
  Object.fromEntries(times),
);
