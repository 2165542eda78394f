/**
 * Shared bench plumbing: a dev server of the bench's own (temp SQLite, free port), the
 * Delegate worker as an in-process Worker or a child process, tables, machine facts, and
 * the JSON written under bench/results/.
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import { execSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { openRecord, type OpenRecord, type RecordStore } from '../record';
import { fileURLToPath } from 'node:url';
import { freePort, startDevServer, type DevServer } from '../scripts/dev-server';
import { createWorkers, type AgentLane, type DelegateWorkerOptions } from '../workers/worker';

export const root = fileURLToPath(new URL('..', import.meta.url));
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The middle of `xs` (the mean of the middle two of an even count; NaN when empty). */
export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2 : NaN;
};

/** A logger that prints errors only (the benches' runtime, and a bundler's). */
export const silentLogger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: (m: string) => console.error(m) } as never;

/** Quiets the SDK's own logging (core errors only). Call once, before any worker. */
export function quietRuntime(): void {
  Runtime.install({
    logger: silentLogger,
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } },
  });
}

/** A bench's own Temporal: dev server, client, worker connection; `close()` stops all. */
export interface BenchTemporal {
  server: DevServer;
  dir: string;
  client: Client;
  workerConnection: NativeConnection;
  close(): Promise<void>;
}

/** Starts a dev server on a temp SQLite file and free port, with a client and a worker connection. */
export async function startTemporal(name: string, settings?: Record<string, string>, metricsPort?: number): Promise<BenchTemporal> {
  const dir = mkdtempSync(join(tmpdir(), `delegate-bench-${name}-`));
  const server = await startDevServer({
    dbFile: join(dir, 'temporal.sqlite'),
    port: await freePort(),
    headless: true,
    logFile: join(dir, 'server.log'),
    settings,
    metricsPort,
  });
  const connection = await Connection.connect({ address: server.address });
  const workerConnection = await NativeConnection.connect({ address: server.address });
  const stopOnExit = () => server.process.kill('SIGKILL');
  process.once('exit', stopOnExit);
  return {
    server,
    dir,
    client: new Client({ connection }),
    workerConnection,
    async close() {
      await workerConnection.close().catch(() => undefined);
      await connection.close().catch(() => undefined);
      await server.stop();
      process.removeListener('exit', stopOnExit);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs `fn` on a dev server of its own (a fresh database: on one server for every run, the
 * server's cost per subtask grows as its database fills, and a later side pays more), then stops it.
 */
export async function withTemporal<T>(name: string, fn: (t: BenchTemporal) => Promise<T>): Promise<T> {
  const t = await startTemporal(name);
  try {
    return await fn(t);
  } finally {
    await t.close();
  }
}

let record: Promise<OpenRecord> | undefined;
/** This process's job record: a SQLite file in a temp folder (Delegate's workers archive every root job). */
export async function benchRecord(): Promise<RecordStore> {
  record ??= openRecord({ sqliteFile: join(mkdtempSync(join(tmpdir(), 'delegate-bench-record-')), 'record.db') });
  return (await record).store;
}

/**
 * Runs `fn` with Delegate's workers in this process on `t` (the queue's worker and one per lane of
 * `lanes`), archiving into the bench record; shuts them down after, whatever `fn` did.
 */
export async function withDelegateWorkers<T>(
  t: BenchTemporal,
  opts: Omit<DelegateWorkerOptions, 'connection' | 'namespace' | 'record'>,
  lanes: AgentLane[],
  fn: () => Promise<T>,
): Promise<T> {
  const workers = await createWorkers(
    { connection: t.workerConnection, namespace: 'default', record: await benchRecord(), ...opts },
    lanes,
  );
  const running = Promise.all(workers.map((w) => w.run()));
  try {
    return await fn();
  } finally {
    for (const w of workers) w.shutdown();
    await running;
  }
}

const children = new Set<ChildProcess>();
process.once('exit', () => children.forEach((c) => c.kill('SIGKILL')));

/** Spawns `node --import tsx <entry>` with env; resolves when stdout shows `readyLine`. */
export async function spawnTsx(entry: string, env: Record<string, string>, readyLine: string, cwd = root): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(cwd, entry)], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} not ready in 90s:\n${log.slice(-2000)}`)), 90_000);
    child.stdout!.on('data', (b: Buffer) => {
      log = (log + b.toString()).slice(-20_000);
      if (log.includes(readyLine)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr!.on('data', (b: Buffer) => (log = (log + b.toString()).slice(-20_000)));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited (${code}):\n${log.slice(-2000)}`));
    });
  });
  child.removeAllListeners('exit');
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Stops a child process (SIGTERM, then SIGKILL after 10 s). */
export async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await gone;
  clearTimeout(t);
}

/** A process's or thread's name and CPU ms (utime + stime) from its /proc stat file (`/proc/<pid>/stat`, `/proc/self/task/<tid>/stat`). */
export function statCpu(path: string): { name: string; ms: number } {
  const stat = readFileSync(path, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), ms: (Number(f[11]) + Number(f[12])) * (1000 / 100) }; // USER_HZ
}

/** /proc/<pid>/io: write syscalls, bytes passed to write calls, bytes sent toward storage. */
export function ioCounters(pid: number): { syscw: number; wchar: number; writeBytes: number } {
  const io = Object.fromEntries(
    readFileSync(`/proc/${pid}/io`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(':').map((s) => s.trim()) as [string, string]),
  );
  return { syscw: Number(io.syscw), wchar: Number(io.wchar), writeBytes: Number(io.write_bytes) };
}

/**
 * Runs `run` and reads what it cost: its wall ms (as `run` timed itself), the dev server's CPU ms
 * (from its /proc stat) and this process's (the bench's workers), and what the dev server wrote
 * (KiB through `write()` and `write()` calls, from its /proc io: its SQLite's pages, steadier from
 * run to run than CPU), each per subtask of `n`.
 */
export async function cpuPerSubtask(
  server: DevServer,
  n: number,
  run: () => Promise<{ ms: number }>,
): Promise<{ ms: number; serverMs: number; processMs: number; serverWriteKiB: number; serverWrites: number }> {
  const pid = server.process.pid!;
  const stat = `/proc/${pid}/stat`;
  const s0 = statCpu(stat).ms;
  const io0 = ioCounters(pid);
  const p0 = process.cpuUsage();
  const { ms } = await run();
  const p = process.cpuUsage(p0);
  const io = ioCounters(pid);
  return {
    ms,
    serverMs: (statCpu(stat).ms - s0) / n,
    processMs: (p.user + p.system) / 1000 / n,
    serverWriteKiB: (io.wchar - io0.wchar) / 1024 / n,
    serverWrites: (io.syscw - io0.syscw) / n,
  };
}

/** Peak resident memory of a live process in MiB (Linux VmHWM), or NaN elsewhere. */
export function peakRssMiB(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : NaN;
  } catch {
    return NaN;
  }
}

/** The machine and commit the figures were taken on. */
export function machine() {
  let commit = 'unknown';
  let dirty = false;
  try {
    commit = execSync('git rev-parse --short HEAD', { cwd: root, encoding: 'utf8' }).trim();
    dirty = execSync('git status --porcelain', { cwd: root, encoding: 'utf8' }).trim().length > 0;
  } catch {
    /* not a git checkout */
  }
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    ramGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    commit: dirty ? `${commit} (with uncommitted changes)` : commit,
    date: new Date().toISOString(),
  };
}

/** Renders a plain-text table. */
export function table(head: string[], rows: (string | number)[][]): string {
  const cells = [head, ...rows.map((r) => r.map(String))];
  const width = head.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(width[i]) : c.padStart(width[i]))).join('  ');
  return [line(head), width.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

/** Prints the bench's table and writes `bench/results/<name>.json` (figures + machine). */
export function report(name: string, title: string, head: string[], rows: (string | number)[][], data: unknown): void {
  console.log(`\n${title}\n`);
  console.log(table(head, rows));
  const dir = join(root, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.json`);
  writeFileSync(file, `${JSON.stringify({ bench: name, title, machine: machine(), head, rows, data }, null, 2)}\n`);
  console.log(`\n(written to ${file.slice(root.length)})`);
}

/** Rounds to `d` decimals. */
export const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

/** The p-th percentile of samples (nearest rank, from the sorted samples). */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

/** The commit the issue-9 figures call "before" (agents resolved per subtask, zod in every workflow run). */
export const DEFAULT_BEFORE_REF = '59cd4db';

/**
 * A read-only checkout of an earlier commit (for before/after in one run): a detached git
 * worktree under the temp folder, sharing this clone's node_modules. Undefined when
 * `BENCH_BEFORE=none` or the commit is not in this clone.
 */
export function beforeCheckout(): string | undefined {
  const ref = process.env.BENCH_BEFORE ?? DEFAULT_BEFORE_REF;
  if (ref === 'none') return undefined;
  const dir = join(tmpdir(), `delegate-before-${ref.replace(/[^A-Za-z0-9]/g, '_')}`);
  try {
    execSync(
      `git worktree prune && (test -d ${JSON.stringify(dir)} || git worktree add --detach ${JSON.stringify(dir)} ${JSON.stringify(ref)})`,
      { cwd: root, stdio: 'pipe' },
    );
    execSync(`ln -sfn ${JSON.stringify(join(root, 'node_modules'))} ${JSON.stringify(join(dir, 'node_modules'))}`);
    return dir;
  } catch (err) {
    console.warn(`no "before" figures: cannot check out ${ref}: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`);
    return undefined;
  }
}
