/**
 * The production shape's Temporal: the real server (not the dev server) on PostgreSQL, from
 * the same files as docker-compose.yml: deploy/temporal/cluster.yaml (the server's config,
 * rendered by the server from the environment), deploy/temporal.env (shared settings),
 * deploy/temporal-setup.sh (schema, namespace, search attributes) and
 * deploy/temporal-dynamicconfig.yaml.
 *
 *   temporal-setup.sh schema ─ temporal-server start (all four services, one process)
 *     ─ frontend answers ─ temporal-setup.sh namespace ─ the namespace takes workflows
 */
import { Client, Connection } from '@temporalio/client';
import { execFile, spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEnv, promisify } from 'node:util';
import { clusterPorts } from './cluster-ports';
import { exitOf, stopProcess, waitForTemporal, type DevServer } from './dev-server';
import { ensureTool, toolFolder, type PinnedTool } from './go-tools';
import { ensureTemporalCli } from './temporal-cli';
import { TEMPORAL_SERVER_VERSION } from './versions';

// the port layout lives with the cluster's other ports (scripts/cluster-ports.ts); tests and benches import it from here too
export { clusterPorts, freePortOffset } from './cluster-ports';

const root = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

/** The folder of the shared deployment files. */
export const DEPLOY_DIR = join(root, 'deploy');

/** An env file's `KEY=value` pairs (node's own parser: comments, quotes). */
export function readEnvFile(path: string): Record<string, string> {
  return parseEnv(readFileSync(path, 'utf8')) as Record<string, string>;
}

/** deploy/temporal.env, with the environment's values for its keys taking precedence. */
export function temporalSettings(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const file = readEnvFile(join(DEPLOY_DIR, 'temporal.env'));
  return Object.fromEntries(Object.entries(file).map(([k, v]) => [k, env[k] ?? v]));
}

/** Paths of the built server and SQL tool. */
export interface TemporalServerBinaries {
  server: string;
  sqlTool: string;
}

/** The server and its SQL tool as a pinned tool: their `go install` packages and the server's release archive. */
export function temporalServerTool(env: NodeJS.ProcessEnv = process.env): PinnedTool {
  const version = TEMPORAL_SERVER_VERSION.slice(1);
  return {
    label: `the Temporal server ${TEMPORAL_SERVER_VERSION}`,
    dir: toolFolder(`temporal-server-${TEMPORAL_SERVER_VERSION}`, env),
    binaries: ['temporal-server', 'temporal-sql-tool'],
    // another version would bring the databases to its own schema
    pathVersion: version,
    go: {
      packages: [
        `go.temporal.io/server/cmd/server@${TEMPORAL_SERVER_VERSION}`,
        `go.temporal.io/server/cmd/tools/sql@${TEMPORAL_SERVER_VERSION}`,
      ],
      built: { server: 'temporal-server', sql: 'temporal-sql-tool' },
    },
    // the server's .goreleaser.yml: temporal_<version>_<os>_<arch>.tar.gz holds the server and its tools
    release: {
      repo: 'temporalio/temporal',
      tag: TEMPORAL_SERVER_VERSION,
      archive: (p) => `temporal_${version}_${p.os}_${p.arch}.tar.gz`,
      checksums: ['checksums.txt', `temporal_${version}_checksums.txt`],
      files: { 'temporal-server': 'temporal-server', 'temporal-sql-tool': 'temporal-sql-tool' },
    },
    otherwise:
      `  Put temporal-server and temporal-sql-tool ${version} on PATH, or install Go >= 1.23 (https://go.dev/dl),\n` +
      '  or run Temporal yourself (docker compose, docs/operations/cluster.md) and point TEMPORAL_ADDRESS at it.',
  };
}

/** Finds, builds or downloads (once per machine) the pinned server and `temporal-sql-tool`. */
export async function ensureTemporalServer(log?: (line: string) => void): Promise<TemporalServerBinaries> {
  const bins = await ensureTool(temporalServerTool(), log);
  return { server: bins['temporal-server'], sqlTool: bins['temporal-sql-tool'] };
}

/** Options of `startTemporalServer`. */
export interface TemporalServerOptions {
  /** Where PostgreSQL listens; the role of deploy/temporal.env must be able to create databases. */
  postgres: { host: string; port: number };
  /** deploy/temporal.env's values to use (e.g. `temporalSettings()`, or with test database names). */
  settings: Record<string, string>;
  /** Added to every standard port (7233 → 7233 + offset). @default 0 */
  portOffset?: number;
  /** The server's Prometheus endpoint (`host:port`); unset: none. */
  metricsAddress?: string;
  /** The server's own log (and the setup's output). @default discarded */
  logFile?: string;
  log?: (line: string) => void;
}

/** A running cluster server (the dev server's shape, so the same callers can use either). */
export type TemporalServer = DevServer;

/** The setup script's environment: the settings plus the tools and where things are. */
function setupEnv(opts: TemporalServerOptions, bins: TemporalServerBinaries, cli: string, address: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...opts.settings,
    POSTGRES_SEEDS: opts.postgres.host,
    DB_PORT: String(opts.postgres.port),
    TEMPORAL_SQL_TOOL: bins.sqlTool,
    TEMPORAL_CLI: cli,
    TEMPORAL_ADDRESS: address,
  };
}

async function setup(step: 'schema' | 'namespace', env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<void> {
  try {
    const { stdout } = await run('sh', [join(DEPLOY_DIR, 'temporal-setup.sh'), step], { env, maxBuffer: 16 * 1024 * 1024 });
    for (const line of stdout.trim().split('\n')) if (line) log(`  ${line}`);
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`deploy/temporal-setup.sh ${step} failed:\n${(e.stderr || e.stdout || e.message).trim()}`);
  }
}

/** Waits until the namespace takes calls (a new namespace reaches the frontend's cache within ~10 s). */
async function waitForNamespace(address: string, namespace: string, timeoutMs = 60_000): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection, namespace });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        await client.workflow.count();
        return;
      } catch (err) {
        if (Date.now() > deadline) throw new Error(`namespace ${namespace} did not become usable: ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  } finally {
    await connection.close();
  }
}

/**
 * Sets up the databases, starts `temporal-server` (frontend, history, matching and worker in
 * one process), waits for its frontend, then sets up the namespace. Data stays in PostgreSQL:
 * a second start with the same settings finds it.
 */
export async function startTemporalServer(opts: TemporalServerOptions): Promise<TemporalServer> {
  const log = opts.log ?? (() => {});
  const [bins, cli] = await Promise.all([ensureTemporalServer(log), ensureTemporalCli(log)]);
  const ports = clusterPorts(opts.portOffset);
  const address = `127.0.0.1:${ports.FRONTEND_GRPC_PORT}`;
  const env = setupEnv(opts, bins, cli, address);
  await setup('schema', env, log);

  const out = opts.logFile ? openSync(opts.logFile, 'a') : 'ignore';
  const child = spawn(bins.server, ['--root', root, '--config', 'deploy/temporal', '--env', 'cluster', '--allow-no-auth', 'start'], {
    env: {
      ...env,
      ...ports,
      BIND_ON_IP: '127.0.0.1',
      TEMPORAL_BROADCAST_ADDRESS: '127.0.0.1',
      DYNAMIC_CONFIG_FILE_PATH: join(DEPLOY_DIR, 'temporal-dynamicconfig.yaml'),
      ...(opts.metricsAddress ? { PROMETHEUS_ENDPOINT: opts.metricsAddress } : {}),
    },
    stdio: ['ignore', out, out],
  });
  const exited = exitOf(child);
  // four services drain their shards and queues: more time than the dev server needs
  const stop = () => stopProcess(child, exited, 20_000);
  try {
    const early = exited.then(() => {
      throw new Error(`temporal-server exited early (code ${child.exitCode})${opts.logFile ? `; see ${opts.logFile}` : ''}`);
    });
    await Promise.race([waitForTemporal(address, 120_000), early]);
    await Promise.race([setup('namespace', env, log), early]);
    await Promise.race([waitForNamespace(address, opts.settings.DEFAULT_NAMESPACE ?? 'default'), early]);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return { address, process: child, stop, logFile: opts.logFile };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // `npm run cluster:install`: build what `npm run cluster` runs, ahead of time (CI does)
  const { ensureTemporalUi } = await import('./temporal-ui');
  const log = (line: string) => console.error(line);
  const [bins, ui, cli] = await Promise.all([ensureTemporalServer(log), ensureTemporalUi(log), ensureTemporalCli(log)]).catch(
    (err: Error) => {
      console.error(err.message);
      process.exit(1);
    },
  );
  console.log([bins.server, bins.sqlTool, ui, cli].join('\n'));
}
