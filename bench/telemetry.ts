/**
 * What observability costs: the fan-out throughput of a worker process with tracing and
 * metrics on (spans exported over OTLP/HTTP to a loopback collector, core's Prometheus
 * exporter and /metrics served and scraped), with metrics only, and with both off, against
 * one dev server in one run, in turns, best of BENCH_REPEAT. All three are `workers/main.ts`
 * as an operator runs it; only the environment differs.
 */
import { createServer } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { delegateRun } from './delegate-runs';
import { freePort } from '../scripts/dev-server';
import { quietRuntime, report, round, spawnTsx, stopChild, startTemporal } from './lib';

const SIZES = (process.env.BENCH_SIZES ?? '200,500').split(',').map(Number);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);

// a collector that takes OTLP/HTTP like Jaeger's and counts what it got
let exports = 0;
let spanBytes = 0;
const collector = createServer((req, res) => {
  req.on('data', (b: Buffer) => (spanBytes += b.length));
  req.on('end', () => {
    if (req.url === '/v1/traces') exports++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
await new Promise<void>((r) => collector.listen(0, '127.0.0.1', () => r()));
const collectorUrl = `http://127.0.0.1:${(collector.address() as { port: number }).port}`;

quietRuntime();
const t = await startTemporal('telemetry');
const dir = mkdtempSync(join(tmpdir(), 'delegate-bench-telemetry-'));
const metricsPort = await freePort();
const common = {
  TEMPORAL_ADDRESS: t.server.address,
  DELEGATE_AUTH: 'off',
  LOG_LEVEL: 'warn',
  DELEGATE_RECORD_FILE: join(dir, 'record.db'),
};
const metricsOnlyPort = await freePort();
const metricsOnly = await spawnTsx(
  'workers/main.ts',
  {
    ...common,
    DELEGATE_TASK_QUEUE: 'bench-telemetry-metrics',
    DELEGATE_WORKER_METRICS_PORT: String(metricsOnlyPort),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
  },
  'worker running',
);
const off = await spawnTsx(
  'workers/main.ts',
  { ...common, DELEGATE_TASK_QUEUE: 'bench-telemetry-off', DELEGATE_WORKER_METRICS_PORT: '0', LOG_LEVEL: 'info' },
  'worker running',
);
const on = await spawnTsx(
  'workers/main.ts',
  {
    ...common,
    DELEGATE_TASK_QUEUE: 'bench-telemetry-on',
    DELEGATE_WORKER_METRICS_PORT: String(metricsPort),
    HOST: '127.0.0.1',
    OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl,
    OTEL_SERVICE_NAME: 'delegate-bench',
    LOG_LEVEL: 'info',
  },
  'worker running',
);
// Prometheus' default: one scrape every 15 s, here every 5 s while the "on" side runs
const scrapes = setInterval(() => {
  for (const port of [metricsPort, metricsOnlyPort])
    void fetch(`http://127.0.0.1:${port}/metrics`)
      .then((r) => r.text())
      .catch(() => undefined);
}, 5000);

const rows: (string | number)[][] = [];
const data = [];
try {
  await delegateRun(t.client, 20, { taskQueue: 'bench-telemetry-off', prefix: 'warm-off' });
  await delegateRun(t.client, 20, { taskQueue: 'bench-telemetry-on', prefix: 'warm-on' });
  await delegateRun(t.client, 20, { taskQueue: 'bench-telemetry-metrics', prefix: 'warm-metrics' });
  for (const n of SIZES) {
    const offMs: number[] = [];
    const onMs: number[] = [];
    const metricsMs: number[] = [];
    const sides = [
      () => delegateRun(t.client, n, { taskQueue: 'bench-telemetry-off', prefix: 'off' }).then((x) => offMs.push(x.ms)),
      () => delegateRun(t.client, n, { taskQueue: 'bench-telemetry-metrics', prefix: 'metrics' }).then((x) => metricsMs.push(x.ms)),
      () => delegateRun(t.client, n, { taskQueue: 'bench-telemetry-on', prefix: 'on' }).then((x) => onMs.push(x.ms)),
    ];
    for (let r = 0; r < REPEAT; r++) {
      // in turns, so no side always runs on a warmer server
      for (let i = 0; i < sides.length; i++) await sides[(i + r) % sides.length]();
    }
    const best = (xs: number[]) => Math.min(...xs);
    const rate = (xs: number[]) => (n / best(xs)) * 1000;
    const [offRate, metricsRate, onRate] = [rate(offMs), rate(metricsMs), rate(onMs)];
    rows.push([
      n,
      round(offRate),
      round(metricsRate),
      round(onRate),
      `${round(metricsRate / offRate, 2)}x`,
      `${round(onRate / offRate, 2)}x`,
    ]);
    data.push({
      n,
      offMs,
      metricsMs,
      onMs,
      offPerSec: offRate,
      metricsPerSec: metricsRate,
      onPerSec: onRate,
      metricsRatio: metricsRate / offRate,
      ratio: onRate / offRate,
    });
  }
  // the "on" side really traced and counted: spans reached the collector, /metrics has the jobs
  const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const jobs = [...metrics.matchAll(/^delegate_jobs_total\{[^}]*\} (\d+)/gm)].reduce((s, m) => s + Number(m[1]), 0);
  if (exports === 0 || jobs === 0 || !metrics.includes('temporal_workflow_completed'))
    throw new Error(`the "on" worker did not trace or count: ${exports} exports, ${jobs} jobs counted`);
  report(
    'telemetry',
    `Tracing and metrics on vs off: N no-op subtasks per fan-out, worker processes as deployed (best of ${REPEAT}); on: ${exports} OTLP exports, ${round(spanBytes / 1024 / 1024, 1)} MiB of spans, ${jobs} jobs counted`,
    ['N', 'off subtasks/s', 'metrics only subtasks/s', 'tracing + metrics subtasks/s', 'metrics only / off', 'tracing + metrics / off'],
    rows,
    { data, exports, spanBytes, jobsCounted: jobs },
  );
} finally {
  clearInterval(scrapes);
  await stopChild(on);
  await stopChild(metricsOnly);
  await stopChild(off);
  collector.close();
  await t.close();
}
