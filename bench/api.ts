/**
 * API: submit and status latency (p50/p99) and throughput under concurrent load
 * (autocannon), Delegate's API vs a bare Fastify route making the same Temporal call
 * (bench/baseline/bare-api.ts). Both run as child processes against the same dev server.
 * Submitted jobs go to a task queue no worker polls, so the figures are the API's and
 * Temporal's, not the jobs'; status is read from one completed job.
 */
import autocannon from 'autocannon';
import { bundleWorkflows, createWorker } from '../workers/worker';
import { freePort } from '../scripts/dev-server';
import { benchRecord, quietRuntime, report, round, spawnTsx, startTemporal, stopChild } from './lib';
import { delegationJob } from '../workflows/delegation-job';

const DURATION = Number(process.env.BENCH_API_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_API_CONNECTIONS ?? 16);

quietRuntime();
const t = await startTemporal('api');
const idleQueue = 'bench-api-idle';

// one completed job for the status routes
const worker = await createWorker({
  connection: t.workerConnection,
  namespace: 'default',
  taskQueue: 'bench-api-run',
  workflowBundle: await bundleWorkflows(),
  record: await benchRecord(),
});
const running = worker.run();
const statusJob = 'status-job';
await t.client.workflow.execute(delegationJob, {
  taskQueue: 'bench-api-run',
  workflowId: `job/default/${statusJob}`,
  args: [
    {
      spec: {
        jobId: statusJob,
        pattern: 'fanout',
        tasks: [
          { id: 'a', question: 'q', agent: 'echo' },
          { id: 'b', question: 'q', agent: 'sim', params: { steps: 2 } },
        ],
      },
      tenant: 'default',
    },
  ],
});
worker.shutdown();
await running;

const body = JSON.stringify({
  pattern: 'fanout',
  tasks: [
    { id: 'a', question: 'What is A?', agent: 'echo' },
    { id: 'b', question: 'What is B?', agent: 'sim', params: { steps: 2 } },
  ],
});
const env = { TEMPORAL_ADDRESS: t.server.address, DELEGATE_TASK_QUEUE: idleQueue, LOG_LEVEL: 'warn', HOST: '127.0.0.1' };
const delegatePort = await freePort();
const barePort = await freePort();
const delegateApi = await spawnTsx('api/server.ts', { ...env, PORT: String(delegatePort), LOG_LEVEL: 'info' }, 'Server listening');
const bareApi = await spawnTsx('bench/baseline/bare-api.ts', { ...env, PORT: String(barePort) }, 'bare api listening');

async function load(url: string, method: 'POST' | 'GET') {
  const opts = method === 'POST' ? { url, method, headers: { 'content-type': 'application/json' }, body } : { url, method };
  await autocannon({ ...opts, connections: 2, duration: 2 }); // warm-up
  return autocannon({ ...opts, connections: CONNECTIONS, duration: DURATION });
}

const rows: (string | number)[][] = [];
const data: Record<string, unknown> = {};
try {
  for (const [route, method, path] of [
    ['submit', 'POST', '/v1/jobs'],
    ['status', 'GET', `/v1/jobs/${statusJob}`],
  ] as const) {
    const figures: Record<string, { p50: number; p99: number; rps: number }> = {};
    for (const [name, port] of [
      ['delegate', delegatePort],
      ['bare', barePort],
    ] as const) {
      const r = await load(`http://127.0.0.1:${port}${path}`, method);
      const bad = r.non2xx + r.errors + r.timeouts;
      if (bad > 0) console.error(`${name} ${route}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
      figures[name] = { p50: r.latency.p50, p99: r.latency.p99, rps: r.requests.average };
      data[`${route}/${name}`] = {
        latency: r.latency,
        requests: r.requests,
        non2xx: r.non2xx,
        errors: r.errors,
        timeouts: r.timeouts,
        total: r.requests.total,
      };
    }
    const { delegate: d, bare: b } = figures;
    rows.push([route, d.p50, d.p99, round(d.rps), b.p50, b.p99, round(b.rps), `${round(d.rps / b.rps, 2)}x`]);
  }
  report(
    'api',
    `API under load: ${CONNECTIONS} connections, ${DURATION}s per run; latency in ms`,
    ['route', 'delegate p50', 'delegate p99', 'delegate req/s', 'bare p50', 'bare p99', 'bare req/s', 'delegate/bare req/s'],
    rows,
    data,
  );
} finally {
  await stopChild(delegateApi);
  await stopChild(bareApi);
  await t.close();
}
