/**
 * `npm start`: the whole stack in one command. Starts the Temporal dev server (unless
 * TEMPORAL_ADDRESS is set) on `.data/temporal.sqlite` with the Web UI on :8233, then the
 * worker and the API as child processes; a child that dies is started again (with backoff),
 * and Ctrl-C stops all of them.
 *
 *   DELEGATE_DATA_DIR           the dev server's files and the stack's status (default .data)
 *   DELEGATE_TEMPORAL_PORT      the dev server's gRPC port (default 7233)
 *   DELEGATE_TEMPORAL_UI_PORT   its Web UI (default 8233), read-only unless DELEGATE_TEMPORAL_UI_WRITES=true
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../config/config';
import { developmentKey, keyNotice } from './api-key';
import { refusedPort } from './cluster-ports';
import { portFree, startDevServer } from './dev-server';
import { FANOUT_FLAT_MAX_DEV_SERVER } from '../core/engine-limits';
import { Supervisor } from './supervisor';

const root = fileURLToPath(new URL('..', import.meta.url));
const config = loadConfig();
const external = Boolean(process.env.TEMPORAL_ADDRESS);
const dataDir = process.env.DELEGATE_DATA_DIR || join(root, '.data');
const portOf = (name: string, def: number) => {
  const port = Number(process.env[name] || def);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error(`${name}: a port number, not "${process.env[name]}"`);
  return port;
};
/** An HTTP port a browser (and the readiness probe's fetch) must reach: one fetch refuses stops the start here. */
const httpPort = (name: string, port: number) => {
  const refused = refusedPort(port);
  if (refused) {
    console.error(`Could not start: ${name}=${port}: ${refused}. Choose another port.`);
    process.exit(1);
  }
  return port;
};
httpPort('PORT', config.PORT);
const uiPort = external ? 0 : httpPort('DELEGATE_TEMPORAL_UI_PORT', portOf('DELEGATE_TEMPORAL_UI_PORT', 8233));
const stack = new Supervisor(root, config.DELEGATE_LOG_FORMAT === 'pretty', join(dataDir, 'stack.json'));

let address = config.TEMPORAL_ADDRESS;
let uiUrl = config.TEMPORAL_UI_URL;
if (!external) {
  const port = portOf('DELEGATE_TEMPORAL_PORT', 7233);
  const options = {
    dbFile: join(dataDir, 'temporal.sqlite'),
    port,
    uiPort,
    // anyone on the machine reaches the UI without a credential: it only reads unless asked (docs/operations/security.md)
    readOnlyUi: !config.DELEGATE_TEMPORAL_UI_WRITES,
    logFile: join(dataDir, 'temporal.log'),
  };
  console.log(`Starting the Temporal dev server (SQLite in ${dataDir})...`);
  const server = await startDevServer(options).catch(async (err: Error) => {
    console.error(`Could not start Temporal: ${err.message}`);
    // a busy port, not a missing CLI: say what to do about it
    if (!(await portFree(port)))
      console.error(`Is another Temporal already listening on :${port}? Set TEMPORAL_ADDRESS to use it instead.`);
    process.exit(1);
  });
  // the same files and ports when it is started again: its jobs are in the SQLite file
  await stack.keep('temporal', () => startDevServer(options), server);
  address = server.address;
  uiUrl = server.uiUrl ?? uiUrl;
} else {
  console.log(`Using the Temporal cluster at ${address} (TEMPORAL_ADDRESS).`);
}

// with no keys configured, one key for tenant `default`, made once and kept in .data/api-key
const generatedKey = developmentKey(root, config);
const env = {
  ...process.env,
  TEMPORAL_ADDRESS: address,
  TEMPORAL_UI_URL: uiUrl,
  ...(generatedKey ? { DELEGATE_API_KEYS: `default=${generatedKey}` } : {}),
  // its own dev server has one history shard: fan-outs of up to 500 run flat there (bench/history/2026-12-05-diary.md)
  ...(!external && !process.env.DELEGATE_FANOUT_FLAT_MAX ? { DELEGATE_FANOUT_FLAT_MAX: String(FANOUT_FLAT_MAX_DEV_SERVER) } : {}),
};
await stack.launch('worker', 'workers/main.ts', env);
await stack.launch('api', 'api/server.ts', env);

const api = config.PUBLIC_URL ?? `http://localhost:${config.PORT}`;
await stack.waitForHttp(`http://127.0.0.1:${config.PORT}/readyz`, 'The API');
console.log(`
Delegate is running.
  API          ${api}
  API docs     ${api}/docs
  Temporal UI  ${uiUrl}${external ? '' : config.DELEGATE_TEMPORAL_UI_WRITES ? '  (writes allowed: DELEGATE_TEMPORAL_UI_WRITES)' : '  (read-only)'}
  Temporal     ${address}${external ? '' : `  (data in ${join(dataDir, 'temporal.sqlite')})`}
Try: npm run demo     Stop: Ctrl-C
`);
const notice = keyNotice(root, api, generatedKey, config);
if (notice) console.log(notice);
