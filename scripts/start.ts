/**
 * `npm start`: the whole stack in one command. Starts the Temporal dev server (unless
 * TEMPORAL_ADDRESS is set) on `.data/temporal.sqlite` with the Web UI on :8233, then the
 * worker and the API as child processes; Ctrl-C stops all of them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PinoPretty } from 'pino-pretty';
import { loadConfig } from '../workers/config';
import { apiKeyFile, localApiKey } from './api-key';
import { startDevServer, type DevServer } from './dev-server';

const root = fileURLToPath(new URL('..', import.meta.url));
const config = loadConfig();
const external = Boolean(process.env.TEMPORAL_ADDRESS);
const children: ChildProcess[] = [];
let server: DevServer | undefined;
let stopping = false;

async function shutdown(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    console.log('\nStopping Delegate...');
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            c.once('exit', () => resolve());
            c.kill('SIGTERM');
            setTimeout(() => c.kill('SIGKILL'), 10_000).unref();
          }),
      ),
    );
    await server?.stop();
    console.log('Stopped.');
  }
  process.exit(code);
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

let address = config.TEMPORAL_ADDRESS;
let uiUrl = config.TEMPORAL_UI_URL;
if (!external) {
  const dataDir = join(root, '.data');
  console.log('Starting the Temporal dev server (SQLite in .data/)...');
  try {
    server = await startDevServer({ dbFile: join(dataDir, 'temporal.sqlite'), port: 7233, uiPort: 8233, logFile: join(dataDir, 'temporal.log') });
  } catch (err) {
    console.error(`Could not start Temporal: ${(err as Error).message}`);
    console.error('Is another Temporal already listening on :7233? Set TEMPORAL_ADDRESS to use it instead.');
    process.exit(1);
  }
  address = server.address;
  uiUrl = server.uiUrl ?? uiUrl;
} else {
  console.log(`Using the Temporal cluster at ${address} (TEMPORAL_ADDRESS).`);
}

// with no keys configured, one key for tenant `default`, made once and kept in .data/api-key
const generatedKey =
  config.DELEGATE_AUTH === 'on' && !config.DELEGATE_API_KEYS && !config.DELEGATE_API_KEYS_FILE ? localApiKey(root, true) : undefined;
const env = {
  ...process.env,
  TEMPORAL_ADDRESS: address,
  TEMPORAL_UI_URL: uiUrl,
  ...(generatedKey ? { DELEGATE_API_KEYS: `default=${generatedKey}` } : {}),
};
/**
 * The processes' JSON log lines, one event a line, for a person: level, time, `[proc]`, message
 * and the other fields inline; colour on a terminal. DELEGATE_LOG_FORMAT=json passes them through.
 */
function prettyOutput(child: ChildProcess): void {
  const pretty = PinoPretty({
    colorize: Boolean(process.stdout.isTTY),
    singleLine: true,
    // errors inline too (their stacks as escaped JSON): a multi-line block would break one event into several lines
    errorLikeObjectKeys: [],
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,proc',
    messageFormat: '[{proc}] {msg}',
    // the processes may still write while this one stops: never end our stdout with theirs
    destination: 1,
  });
  child.stdout!.pipe(pretty);
}
function launch(name: string, entry: string): ChildProcess {
  const pretty = config.DELEGATE_LOG_FORMAT === 'pretty';
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, entry)], { env, stdio: ['inherit', pretty ? 'pipe' : 'inherit', 'inherit'], cwd: root });
  if (pretty) prettyOutput(child);
  child.once('exit', (code, signal) => {
    if (stopping) return;
    console.error(`${name} exited (${signal ?? code}); stopping the rest.`);
    void shutdown(1);
  });
  children.push(child);
  return child;
}
launch('worker', 'workers/main.ts');
launch('api', 'api/server.ts');

const api = config.PUBLIC_URL ?? `http://localhost:${config.PORT}`;
const deadline = Date.now() + 60_000;
for (;;) {
  try {
    if ((await fetch(`http://127.0.0.1:${config.PORT}/readyz`)).ok) break;
  } catch {
    /* not listening yet */
  }
  if (Date.now() > deadline) {
    console.error('The API did not become ready within 60 s.');
    await shutdown(1);
  }
  await new Promise((r) => setTimeout(r, 300));
}
console.log(`
Delegate is running.
  API          ${api}
  API docs     ${api}/docs
  Temporal UI  ${uiUrl}
  Temporal     ${address}${external ? '' : '  (data in .data/temporal.sqlite)'}
Try: npm run demo     Stop: Ctrl-C
`);
if (generatedKey) {
  console.log(`API key of tenant "default" (kept in ${apiKeyFile(root)}, mode 0600):
  ${generatedKey}
  curl -s ${api}/v1/agents -H "authorization: Bearer $(cat .data/api-key)"
`);
} else if (config.DELEGATE_AUTH === 'off') {
  console.log('*** DELEGATE_AUTH=off: the API has no authentication; every caller is tenant "default". ***\n');
}
