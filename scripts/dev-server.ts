/** Starts and stops a Temporal dev server (the CLI's `start-dev`) on an SQLite file. */
import { Connection } from '@temporalio/client';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname } from 'node:path';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../core/search-attributes';
import { ensureTemporalCli } from './temporal-cli';
import { startReadOnlyUi } from './ui-read-only';

/** Options of `startDevServer`. */
export interface DevServerOptions {
  /** SQLite file; its folder is created. */
  dbFile: string;
  /** gRPC port. @default 7233 */
  port?: number;
  /** Web UI port; 0 or undefined with `headless` = no UI. @default 8233 */
  uiPort?: number;
  headless?: boolean;
  /**
   * The Web UI only reads (and queries): no terminate, cancel, signal, reset or start. The CLI has no
   * setting for it, so the UI listens on a hidden loopback port behind a proxy on `uiPort` (ui-read-only.ts).
   * @default false
   */
  readOnlyUi?: boolean;
  /** Where the server's own log goes. @default inherit nothing */
  logFile?: string;
  log?: (line: string) => void;
  /**
   * Dynamic-config values on top of Delegate's own (`KEY` → JSON value). Default:
   * `DEV_THROUGHPUT_SETTINGS`; pass `{}` for the server's stock settings.
   */
  settings?: Record<string, string>;
  /** Port of the server's Prometheus `/metrics` endpoint. @default a random one */
  metricsPort?: number;
}

/**
 * The history events the server reads back (a parent's start-child event when it starts that child,
 * a child's start and close events): 512 KiB per shard by default, one shard on the dev server, which
 * a job of a few hundred children outgrows; each miss reads and decodes the job's whole batch of start
 * events again. One cache of 64 MiB per host instead (docs/operations/cluster.md).
 */
export const EVENTS_CACHE_SETTINGS: Record<string, string> = {
  'history.enableHostLevelEventsCache': 'true',
  'history.eventsHostLevelCacheMaxSizeBytes': String(64 * 1024 * 1024),
};

/**
 * Dynamic-config values that raise a one-machine dev server's throughput (A/B figures:
 * `npm run bench -- server-settings`, bench/RESULTS.md). The first two and the partition
 * counts only make sense for the dev server's single history shard and one matching host:
 * a real cluster gets more history shards instead (docker-compose.yml, docs/operations/cluster.md). The last one
 * is a feature, not a speed-up: without it the server ignores task priorities.
 */
export const DEV_THROUGHPUT_SETTINGS: Record<string, string> = {
  // the one shard's transfer tasks (start child, signal child) queue behind a busy parent's lock
  'history.transferProcessorSchedulerWorkerCount': '32',
  // lets those tasks wait for the lock instead of failing and retrying with backoff
  'history.cacheNonUserContextLockTimeout': '"5s"',
  // the search-attribute cache is refreshed on every read by default on the dev server
  'system.forceSearchAttributesCacheRefreshOnRead': 'false',
  // a workflow task that schedules an activity gets it back in the same response
  'system.enableActivityEagerExecution': 'true',
  // one partition per task queue: no forwarding between partitions on one host
  'matching.numTaskqueueReadPartitions': '1',
  'matching.numTaskqueueWritePartitions': '1',
  // task priorities (job and task `priority`) are honoured by the new matcher only
  'matching.useNewMatcher': 'true',
  // fairness keys (tenants sharing a provider's queue get dispatch by weight, core/names.ts)
  'matching.enableFairness': 'true',
  // DescribeTaskQueue's stats (backlog) are cached this long (default 5 s): capability routing reads them
  'matching.TaskQueueInfoByBuildIdTTL': '"1s"',
  ...EVENTS_CACHE_SETTINGS,
};

/**
 * Added for tests that delete a closed workflow, as retention does: deletion waits until the
 * close task's ack level is saved, every 30 s by default (measured: 20–32 s; with these, < 5 s).
 */
export const DELETION_TEST_SETTINGS: Record<string, string> = {
  'history.transferProcessorUpdateAckInterval': '"1s"',
  'history.visibilityProcessorUpdateAckInterval': '"1s"',
};

/** A running dev server. */
export interface DevServer {
  address: string;
  uiUrl?: string;
  process: ChildProcess;
  stop(): Promise<void>;
  /** Its log file (`logFile` of the options): the supervisor prints its last lines when it keeps dying. */
  logFile?: string;
}

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Resolves once `child` has exited, or could not be spawned at all (no 'exit' follows that 'error'). */
export function exitOf(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
}

/** Stops a server process: SIGTERM, then SIGKILL after `graceMs`; resolves once it is gone. */
export async function stopProcess(child: ChildProcess, exited: Promise<void>, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** True when nothing listens on `host`:`port` (a listen there succeeds). */
export function portFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, host, () => srv.close(() => resolve(true)));
  });
}

/** Waits until a Temporal frontend answers, up to `timeoutMs`. */
export async function waitForTemporal(address: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const conn = await Connection.connect({ address, connectTimeout: 2000 });
      try {
        await conn.withDeadline(Date.now() + 2000, () => conn.workflowService.getSystemInfo({}));
        return;
      } finally {
        await conn.close();
      }
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`Temporal at ${address} did not become ready in ${timeoutMs} ms: ${String(last)}`);
}

/** Starts `temporal server start-dev` with fast SQLite pragmas and Delegate's search attributes. */
export async function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  const bin = await ensureTemporalCli(opts.log);
  mkdirSync(dirname(opts.dbFile), { recursive: true });
  const port = opts.port ?? 7233;
  const args = [
    'server',
    'start-dev',
    '--db-filename',
    opts.dbFile,
    '--port',
    String(port),
    '--ip',
    '127.0.0.1',
    '--sqlite-pragma',
    'journal_mode=WAL',
    '--sqlite-pragma',
    'synchronous=OFF',
    '--log-level',
    'warn',
    '--dynamic-config-value',
    'frontend.enableUpdateWorkflowExecution=true',
    ...Object.entries(opts.settings ?? DEV_THROUGHPUT_SETTINGS).flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${value}`]),
    ...Object.entries(SEARCH_ATTRIBUTE_DEFINITIONS).flatMap(([name, type]) => ['--search-attribute', `${name}=${type}`]),
  ];
  if (opts.metricsPort) args.push('--metrics-port', String(opts.metricsPort));
  let uiUrl: string | undefined;
  let hiddenUiPort: number | undefined;
  if (opts.headless || !opts.uiPort) args.push('--headless');
  else {
    hiddenUiPort = opts.readOnlyUi ? await freePort() : undefined;
    args.push('--ui-port', String(hiddenUiPort ?? opts.uiPort));
    uiUrl = `http://localhost:${opts.uiPort}`;
  }
  const out = opts.logFile ? openSync(opts.logFile, 'a') : 'ignore';
  const child = spawn(bin, args, { stdio: ['ignore', out, out] });
  const address = `127.0.0.1:${port}`;
  const exited = exitOf(child);
  try {
    await Promise.race([
      waitForTemporal(address),
      exited.then(() => {
        throw new Error(`temporal server start-dev exited early (code ${child.exitCode})${opts.logFile ? `; see ${opts.logFile}` : ''}`);
      }),
    ]);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  const readOnly =
    hiddenUiPort !== undefined && opts.uiPort
      ? await startReadOnlyUi({ target: hiddenUiPort, port: opts.uiPort }).catch((err: Error) => {
          child.kill('SIGKILL');
          throw new Error(`cannot serve the read-only Temporal UI on :${opts.uiPort}: ${err.message}`);
        })
      : undefined;
  // a server that dies frees its UI port with it: the supervisor starts it again on the same ports
  if (readOnly) void exited.then(() => readOnly.close());
  return {
    address,
    uiUrl,
    process: child,
    stop: async () => {
      await readOnly?.close();
      await stopProcess(child, exited);
    },
    logFile: opts.logFile,
  };
}
