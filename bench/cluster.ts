/**
 * The capacity model's inputs and its checked prediction, on this machine: the same echo
 * fan-out (N subtasks as JOBS parallel jobs) on two worker processes (`workers/main.ts`, as
 * `npm run cluster` runs them), against
 *   1. the dev server (SQLite, DEV_THROUGHPUT_SETTINGS) and
 *   2. the cluster's server (temporal-server 1.29.1 on the machine's PostgreSQL, deploy/'s files)
 *      with 16 shards (deploy/temporal.env), then 1 shard, then 4 shards (fresh databases each).
 * Per run: wall time, throughput, CPU-seconds per subtask of the server, the database and the
 * workers, history events per subtask, database writes per subtask. After the 1-shard run it
 * prints the prediction for 4 shards, min(cores / CPU per subtask, 4 × T1), then measures it.
 *
 *   start server ─ 2 workers ─ warm-up ─ settle ─ idle window ─ JOBS jobs ─ settle ─ histories ─ stop
 *
 * BENCH_CLUSTER_N (400), BENCH_CLUSTER_JOBS (8), BENCH_CLUSTER_SHARDS (16,1,4: the first is
 * "the cluster" of the comparison; 1 and 4 make the prediction). On the first shard count the whole N
 * also runs as one job, the two shapes in the order JOBS jobs, one job, one job, JOBS jobs (each
 * shape's throughput is the mean of its two windows); BENCH_CLUSTER_ONE_FIRST=1 turns that round.
 */
import { Client, Connection } from '@temporalio/client';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { machinePostgres } from '../scripts/machine-postgres';
import { dropDatabase } from '../scripts/postgres';
import { DEPLOY_DIR, freePortOffset, readEnvFile, startTemporalServer, temporalSettings } from '../scripts/temporal-server';
import { PgProbe, cpuSeconds, minus, type PgSnapshot } from './cluster-probe';
import { delegateRun } from './delegate-runs';
import { FANOUT_FLAT_MAX_CLUSTER, FANOUT_FLAT_MAX_DEV_SERVER } from '../core/engine-limits';
import { treeCost } from './history-cost';
import { ioCounters, report, round, sleep, spawnTsx, startTemporal, stopChild, table } from './lib';

const N = Number(process.env.BENCH_CLUSTER_N ?? 400);
const JOBS = Number(process.env.BENCH_CLUSTER_JOBS ?? 8);
const SHARDS = (process.env.BENCH_CLUSTER_SHARDS ?? '16,1,4').split(',').map(Number);
/** PostgreSQL backends flush their statistics when idle for 10 s at most: wait that out. */
const SETTLE_MS = 11_000;
const CORES = cpus().length;
const QUEUE = 'bench-cluster';
const startedAt = Date.now();
const loadStart = loadavg();
const dir = mkdtempSync(join(tmpdir(), 'delegate-bench-cluster-'));
console.log(
  `cluster bench: N=${N} as ${JOBS} jobs, shards ${SHARDS.join('/')}, ${CORES} cores, load average ${loadStart.map((x) => round(x, 2)).join(' ')}`,
);

/** A running server with what the probes need. */
interface Stack {
  label: string;
  store: 'SQLite' | 'PostgreSQL';
  shards: number;
  client: Client;
  serverPid: number;
  pg?: PgProbe;
}

/** One reading of every counter. */
interface Sample {
  at: number;
  server: number;
  workers: number;
  client: number;
  io?: ReturnType<typeof ioCounters>;
  pg?: PgSnapshot;
}

async function sample(stack: Stack, workers: ChildProcess[]): Promise<Sample> {
  const own = process.cpuUsage();
  return {
    at: performance.now(),
    server: cpuSeconds(stack.serverPid),
    workers: workers.reduce((sum, w) => sum + cpuSeconds(w.pid!), 0),
    client: (own.user + own.system) / 1e6,
    io: stack.store === 'SQLite' ? ioCounters(stack.serverPid) : undefined,
    pg: await stack.pg?.snapshot(),
  };
}

/** The figures of one measured window. */
interface Result {
  label: string;
  store: string;
  shards: number | string;
  jobs: number;
  n: number;
  ok: boolean;
  error?: string;
  seconds: number;
  perSecond: number;
  /** CPU-seconds per subtask. */
  cpu: { server: number; db: number; dbOurBackends: number; dbInstance: number; workers: number; client: number; model: number };
  /** Share of the machine's cores busy during the run (server + db + workers + this process). */
  cpuBusy: number;
  /** Server CPU while idle (cores), measured over the idle window before the run. */
  serverIdleCores: number;
  events: number;
  leafEvents: number;
  writes: Record<string, number>;
}

/** The fan-out cut each server's deployment sets (DELEGATE_FANOUT_FLAT_MAX): `npm start`'s on the dev server, the default on the cluster. */
const flatMaxOf = (stack: Stack) => (stack.label === 'dev' ? FANOUT_FLAT_MAX_DEV_SERVER : FANOUT_FLAT_MAX_CLUSTER);

/** Warm-up, idle window, then JOBS parallel jobs of n/JOBS subtasks; every counter before and after. */
async function measure(stack: Stack, workers: ChildProcess[], jobs: number, label: string): Promise<Result> {
  const perJob = Math.floor(N / jobs);
  const n = perJob * jobs;
  await sleep(SETTLE_MS);
  const s0 = await sample(stack, workers);
  await sleep(SETTLE_MS);
  const s1 = await sample(stack, workers);
  let ids: string[] = [];
  let error: string | undefined;
  const timeoutS = Math.max(180, n);
  let timer: NodeJS.Timeout | undefined;
  try {
    const runs = await Promise.race([
      Promise.all(
        Array.from({ length: jobs }, (_, i) =>
          delegateRun(stack.client, perJob, { taskQueue: QUEUE, prefix: `${label}-j${i}`, fanoutFlatMax: flatMaxOf(stack) }),
        ),
      ),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timeout after ${timeoutS}s`)), timeoutS * 1000))),
    ]);
    ids = runs.map((r) => r.workflowId);
  } catch (err) {
    error = String((err as Error).cause ?? err).slice(0, 200);
  } finally {
    clearTimeout(timer);
  }
  const s2 = await sample(stack, workers);
  await sleep(SETTLE_MS);
  const s3 = await sample(stack, workers);
  const seconds = (s2.at - s1.at) / 1000;
  const per = (x: number) => x / n;
  const dbCpu = stack.pg && s1.pg && s2.pg ? stack.pg.cpu(s1.pg, s2.pg) : { instance: 0, ours: 0, attributed: 0 };
  const cpu = {
    server: per(s2.server - s1.server),
    db: per(dbCpu.attributed),
    dbOurBackends: per(dbCpu.ours),
    dbInstance: per(dbCpu.instance),
    workers: per(s2.workers - s1.workers),
    client: per(s2.client - s1.client),
    model: 0,
  };
  cpu.model = cpu.server + cpu.db + cpu.workers;
  let writes: Record<string, number>;
  // the settle after the run holds the idle server's own background writes: take them out at the idle rate
  const tail = (s3.at - s2.at) / (s1.at - s0.at);
  if (s0.pg && s1.pg && s2.pg && s3.pg) {
    const commits = s3.pg.commits - s1.pg.commits - tail * (s1.pg.commits - s0.pg.commits);
    const tuples = s3.pg.tuples - s1.pg.tuples - tail * (s1.pg.tuples - s0.pg.tuples);
    const wal = s3.pg.walBytes - s1.pg.walBytes - tail * (s1.pg.walBytes - s0.pg.walBytes);
    writes = {
      commits: per(commits),
      tuples: per(tuples),
      walBytes: per(wal),
      idleCommitsPerS: (s1.pg.commits - s0.pg.commits) / ((s1.at - s0.at) / 1000),
    };
  } else {
    const idle = minus(s1.io!, s0.io!);
    const run = minus(s3.io!, s1.io!);
    writes = {
      syscw: per(run.syscw - tail * idle.syscw),
      wchar: per(run.wchar - tail * idle.wchar),
      writeBytes: per(run.writeBytes - tail * idle.writeBytes),
      idleSyscwPerS: idle.syscw / ((s1.at - s0.at) / 1000),
    };
  }
  let events = 0;
  let leafEvents = 0;
  for (const id of ids) {
    const c = await treeCost(stack.client, id);
    events += c.parents.events + c.leaves.events;
    leafEvents += c.leaves.events;
  }
  const busy = (s2.server - s1.server + dbCpu.attributed + s2.workers - s1.workers + s2.client - s1.client) / seconds / CORES;
  return {
    label,
    store: stack.store,
    shards: stack.shards || 'dev (1)',
    jobs,
    n,
    ok: !error,
    error,
    seconds,
    perSecond: error ? 0 : n / seconds,
    cpu,
    cpuBusy: busy,
    serverIdleCores: (s1.server - s0.server) / ((s1.at - s0.at) / 1000),
    events: per(events),
    leafEvents: per(leafEvents),
    writes,
  };
}

/** Two worker processes as `npm run cluster` configures them (deploy/worker.env), metrics off, a shared temp record. */
async function startWorkers(address: string): Promise<ChildProcess[]> {
  const env = {
    ...readEnvFile(join(DEPLOY_DIR, 'worker.env')),
    TEMPORAL_ADDRESS: address,
    DELEGATE_TASK_QUEUE: QUEUE,
    DELEGATE_WORKER_METRICS_PORT: '0',
    DELEGATE_RECORD_FILE: join(dir, 'record.db'),
  };
  return Promise.all([0, 1].map(() => spawnTsx('workers/main.ts', env, 'worker running')));
}

/** Starts workers on a server, warms up, runs `windows`, stops the workers. */
async function onStack(stack: Stack, address: string, windows: { jobs: number; label: string }[]): Promise<Result[]> {
  const workers = await startWorkers(address);
  try {
    await delegateRun(stack.client, 20, { taskQueue: QUEUE, prefix: `${stack.label}-warm` });
    const out: Result[] = [];
    for (const w of windows) {
      const r = await measure(stack, workers, w.jobs, w.label);
      console.log(
        `${w.label}: ${r.ok ? `${round(r.seconds)} s, ${round(r.perSecond)} subtasks/s` : `FAILED ${r.error}`}, CPU ms/subtask server ${round(r.cpu.server * 1000, 2)} db ${round(r.cpu.db * 1000, 2)} workers ${round(r.cpu.workers * 1000, 2)}`,
      );
      out.push(r);
    }
    return out;
  } finally {
    await Promise.all(workers.map((w) => stopChild(w)));
  }
}

/** Drops a bench database; an autovacuum worker on it makes the owner's DROP … WITH (FORCE) fail, so try again for a while. */
async function dropWhenFree(adminUrl: string, db: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await dropDatabase(adminUrl, db);
    } catch (err) {
      if (attempt >= 15) return console.error(`could not drop database ${db} (drop it by hand): ${String(err)}`);
      await sleep(2000);
    }
  }
}

/** A cluster server with `shards` history shards on fresh databases; dropped after `body`. */
async function withCluster<T>(shards: number, body: (stack: Stack, address: string) => Promise<T>): Promise<T & { startSeconds: number }> {
  const tag = `bench_${process.pid}_${shards}s`;
  const settings: Record<string, string> = {
    ...temporalSettings({}),
    NUM_HISTORY_SHARDS: String(shards),
    DBNAME: tag,
    VISIBILITY_DBNAME: `${tag}_vis`,
  };
  const postgres = await machinePostgres([{ user: settings.POSTGRES_USER!, password: settings.POSTGRES_PWD!, createdb: true }]);
  const adminUrl = `postgres://${settings.POSTGRES_USER}:${settings.POSTGRES_PWD}@${postgres.host}:${postgres.port}/postgres`;
  const t0 = performance.now();
  const server = await startTemporalServer({
    postgres,
    settings,
    portOffset: await freePortOffset(),
    logFile: join(dir, `temporal-${shards}.log`),
  });
  const startSeconds = (performance.now() - t0) / 1000;
  const connection = await Connection.connect({ address: server.address });
  const pg = await PgProbe.open(adminUrl, [tag, `${tag}_vis`]);
  pgSettings ??= await pg.settings();
  if (shards === SHARDS[0]) console.log(`PostgreSQL :${postgres.port} (the machine's): ${JSON.stringify(pgSettings)}`);
  try {
    const stack: Stack = {
      label: `cluster-${shards}`,
      store: 'PostgreSQL',
      shards,
      client: new Client({ connection }),
      serverPid: server.process.pid!,
      pg,
    };
    return { ...(await body(stack, server.address)), startSeconds };
  } finally {
    await pg.close();
    await connection.close().catch(() => undefined);
    await server.stop();
    for (const db of [tag, `${tag}_vis`]) await dropWhenFree(adminUrl, db);
  }
}

const results: Result[] = [];
const starts: Record<string, number> = {};
/** The dev server's own log (at warn) is in its write counts too: its size says how much. */
let devLogBytes = 0;
let pgSettings: Record<string, string> | undefined;
let prediction: { cpuCeiling: number; shardCeiling: number; predicted: number; t1: number; cpuPerSubtask: number } | undefined;
try {
  // (a) the dev server, as `npm start` runs it
  const dev = await startTemporal('cluster');
  try {
    const stack: Stack = { label: 'dev', store: 'SQLite', shards: 0, client: dev.client, serverPid: dev.server.process.pid! };
    results.push(...(await onStack(stack, dev.server.address, [{ jobs: JOBS, label: 'dev' }])));
    devLogBytes = statSync(join(dev.dir, 'server.log'), { throwIfNoEntry: false })?.size ?? 0;
  } finally {
    await dev.close();
  }
  // (b) the cluster's server at each shard count; the first also with the whole N as one job
  for (const [i, shards] of SHARDS.entries()) {
    const eight = { jobs: JOBS, label: `cluster-${shards}` };
    const one = { jobs: 1, label: `cluster-${shards}-1job` };
    const again = (w: typeof one) => ({ ...w, label: `${w.label}-again` });
    // BENCH_CLUSTER_ONE_FIRST=1: B A A B, the single job first and last
    const [a, b] = process.env.BENCH_CLUSTER_ONE_FIRST === '1' ? [one, eight] : [eight, one];
    // the first shard count compares the two shapes in the order A B B A: the windows of one run do
    // not stand on equal ground (the database fills, the server and PostgreSQL warm up; in one run
    // of 2026-12-04 the same 8 × 50 ran at 17.7/s first and 26.6/s last), and with one window each
    // the order decided (0.80x with the single job second, 0.99x with it first): each shape's two
    // windows straddle the middle
    const windows = i === 0 && JOBS > 1 ? [a, b, again(b), again(a)] : [eight];
    const { rs, startSeconds } = await withCluster(shards, async (stack, address) => ({ rs: await onStack(stack, address, windows) }));
    starts[shards] = startSeconds;
    results.push(...rs);
    if (shards === 1 && rs[0]?.ok) {
      const r = rs[0];
      const cpuCeiling = CORES / r.cpu.model;
      const target = SHARDS.find((s) => s !== 1 && s !== SHARDS[0]) ?? 4;
      const shardCeiling = target * r.perSecond;
      prediction = { cpuCeiling, shardCeiling, predicted: Math.min(cpuCeiling, shardCeiling), t1: r.perSecond, cpuPerSubtask: r.cpu.model };
      console.log(
        `prediction for ${target} shards, before measuring it: min(CPU ceiling ${CORES} cores / ${round(r.cpu.model * 1000, 2)} ms = ${round(cpuCeiling)}/s, ${target} × T1 ${round(r.perSecond)}/s = ${round(shardCeiling)}/s) = ${round(prediction.predicted)} subtasks/s`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const ms = (x: number) => round(x * 1000, 2);
const writes = (r: Result) =>
  r.store === 'PostgreSQL'
    ? `${round(r.writes.tuples!, 1)} rows written, ${round(r.writes.walBytes! / 1024, 1)} KiB WAL, ${round(r.writes.commits!, 1)} transactions (reads too)`
    : `${round(r.writes.syscw!, 1)} write() calls, ${round(r.writes.wchar! / 1024, 1)} KiB through write(), ${round(r.writes.writeBytes! / 1024, 1)} KiB to storage (server process: SQLite + its log)`;
const rows = results.map((r) => [
  r.label,
  r.store,
  r.shards,
  `${r.jobs} × ${r.n / r.jobs}`,
  r.ok ? round(r.seconds, 1) : `failed: ${r.error}`,
  round(r.perSecond, 1),
  ms(r.cpu.server),
  r.store === 'PostgreSQL' ? `${ms(r.cpu.db)} (${ms(r.cpu.dbOurBackends)})` : '–',
  ms(r.cpu.workers),
  ms(r.cpu.model),
  `${round(r.cpuBusy * 100, 0)}%`,
  round(r.events, 2),
  writes(r),
]);
const dev = results.find((r) => r.label === 'dev');
const main = results.find((r) => r.label === `cluster-${SHARDS[0]}`);
const four = results.find((r) => r.shards === (SHARDS.find((s) => s !== 1 && s !== SHARDS[0]) ?? 4) && r.jobs === JOBS);
const loadEnd = loadavg();
console.log(`dev server log (counted in its writes): ${devLogBytes} bytes for the whole run`);
console.log(
  `\nload average at start ${loadStart.map((x) => round(x, 2)).join(' ')}, at end ${loadEnd.map((x) => round(x, 2)).join(' ')}; cluster server cold starts (schema + server + namespace): ${Object.entries(
    starts,
  )
    .map(([s, t]) => `${s} shards ${round(t)} s`)
    .join(', ')}`,
);
/** One job of N against JOBS jobs on the first shard count: each shape's throughput averaged over its two windows. */
const shapeRate = (jobs: number) => {
  const rs = results.filter((r) => r.shards === SHARDS[0] && r.jobs === jobs && r.ok);
  return rs.length ? rs.reduce((a, r) => a + r.perSecond, 0) / rs.length : NaN;
};
const oneVsMany = JOBS > 1 ? { one: shapeRate(1), many: shapeRate(JOBS) } : undefined;
if (oneVsMany)
  console.log(
    `one job of ${N} against ${JOBS} jobs of ${N / JOBS}, cluster (${SHARDS[0]} shards), both orders: ${round(oneVsMany.one, 1)}/s against ${round(oneVsMany.many, 1)}/s = ${round(oneVsMany.one / oneVsMany.many, 2)}x`,
  );
if (dev?.ok && main?.ok)
  console.log(
    `throughput at N=${N}: dev server ${round(dev.perSecond, 1)}/s, cluster (${SHARDS[0]} shards) ${round(main.perSecond, 1)}/s: cluster / dev = ${round(main.perSecond / dev.perSecond, 2)}x`,
  );
if (prediction && four) {
  console.log(`\nThe checked prediction (model: throughput = min(cores / (server + DB + worker CPU-s per subtask), shards × T1))\n`);
  console.log(
    table(
      ['shards', 'CPU ceiling /s', 'shard ceiling /s', 'predicted /s', 'measured /s', 'measured / predicted'],
      [
        [
          1,
          round(prediction.cpuCeiling, 1),
          round(prediction.t1, 1),
          round(Math.min(prediction.cpuCeiling, prediction.t1), 1),
          round(prediction.t1, 1),
          '(measured: input)',
        ],
        [
          four.shards,
          round(prediction.cpuCeiling, 1),
          round(prediction.shardCeiling, 1),
          round(prediction.predicted, 1),
          round(four.perSecond, 1),
          `${round(four.perSecond / prediction.predicted, 2)}x`,
        ],
      ],
    ),
  );
}
report(
  'cluster',
  `Cost of one subtask and throughput, dev server vs cluster (N=${N} echo subtasks, ${JOBS} parallel jobs unless noted, 2 worker processes, ${CORES} cores; CPU in ms per subtask; DB CPU = every PostgreSQL process but the backends of other databases, in parentheses our databases' backends alone)`,
  [
    'run',
    'store',
    'shards',
    'jobs × subtasks',
    'wall s',
    'subtasks/s',
    'server CPU ms',
    'DB CPU ms',
    'worker CPU ms',
    'server+DB+worker ms',
    'CPU busy',
    'events',
    'database writes per subtask',
  ],
  rows,
  {
    n: N,
    jobs: JOBS,
    cores: CORES,
    devLogBytes,
    pgSettings,
    loadStart,
    loadEnd,
    minutes: (Date.now() - startedAt) / 60_000,
    clusterStartSeconds: starts,
    oneVsMany,
    prediction,
    results,
  },
);
process.exit(0);
