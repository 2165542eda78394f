/**
 * The child processes of `npm start` and `npm run cluster`: launched (tsx entries, or servers
 * with their own start functions), their JSON log lines made readable, a dead one started
 * again with backoff while the rest keep running, and all stopped together on Ctrl-C.
 *
 *   child exits ──> status file: restarting ──> wait (restart-policy.ts) ──> start ──> status file: up
 *                                    └── dying right at start, maxQuickFailures times ──> give up: its last lines, stop all
 *
 * The status file (DELEGATE_STACK_STATUS_FILE, set in every child's environment) is how the
 * API's /readyz names what is down.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { PinoPretty } from 'pino-pretty';
import { exitOf, stopProcess } from './dev-server';
import { FRESH, afterExit, restartPolicyFrom, type RestartPolicy, type RestartState } from './restart-policy';

/** A started child as the supervisor keeps it: its process, how to stop it, where its log goes. */
export interface Running {
  process: ChildProcess;
  stop(): Promise<void>;
  /** The child's own log file (a server that writes one): its last lines name why it died. */
  logFile?: string;
}

/** One child's entry of the status file. */
export interface ChildStatus {
  state: 'up' | 'restarting';
  pid?: number;
  /** Epoch ms of the last change. */
  since: number;
  restarts: number;
  /** How it last exited: `SIGKILL`, `code 1`, or why its start failed. */
  lastExit?: string;
}

/** The status file's content. */
export interface StackStatus {
  supervisor: number;
  children: Record<string, ChildStatus>;
}

/** Lines of a child's output kept to say why it died. */
const TAIL_LINES = 20;

/** The last `n` lines of a file, or none when it cannot be read. */
function tailOf(file: string, n: number): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean).slice(-n);
  } catch {
    return [];
  }
}

/** Starts, watches, restarts and stops a stack's processes. */
export class Supervisor {
  private readonly running = new Map<string, Running>();
  /** The tsx children (`launch`): stopped first, together; the servers they use after them, last kept first. */
  private readonly launched = new Set<string>();
  private readonly status: StackStatus = { supervisor: process.pid, children: {} };
  private readonly tails = new Map<string, string[]>();
  /** Run after the children are gone, last added first (e.g. stop Temporal after its workers). */
  private readonly cleanups: (() => Promise<void>)[] = [];
  private readonly policy: RestartPolicy;
  private stopping = false;

  /**
   * @param root the project folder (entries are relative to it)
   * @param pretty pino-pretty the children's stdout (DELEGATE_LOG_FORMAT=pretty)
   * @param statusFile where the children's states are written for the API's /readyz
   */
  constructor(
    private readonly root: string,
    private readonly pretty: boolean,
    readonly statusFile: string,
  ) {
    this.policy = restartPolicyFrom(process.env);
    mkdirSync(dirname(statusFile), { recursive: true });
    this.writeStatus();
    process.on('SIGINT', () => void this.shutdown(0));
    process.on('SIGTERM', () => void this.shutdown(0));
  }

  /**
   * Keeps a child running: `first` (already started, e.g. Temporal, whose address the rest
   * needs) or `start()` now; whenever it exits while the stack runs, `start()` again after the
   * policy's backoff.
   */
  async keep(name: string, start: () => Promise<Running>, first?: Running): Promise<void> {
    let state: RestartState = FRESH;
    const run = (child: Running) => {
      const startedAt = Date.now();
      this.running.set(name, child);
      this.setStatus(name, { state: 'up', pid: child.process.pid, restarts: state.restarts });
      child.process.once('exit', (code, signal) => void onExit(Date.now() - startedAt, signal ?? `code ${code}`, child));
    };
    const onExit = async (upMs: number, how: string, child: Running) => {
      if (this.stopping) return;
      const next = afterExit(this.policy, state, upMs);
      state = next.state;
      this.setStatus(name, { state: 'restarting', restarts: state.restarts, lastExit: how });
      if (next.giveUp) return this.giveUp(name, how, child);
      console.error(
        `${name} exited (${how}) after ${Math.round(upMs / 100) / 10} s; starting it again in ${next.delayMs / 1000} s (restart ${state.restarts}).`,
      );
      await new Promise((r) => setTimeout(r, next.delayMs));
      if (this.stopping) return;
      let again: Running;
      const began = Date.now();
      try {
        again = await start();
      } catch (err) {
        // a start that fails is a death at start: the same backoff, and the same limit
        return onExit(Date.now() - began, `start failed: ${(err as Error).message.split('\n')[0]}`, child);
      }
      if (this.stopping) return void again.stop();
      console.error(`${name} is running again (pid ${again.process.pid}).`);
      run(again);
    };
    run(first ?? (await start()));
  }

  /** Runs `fn` when the stack stops, after the children (last added first). */
  onStop(fn: () => Promise<void>): void {
    this.cleanups.push(fn);
  }

  /** Stops every child (SIGTERM, SIGKILL after 10 s), then the cleanups; exits with `code`. */
  async shutdown(code: number): Promise<never> {
    if (!this.stopping) {
      this.stopping = true;
      console.log('\nStopping Delegate...');
      const all = [...this.running.entries()];
      await Promise.all(all.filter(([name]) => this.launched.has(name)).map(([, c]) => c.stop().catch(() => undefined)));
      for (const [, c] of all.filter(([name]) => !this.launched.has(name)).reverse()) await c.stop().catch(() => undefined);
      for (const fn of [...this.cleanups].reverse()) {
        try {
          await fn();
        } catch (err) {
          console.error(`while stopping: ${(err as Error).message}`);
        }
      }
      rmSync(this.statusFile, { force: true });
      console.log('Stopped.');
    }
    process.exit(code);
  }

  /** A child that keeps dying at start: say which, with its last lines, and stop the stack. */
  private async giveUp(name: string, how: string, child: Running): Promise<void> {
    // a server's own log file (tailOf: none when unreadable), else what a launched child wrote
    const lines = child.logFile ? tailOf(child.logFile, TAIL_LINES) : (this.tails.get(name) ?? []);
    console.error(
      `${name} exited (${how}) ${this.policy.maxQuickFailures} times in a row within ${this.policy.quickMs / 1000} s of its start; giving up.` +
        (lines.length ? `\nIts last lines${child.logFile ? ` (${child.logFile})` : ''}:\n${lines.map((l) => `  ${l}`).join('\n')}` : ''),
    );
    await this.shutdown(1);
  }

  private setStatus(name: string, s: Omit<ChildStatus, 'since'>): void {
    this.status.children[name] = { ...s, since: Date.now() };
    this.writeStatus();
  }

  /** Written whole and renamed into place: a reader never sees half a file. */
  private writeStatus(): void {
    const tmp = `${this.statusFile}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.status));
    renameSync(tmp, this.statusFile);
  }

  /** Copies a child's output to ours (pino-pretty'd if asked) and keeps its last lines. */
  private forward(name: string, from: Readable, to: Writable | undefined, label: string): void {
    let partial = '';
    from.on('data', (b: Buffer) => {
      const lines = (partial + b.toString()).split('\n');
      partial = lines.pop() ?? '';
      const tail = this.tails.get(name) ?? [];
      tail.push(...lines.filter(Boolean));
      this.tails.set(name, tail.slice(-TAIL_LINES));
    });
    if (to) from.pipe(to, { end: false });
    else from.pipe(this.prettyStream(label));
  }

  /**
   * The processes' JSON log lines, one event a line, for a person: level, time, `[proc]`, message
   * and the other fields inline; colour on a terminal. DELEGATE_LOG_FORMAT=json passes them through.
   */
  private prettyStream(label: string): Writable {
    return PinoPretty({
      colorize: Boolean(process.stdout.isTTY),
      singleLine: true,
      // errors inline too (their stacks as escaped JSON): a multi-line block would break one event into several lines
      errorLikeObjectKeys: [],
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,proc',
      messageFormat: `[${label === '' ? '{proc}' : label}] {msg}`,
      // the processes may still write while this one stops: never end our stdout with theirs
      destination: 1,
    });
  }

  /**
   * Keeps `node --import tsx <entry>` running (see `keep`), with DELEGATE_STACK_STATUS_FILE in
   * its environment. `label` names it in pretty logs (default: its `proc` field).
   */
  launch(name: string, entry: string, env: NodeJS.ProcessEnv, label = ''): Promise<void> {
    this.launched.add(name);
    return this.keep(name, async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(this.root, entry)], {
        env: { ...env, DELEGATE_STACK_STATUS_FILE: this.statusFile },
        stdio: ['inherit', 'pipe', 'pipe'],
        cwd: this.root,
      });
      this.forward(name, child.stdout!, this.pretty ? undefined : process.stdout, label);
      this.forward(name, child.stderr!, process.stderr, label);
      const exited = exitOf(child);
      return { process: child, stop: () => stopProcess(child, exited) };
    });
  }

  /** Waits until `url` answers 2xx, or stops the stack saying what did not come up. */
  async waitForHttp(url: string, what: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        if ((await fetch(url)).ok) return;
      } catch {
        /* not listening yet */
      }
      if (Date.now() > deadline) {
        console.error(`${what} did not become ready within ${Math.round(timeoutMs / 1000)} s.`);
        await this.shutdown(1);
      }
      await new Promise((r) => setTimeout(r, 300));
    }
  }
}
