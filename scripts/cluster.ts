/**
 * `npm run cluster`: the production shape on one machine, without Docker — the Temporal
 * server (1.29.1, not the dev server) on the machine's PostgreSQL, its Web UI, two workers
 * and the API, configured from the same files as docker-compose.yml (deploy/). A process that
 * dies is started again (with backoff) while the rest keep running; Ctrl-C stops everything (and
 * PostgreSQL when this start started it); the data stays in PostgreSQL, so a second start picks up
 * where it was. Its ports are checked before anything starts (scripts/cluster-ports.ts).
 *
 *   DELEGATE_CLUSTER_WORKERS       worker processes (default 2, as compose's replicas)
 *   DELEGATE_CLUSTER_PORT_OFFSET   added to every port (Temporal's 7233…, UI 8080, API 3000, metrics 9464…), at most 25000;
 *                                  unset: 0, or the first free offset when those ports are taken (e.g. by `npm start`)
 *   NUM_HISTORY_SHARDS, DBNAME, …  deploy/temporal.env's settings, overridden by the environment
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../config/config';
import { developmentKey, keyNotice } from './api-key';
import { machinePostgres } from './machine-postgres';
import { Supervisor } from './supervisor';
import { chooseClusterOffset } from './cluster-ports';
import { DEPLOY_DIR, readEnvFile, startTemporalServer, temporalSettings } from './temporal-server';
import { startTemporalUi } from './temporal-ui';

const root = fileURLToPath(new URL('..', import.meta.url));
const started = Date.now();
const config = loadConfig();
const dataDir = join(root, '.data', 'cluster');
mkdirSync(dataDir, { recursive: true });

const workerCount = Number(process.env.DELEGATE_CLUSTER_WORKERS ?? 2);
if (!Number.isInteger(workerCount) || workerCount < 1 || workerCount > 16)
  throw new Error('DELEGATE_CLUSTER_WORKERS: an integer from 1 to 16');

// every port checked before anything starts: one in use or refused by fetch stops here, with the reason
const fixedApiPort = process.env.PORT ? Number(process.env.PORT) : undefined;
const layoutOptions = {
  apiPort: fixedApiPort,
  metricsPorts: process.env.DELEGATE_WORKER_METRICS_PORT === '0' ? 0 : workerCount,
};
const chosen = await chooseClusterOffset(layoutOptions).catch((err: Error) => {
  console.error(`Could not start the cluster: ${err.message}`);
  process.exit(1);
});
const offset = chosen.offset;
if (chosen.note) console.log(chosen.note);
const stack = new Supervisor(root, config.DELEGATE_LOG_FORMAT === 'pretty', join(dataDir, 'stack.json'));

/** Delegate's own record (compose's record-db): a database of its own on the same PostgreSQL. */
const RECORD = { user: 'delegate', password: 'delegate', database: 'delegate' };

const settings = temporalSettings();
console.log('Starting PostgreSQL...');
const postgres = await machinePostgres([{ user: settings.POSTGRES_USER, password: settings.POSTGRES_PWD, createdb: true }, RECORD], {
  log: (line) => console.log(line),
});
// it was down before this start: it stops with the stack (the last thing to stop)
if (postgres.stop) {
  const stopPostgres = postgres.stop;
  stack.onStop(async () => {
    console.log(`Stopping PostgreSQL ${postgres.started} (it was not running before npm run cluster)...`);
    const done = await stopPostgres();
    console.log(`  ${done}`);
  });
}
console.log(`Starting the Temporal server (${settings.NUM_HISTORY_SHARDS} history shards, PostgreSQL :${postgres.port})...`);
const serverOptions = {
  postgres,
  settings,
  portOffset: offset,
  logFile: join(dataDir, 'temporal.log'),
  log: (line: string) => console.log(line),
};
const server = await startTemporalServer(serverOptions).catch((err: Error) => {
  console.error(`Could not start Temporal: ${err.message}`);
  return stack.shutdown(1);
});
// started again on the same ports and databases when it dies
await stack.keep('temporal-server', () => startTemporalServer(serverOptions), server);

const apiPort = fixedApiPort ?? 3000 + offset;
const api = process.env.PUBLIC_URL ?? `http://localhost:${apiPort}`;
const uiOptions = {
  temporalAddress: server.address,
  port: 8080 + offset,
  logFile: join(dataDir, 'temporal-ui.log'),
  corsOrigins: [api],
  log: (line: string) => console.log(line),
};
const ui = await startTemporalUi(uiOptions).catch((err: Error) => {
  console.error(`Could not start the Temporal UI: ${err.message}`);
  return stack.shutdown(1);
});
await stack.keep('temporal-ui', () => startTemporalUi(uiOptions), ui);

// the same settings as compose's worker and api services, plus this host's own addresses
const envFiles = { worker: readEnvFile(join(DEPLOY_DIR, 'worker.env')), api: readEnvFile(join(DEPLOY_DIR, 'api.env')) };
const generatedKey = developmentKey(root, config);
const uiUrl = process.env.TEMPORAL_UI_URL ?? ui.url;
const recordUrl =
  process.env.DELEGATE_DATABASE_URL ?? `postgres://${RECORD.user}:${RECORD.password}@${postgres.host}:${postgres.port}/${RECORD.database}`;
const hostEnv = {
  TEMPORAL_ADDRESS: server.address,
  TEMPORAL_UI_URL: uiUrl,
  DELEGATE_DATABASE_URL: recordUrl,
  ...(generatedKey ? { DELEGATE_API_KEYS: `default=${generatedKey}` } : {}),
};
// the files first, then anything the caller set, then where this host's parts are
const envFor = (file: Record<string, string>, own: Record<string, string>) => ({ ...file, ...process.env, ...hostEnv, ...own });

for (let i = 0; i < workerCount; i++) {
  // one metrics port each (compose's replicas each have their own host); 0 keeps them off
  const metricsPort = process.env.DELEGATE_WORKER_METRICS_PORT === '0' ? '0' : String(9464 + offset + i);
  await stack.launch(
    `worker ${i + 1}`,
    'workers/main.ts',
    envFor(envFiles.worker, { DELEGATE_WORKER_METRICS_PORT: metricsPort }),
    `worker ${i + 1}`,
  );
}
await stack.launch('api', 'api/server.ts', envFor(envFiles.api, { PORT: String(apiPort) }));
await stack.waitForHttp(`http://127.0.0.1:${apiPort}/readyz`, 'The API', 90_000);

console.log(`
Delegate is running on the production shape (${Math.round((Date.now() - started) / 100) / 10} s).
  API          ${api}
  API docs     ${api}/docs
  Temporal UI  ${uiUrl}
  Temporal     ${server.address}  (temporal-server on PostgreSQL :${postgres.port}, databases ${settings.DBNAME}, ${settings.VISIBILITY_DBNAME})
  Workers      ${workerCount} (metrics on :${9464 + offset}${workerCount > 1 ? `–${9464 + offset + workerCount - 1}` : ''})
  Record       ${recordUrl.replace(/:[^:@/]*@/, ':***@')}
  Logs         ${join(dataDir, 'temporal.log')}, ${join(dataDir, 'temporal-ui.log')}
Try: ${apiPort === 3000 ? '' : `PORT=${apiPort} `}npm run demo     Stop: Ctrl-C
`);
const notice = keyNotice(root, api, generatedKey, config);
if (notice) console.log(notice);
