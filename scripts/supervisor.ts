/**
 * The child processes of `npm start` and `npm run cluster`: launched with tsx, their JSON log
 * lines made readable, and stopped together — on Ctrl-C, or when one of them dies.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { PinoPretty } from 'pino-pretty';

/** Starts, watches and stops a stack's processes. */
export class Supervisor {
  private readonly children: ChildProcess[] = [];
  /** Run after the children are gone, last added first (e.g. stop Temporal after its workers). */
  private readonly cleanups: (() => Promise<void>)[] = [];
  private stopping = false;

  /**
   * @param root the project folder (entries are relative to it)
   * @param pretty pino-pretty the children's stdout (DELEGATE_LOG_FORMAT=pretty)
   */
  constructor(
    private readonly root: string,
    private readonly pretty: boolean,
  ) {
    process.on('SIGINT', () => void this.shutdown(0));
    process.on('SIGTERM', () => void this.shutdown(0));
  }

  /** Stops the stack if `child` (started elsewhere, e.g. Temporal) exits while the stack runs. */
  watch(name: string, child: ChildProcess): void {
    child.once('exit', (code, signal) => {
      if (this.stopping) return;
      console.error(`${name} exited (${signal ?? code}); stopping the rest.`);
      void this.shutdown(1);
    });
  }

  /** Runs `fn` when the stack stops, after the children. */
  onStop(fn: () => Promise<void>): void {
    this.cleanups.push(fn);
  }

  /** Stops every child (SIGTERM, SIGKILL after 10 s), then the cleanups; exits with `code`. */
  async shutdown(code: number): Promise<never> {
    if (!this.stopping) {
      this.stopping = true;
      console.log('\nStopping Delegate...');
      await Promise.all(
        this.children.map(
          (c) =>
            new Promise<void>((resolve) => {
              if (c.exitCode !== null || c.signalCode !== null) return resolve();
              c.once('exit', () => resolve());
              c.kill('SIGTERM');
              setTimeout(() => c.kill('SIGKILL'), 10_000).unref();
            }),
        ),
      );
      for (const fn of [...this.cleanups].reverse()) {
        try {
          await fn();
        } catch (err) {
          console.error(`while stopping: ${(err as Error).message}`);
        }
      }
      console.log('Stopped.');
    }
    process.exit(code);
  }

  /**
   * The processes' JSON log lines, one event a line, for a person: level, time, `[proc]`, message
   * and the other fields inline; colour on a terminal. DELEGATE_LOG_FORMAT=json passes them through.
   */
  private prettyOutput(child: ChildProcess, label: string): void {
    const pretty = PinoPretty({
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
    child.stdout!.pipe(pretty);
  }

  /** Starts `node --import tsx <entry>`; if it exits while the stack runs, the stack stops. `label` names it in pretty logs (default: its `proc` field). */
  launch(name: string, entry: string, env: NodeJS.ProcessEnv, label = ''): ChildProcess {
    const child = spawn(process.execPath, ['--import', 'tsx', join(this.root, entry)], {
      env,
      stdio: ['inherit', this.pretty ? 'pipe' : 'inherit', 'inherit'],
      cwd: this.root,
    });
    if (this.pretty) this.prettyOutput(child, label);
    this.watch(name, child);
    this.children.push(child);
    return child;
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
