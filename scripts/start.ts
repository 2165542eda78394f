/**
 * `npm start`: the whole stack in one command. Starts the Temporal dev server (unless
 * TEMPORAL_ADDRESS is set) on `.data/temporal.sqlite` with the Web UI on :8233, then the
 * worker and the API as child processes; Ctrl-C stops all of them.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../config/config';
import { developmentKey, keyNotice } from './api-key';
import { startDevServer } from './dev-server';
import { Supervisor } from './supervisor';

const root = fileURLToPath(new URL('..', import.meta.url));
const config = loadConfig();
const external = Boolean(process.env.TEMPORAL_ADDRESS);
const stack = new Supervisor(root, config.DELEGATE_LOG_FORMAT === 'pretty');

let address = config.TEMPORAL_ADDRESS;
let uiUrl = config.TEMPORAL_UI_URL;
if (!external) {
  const dataDir = join(root, '.data');
  console.log('Starting the Temporal dev server (SQLite in .data/)...');
  const server = await startDevServer({ dbFile: join(dataDir, 'temporal.sqlite'), port: 7233, uiPort: 8233, logFile: join(dataDir, 'temporal.log') }).catch(
    (err: Error) => {
      console.error(`Could not start Temporal: ${err.message}`);
      console.error('Is another Temporal already listening on :7233? Set TEMPORAL_ADDRESS to use it instead.');
      process.exit(1);
    },
  );
  stack.onStop(() => server.stop());
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
};
stack.launch('worker', 'workers/main.ts', env);
stack.launch('api', 'api/server.ts', env);

const api = config.PUBLIC_URL ?? `http://localhost:${config.PORT}`;
await stack.waitForHttp(`http://127.0.0.1:${config.PORT}/readyz`, 'The API');
console.log(`
Delegate is running.
  API          ${api}
  API docs     ${api}/docs
  Temporal UI  ${uiUrl}
  Temporal     ${address}${external ? '' : '  (data in .data/temporal.sqlite)'}
Try: npm run demo     Stop: Ctrl-C
`);
const notice = keyNotice(root, api, generatedKey, config);
if (notice) console.log(notice);
