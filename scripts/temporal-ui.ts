/**
 * The Temporal Web UI for the production-shaped cluster: the UI server's Go module
 * (github.com/temporalio/ui-server), built once into the tools folder, started against a
 * Temporal frontend with the committed config deploy/temporal-ui.yaml.
 *
 *   deploy/temporal-ui.yaml ──(TEMPORAL_ADDRESS, TEMPORAL_UI_PORT, … in its env)──▶ temporal-ui-server
 *        (a Go template the server renders itself)                                    │ gRPC
 *                                                                                      ▼
 *   browser / curl ──HTTP──▶ <url>/ (the UI), <url>/api/v1/… (the frontend's HTTP API)   Temporal frontend
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, openSync } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { refusedPort } from './cluster-ports';
import { exitOf, portFree, stopProcess } from './dev-server';
import { ensureTool, toolFolder, type PinnedTool } from './go-tools';
import { TEMPORAL_UI_VERSION } from './versions';

// the pinned version lives with the server's in versions.ts (docker-compose.yml's image tag is checked against it)
export { TEMPORAL_UI_VERSION };

/** The committed UI config template. */
export const TEMPORAL_UI_CONFIG = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'deploy', 'temporal-ui.yaml');

/** The UI server as a pinned tool: its `go install` package and its release archive. */
export function temporalUiTool(env: NodeJS.ProcessEnv = process.env): PinnedTool {
  const version = TEMPORAL_UI_VERSION.slice(1);
  return {
    label: `the Temporal UI server ${TEMPORAL_UI_VERSION}`,
    dir: toolFolder(`temporal-ui-${TEMPORAL_UI_VERSION}`, env),
    binaries: ['temporal-ui-server'],
    pathVersion: version,
    // `go install …/cmd/server` names its binary after the package folder
    go: { packages: [`github.com/temporalio/ui-server/v2/cmd/server@${TEMPORAL_UI_VERSION}`], built: { server: 'temporal-ui-server' } },
    // the UI server's .goreleaser.yml: ui-server_<version>_<os>_<arch>.tar.gz, ui-server_<version>_checksums.txt
    release: {
      repo: 'temporalio/ui-server',
      tag: TEMPORAL_UI_VERSION,
      archive: (p) => `ui-server_${version}_${p.os}_${p.arch}.tar.gz`,
      checksums: [`ui-server_${version}_checksums.txt`, 'checksums.txt'],
      files: { 'ui-server': 'temporal-ui-server' },
    },
    otherwise:
      '  Install Go >= 1.24 (https://go.dev/dl) and start again, or run the UI from its image\n' +
      `  (temporalio/ui:${version}) with TEMPORAL_ADDRESS pointing at the frontend.`,
  };
}

/** Finds, builds (`go install`, minutes: it embeds the UI's assets) or downloads the UI server once; returns the binary's path. */
export async function ensureTemporalUi(log: (line: string) => void = (l) => console.error(l)): Promise<string> {
  return (await ensureTool(temporalUiTool(), log))['temporal-ui-server'];
}

/** Options of `startTemporalUi`. */
export interface TemporalUiOptions {
  /** The Temporal frontend's gRPC address, host:port. */
  temporalAddress: string;
  /** HTTP port of the UI. */
  port: number;
  /** Interface to listen on. @default '127.0.0.1' */
  host?: string;
  /** Where the UI server's output (its request log) goes. @default nowhere */
  logFile?: string;
  /** Origins allowed to call the UI's API from a browser, besides the UI itself (e.g. the Delegate API's). @default [] */
  corsOrigins?: string[];
  /** The config template. @default deploy/temporal-ui.yaml */
  configFile?: string;
  /** Progress lines of a first build. */
  log?: (line: string) => void;
  /** How long to wait for the UI to answer. @default 60_000 */
  timeoutMs?: number;
}

/** A running UI server. */
export interface TemporalUi {
  /** e.g. http://127.0.0.1:8080 */
  url: string;
  process: ChildProcess;
  /** SIGTERM, then SIGKILL after 10 s; resolves when the process is gone. */
  stop(): Promise<void>;
  /** Its log file (`logFile` of the options). */
  logFile?: string;
}

/** The environment the config template reads (explicit options win over the caller's environment). */
export function temporalUiEnv(opts: TemporalUiOptions, url: string): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: opts.temporalAddress,
    TEMPORAL_UI_HOST: opts.host ?? '127.0.0.1',
    TEMPORAL_UI_PORT: String(opts.port),
    TEMPORAL_CORS_ORIGINS: [url, ...(opts.corsOrigins ?? [])].join(','),
    // served over plain HTTP: a Secure CSRF cookie would be dropped and the UI's writes refused
    TEMPORAL_CSRF_COOKIE_INSECURE: 'true',
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `GET <url>/healthz` answers 200 or the process exits. */
async function waitForUi(url: string, exited: Promise<void>, timeoutMs: number, logHint: string): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (gone) throw new Error(`the Temporal UI server exited before it answered on ${url}${logHint}`);
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    await sleep(200);
  }
  throw new Error(`the Temporal UI server did not answer on ${url} within ${timeoutMs} ms${logHint}`);
}

/**
 * Starts the UI server (building it first if needed) against `temporalAddress`, with
 * deploy/temporal-ui.yaml rendered by the server from the environment; resolves once it answers.
 */
export async function startTemporalUi(opts: TemporalUiOptions): Promise<TemporalUi> {
  const bin = await ensureTemporalUi(opts.log);
  const configFile = resolve(opts.configFile ?? TEMPORAL_UI_CONFIG);
  if (!existsSync(configFile)) throw new Error(`the Temporal UI config ${configFile} does not exist`);
  // the server reads <root>/<config>/base.yaml (if any), then <root>/<config>/<env>.yaml
  const env = basename(configFile, extname(configFile));
  const host = opts.host ?? '127.0.0.1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${opts.port}`;
  // a port fetch refuses would only show as the readiness probe's timeout, a minute later
  const refused = refusedPort(opts.port);
  if (refused) throw new Error(`the Temporal UI cannot be served on ${url}: ${refused}`);
  if (!(await portFree(opts.port, host))) throw new Error(`the Temporal UI cannot listen on ${url}: the port is in use`);
  let out: number | 'ignore' = 'ignore';
  if (opts.logFile) {
    mkdirSync(dirname(opts.logFile), { recursive: true });
    out = openSync(opts.logFile, 'a');
  }
  const child = spawn(bin, ['--root', dirname(configFile), '--config', '.', '--env', env, 'start'], {
    env: { ...process.env, ...temporalUiEnv(opts, url) },
    stdio: ['ignore', out, out],
  });
  const exited = exitOf(child);
  const stop = () => stopProcess(child, exited);
  try {
    await waitForUi(url, exited, opts.timeoutMs ?? 60_000, opts.logFile ? `; see ${opts.logFile}` : '');
  } catch (err) {
    child.kill('SIGKILL');
    await exited;
    throw err;
  }
  return { url, process: child, stop, logFile: opts.logFile };
}

// `npx tsx scripts/temporal-ui.ts`: build once (e.g. to warm a CI cache) and print the binary's path
if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await ensureTemporalUi());
}
