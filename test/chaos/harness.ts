/**
 * Chaos harness: one scenario's own Temporal — the dev server (own SQLite file, free ports)
 * or, with DELEGATE_CHAOS_TEMPORAL=cluster, the production shape's server on PostgreSQL (own
 * databases on the test PostgreSQL, free ports) — worker and API processes as real children
 * that can be SIGKILLed and restarted, the step log they append to, and HTTP helpers. Every process is killed at the end, also
 * when the test process itself exits early.
 */
import { Client, Connection } from '@temporalio/client';
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { freePort, startDevServer, type DevServer } from '../../scripts/dev-server';
import { machinePostgres } from '../../scripts/machine-postgres';
import { createDatabase } from '../../scripts/postgres';
import { clusterPorts, freePortOffset, startTemporalServer, temporalSettings } from '../../scripts/temporal-server';
import type { JobResult } from '../../schemas';

const root = fileURLToPath(new URL('../..', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The bearer key of tenant "default" in every chaos stack. */
export const CHAOS_API_KEY = 'chaos-key-default-0123456789abcdef';
/** The header that carries it. */
export const CHAOS_AUTH = { authorization: `Bearer ${CHAOS_API_KEY}` };

/** Every child process any stack started, so an exiting test process can take them down. */
const live = new Set<ChildProcess>();
let exitHookInstalled = false;
function track(child: ChildProcess): ChildProcess {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    const killAll = () => {
      for (const c of live) c.kill('SIGKILL');
    };
    process.once('exit', killAll);
    for (const sig of ['SIGINT', 'SIGTERM'] as const) {
      process.once(sig, () => {
        killAll();
        process.exit(130);
      });
    }
  }
  return child;
}

const alive = (c: ChildProcess | undefined): c is ChildProcess => !!c && c.exitCode === null && c.signalCode === null;

/** Kills a child and waits for it to be gone. */
async function kill(child: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!alive(child)) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await gone;
  clearTimeout(timer);
}

/** One line of the step log: a completed agent step. */
export interface StepLogEntry {
  stepKey: string;
  attempt: number;
}

/** Options of `ChaosStack.start`. */
export interface ChaosStackOptions {
  /** Names the temp folder and the task queue. */
  name: string;
  /** Worker processes to start. @default 1 */
  workers?: number;
  /** Start an API process. @default true */
  api?: boolean;
  /**
   * PostgreSQL URL of the job record (`DELEGATE_DATABASE_URL`), or `null` for a SQLite file in
   * the stack's folder. Default: SQLite on the dev server; on the cluster a database of its own
   * on the test PostgreSQL, as `npm run cluster` keeps it (a SQLite file shared by two workers
   * and the API there made workers wait on its lock with the event loop blocked, past the
   * steps' 10 s heartbeat timeout).
   */
  recordUrl?: string | null;
  /** The dev server, or the cluster's server on PostgreSQL. @default $DELEGATE_CHAOS_TEMPORAL or `dev` */
  temporal?: ChaosTemporal;
}

/** Which Temporal a chaos stack runs on. */
export type ChaosTemporal = 'dev' | 'cluster';

/** The Temporal the suite runs on: `DELEGATE_CHAOS_TEMPORAL=cluster npm run test:chaos` for the production shape. */
export function chaosTemporal(): ChaosTemporal {
  const value = process.env.DELEGATE_CHAOS_TEMPORAL ?? 'dev';
  if (value !== 'dev' && value !== 'cluster') throw new Error(`DELEGATE_CHAOS_TEMPORAL: 'dev' or 'cluster', not '${value}'`);
  return value;
}

/** A scenario's processes: dev server, workers, API. */
export class ChaosStack {
  readonly dir: string;
  readonly dbFile: string;
  readonly stepLog: string;
  /** The SQLite file of the job record. */
  readonly recordFile: string;
  readonly taskQueue: string;
  /** Which Temporal this stack runs. */
  readonly temporal: ChaosTemporal;
  server!: DevServer;
  serverPort = 0;
  /** The record's PostgreSQL URL, if it is not the SQLite file. */
  private recordUrl?: string;
  /** On the cluster: the port offset of the server's ports, its PostgreSQL and its settings (own database names). */
  private cluster?: { offset: number; postgres: { host: string; port: number }; settings: Record<string, string> };
  apiPort = 0;
  readonly workers: (ChildProcess | undefined)[] = [];
  api?: ChildProcess;
  private connection?: Connection;
  private clientPromise?: Promise<Client>;
  private logSeq = 0;

  private constructor(readonly opts: ChaosStackOptions) {
    this.dir = mkdtempSync(join(tmpdir(), `delegate-chaos-${opts.name}-`));
    this.dbFile = join(this.dir, 'temporal.sqlite');
    this.stepLog = join(this.dir, 'steps.log');
    this.recordFile = join(this.dir, 'record.db');
    this.taskQueue = `chaos-${opts.name}`;
    this.temporal = opts.temporal ?? chaosTemporal();
  }

  /** Starts the dev server, the workers and the API; on failure, stops what did start. */
  static async start(opts: ChaosStackOptions): Promise<ChaosStack> {
    const stack = new ChaosStack(opts);
    try {
      stack.apiPort = await freePort();
      if (stack.temporal === 'cluster') {
        const offset = await freePortOffset();
        // the test PostgreSQL (global setup): its superuser gives the cluster's role
        const settings = temporalSettings({});
        const role = { user: settings.POSTGRES_USER, password: settings.POSTGRES_PWD, createdb: true };
        const postgres = await machinePostgres([role], { adminUrl: inject('pgUrl') });
        const database = `temporal_${opts.name.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${process.pid}`;
        stack.cluster = { offset, postgres, settings: { ...settings, DBNAME: database, VISIBILITY_DBNAME: `${database}_vis` } };
        stack.serverPort = Number(clusterPorts(offset).FRONTEND_GRPC_PORT);
        stack.recordUrl =
          opts.recordUrl === undefined ? await createDatabase(inject('pgUrl'), `${database}_record`) : (opts.recordUrl ?? undefined);
      } else {
        stack.recordUrl = opts.recordUrl ?? undefined;
        stack.serverPort = await freePort();
      }
      await stack.startServer();
      await Promise.all(Array.from({ length: opts.workers ?? 1 }, (_, i) => stack.startWorker(i)));
      if (opts.api ?? true) await stack.startApi();
      return stack;
    } catch (err) {
      await stack.stop();
      throw err;
    }
  }

  /** host:port of the Temporal frontend. */
  get address(): string {
    return `127.0.0.1:${this.serverPort}`;
  }

  /** Base URL of the API. */
  get apiUrl(): string {
    return `http://127.0.0.1:${this.apiPort}`;
  }

  /** Starts Temporal on this stack's ports and data (again after a stop: same data). */
  async startServer(): Promise<void> {
    const logFile = join(this.dir, 'server.log');
    if (this.cluster) {
      const { offset, postgres, settings } = this.cluster;
      this.server = await startTemporalServer({ postgres, settings, portOffset: offset, logFile });
    } else {
      this.server = await startDevServer({ dbFile: this.dbFile, port: this.serverPort, headless: true, logFile });
    }
    track(this.server.process);
  }

  /** Stops Temporal: SIGTERM (graceful) or SIGKILL (a crash). */
  async stopServer(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (signal === 'SIGTERM') await this.server.stop();
    else await kill(this.server.process, signal);
  }

  private env(extra: Record<string, string>): NodeJS.ProcessEnv {
    return {
      ...process.env,
      TEMPORAL_ADDRESS: this.address,
      DELEGATE_TASK_QUEUE: this.taskQueue,
      DELEGATE_STEP_LOG: this.stepLog,
      // the job record the workers write and the API reads
      DELEGATE_RECORD_FILE: this.recordFile,
      ...(this.recordUrl ? { DELEGATE_DATABASE_URL: this.recordUrl } : {}),
      // tenant "default" with one key; the fuzzer's thousands of requests are not rate limited
      DELEGATE_API_KEYS: `default=${CHAOS_API_KEY}`,
      DELEGATE_QUOTA_REQUESTS_PER_MINUTE: '1000000',
      // 50 jobs × 4 subtasks at once in the flaky scenario: the tenant's lane as wide as the shared pool
      DELEGATE_QUOTA_AGENT_SLOTS: '200',
      DELEGATE_QUOTA_RUNNING_JOBS: '1000',
      LOG_LEVEL: 'info',
      ...extra,
    };
  }

  /** Spawns `node --import tsx <entry>` in `from` (default: this checkout), logging to a file, resolving once `ready` says so. */
  private async spawnNode(
    name: string,
    entry: string,
    env: NodeJS.ProcessEnv,
    ready: () => Promise<boolean>,
    readyLine?: string,
    from = root,
  ): Promise<ChildProcess> {
    const logFile = join(this.dir, `${name}-${++this.logSeq}.log`);
    const child = track(
      spawn(process.execPath, ['--import', 'tsx', join(from, entry)], { cwd: from, env, stdio: ['ignore', 'pipe', 'pipe'] }),
    );
    const out = createWriteStream(logFile);
    let sawLine = false;
    child.stdout!.on('data', (b: Buffer) => {
      out.write(b);
      if (readyLine && b.toString().includes(readyLine)) sawLine = true;
    });
    child.stderr!.on('data', (b: Buffer) => out.write(b));
    child.once('exit', () => out.end());
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`${name} exited early (${child.signalCode ?? child.exitCode}); see ${logFile}:\n${tail(logFile)}`);
      if ((readyLine ? sawLine : true) && (await ready())) return child;
      await sleep(100);
    }
    child.kill('SIGKILL');
    throw new Error(`${name} was not ready in 90s; see ${logFile}`);
  }

  /**
   * Starts worker `i` (replacing a dead one); resolves when it polls. `root`: run the worker
   * of another copy of the source (the rolling deploy's next version), which bundles the
   * workflows of its own folder.
   */
  async startWorker(i = 0, env: Record<string, string> = {}, { root: from = root }: { root?: string } = {}): Promise<ChildProcess> {
    const w = await this.spawnNode(`worker${i}`, 'workers/main.ts', this.env(env), async () => true, 'worker running', from);
    this.workers[i] = w;
    return w;
  }

  /** Kills worker `i` (SIGKILL by default: no graceful shutdown, activities in flight are lost). */
  async killWorker(i = 0, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    await kill(this.workers[i], signal);
    this.workers[i] = undefined;
  }

  /** Starts the API on this stack's port; resolves when /healthz answers. */
  async startApi(): Promise<ChildProcess> {
    const env = this.env({ PORT: String(this.apiPort), HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
    this.api = await this.spawnNode('api', 'api/server.ts', env, async () => {
      try {
        return (await fetch(`${this.apiUrl}/healthz`)).ok;
      } catch {
        return false;
      }
    });
    return this.api;
  }

  /** Kills the API process. */
  async killApi(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    await kill(this.api, signal);
    this.api = undefined;
  }

  /** A Temporal client on this stack's server (one connection; it reconnects after restarts). */
  client(): Promise<Client> {
    this.clientPromise ??= Connection.connect({ address: this.address }).then((c) => {
      this.connection = c;
      return new Client({ connection: c });
    });
    return this.clientPromise;
  }

  /** POSTs a job to the API; returns status and body. */
  async submit(spec: object, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await fetch(`${this.apiUrl}/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...CHAOS_AUTH, ...headers },
      body: JSON.stringify(spec),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  /** GETs a JSON route of the API. */
  async get(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await fetch(`${this.apiUrl}${path}`, { headers: CHAOS_AUTH });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  /** Waits for a job's result through the API (long-polling in 20 s slices), up to `timeoutMs`. */
  async waitResult(jobId: string, timeoutMs = 120_000): Promise<JobResult> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      try {
        const wait = Math.max(1, Math.min(20, Math.floor((deadline - Date.now()) / 1000)));
        const res = await this.get(`/v1/jobs/${encodeURIComponent(jobId)}/result?waitSeconds=${wait}`);
        if (res.status === 200) return res.body as unknown as JobResult;
        last = `${res.status} ${JSON.stringify(res.body).slice(0, 200)}`;
        if (res.status !== 202 && res.status !== 503) throw new Error(`result of ${jobId}: ${last}`);
      } catch (err) {
        if (String(err).includes(`result of ${jobId}`)) throw err;
        last = String(err);
        await sleep(250);
      }
    }
    throw new Error(`no result for ${jobId} in ${timeoutMs} ms (last: ${last})`);
  }

  /** The step log's entries in order (empty before the first completed step). */
  readStepLog(): StepLogEntry[] {
    if (!existsSync(this.stepLog)) return [];
    return readFileSync(this.stepLog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [stepKey, attempt] = line.split('\t');
        return { stepKey, attempt: Number(attempt) };
      });
  }

  /** Waits until at least `n` steps are in the step log. */
  async waitForSteps(n: number, timeoutMs = 60_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const have = this.readStepLog().length;
      if (have >= n) return have;
      await sleep(100);
    }
    throw new Error(`fewer than ${n} steps logged in ${timeoutMs} ms`);
  }

  /** Stops everything (API, workers, server), closes the client, removes the temp folder. */
  async stop(): Promise<void> {
    await kill(this.api, 'SIGKILL');
    await Promise.all(this.workers.map((w) => kill(w, 'SIGKILL')));
    await this.connection?.close().catch(() => undefined);
    if (this.server) await this.server.stop().catch(() => kill(this.server.process, 'SIGKILL'));
    if (!process.env.CHAOS_KEEP) rmSync(this.dir, { recursive: true, force: true });
    else console.log(`chaos: kept ${this.dir}`);
  }
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-20).join('\n');
  } catch {
    return '';
  }
}
