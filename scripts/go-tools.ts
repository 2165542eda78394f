/**
 * Go-built tools (the Temporal CLI, the Temporal server and its SQL tool, the UI server),
 * built once with `go install` into a tools folder outside the clone, one folder per tool
 * and version, so every clone and CI run on the machine reuses them.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

/** `~/.cache/delegate/tools/<name>` (or under $XDG_CACHE_HOME). */
export function toolFolder(name: string): string {
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'delegate', 'tools', name);
}

/** The first `name` on PATH. */
export function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const p = join(dir, name);
    if (dir && existsSync(p)) return p;
  }
  return undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Takes an exclusive lock file (so two processes never build at once); returns a release function. */
async function lock(path: string): Promise<() => void> {
  for (;;) {
    try {
      closeSync(openSync(path, 'wx'));
      return () => rmSync(path, { force: true });
    } catch {
      // a lock older than 40 minutes is from a build that died
      try {
        if (Date.now() - statSync(path).mtimeMs > 40 * 60_000) rmSync(path, { force: true });
      } catch {
        /* gone already */
      }
      await sleep(1000);
    }
  }
}

/** What `goInstall` builds. */
export interface GoTool {
  /** Said in progress lines, e.g. "the Temporal server v1.29.1". */
  label: string;
  /** The folder the binaries end up in (`toolFolder(...)`). */
  dir: string;
  /** `go install` arguments: module package paths with their `@version`. */
  packages: string[];
  /** Binary names `go install` produces (the last element of each package path), and the names to keep them under. */
  binaries: Record<string, string>;
  /** Said when Go is missing: how else to get the tool. */
  withoutGo: string;
}

/** The `go` command, or undefined. */
function goBinary(): string | undefined {
  return onPath('go') ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
}

/**
 * Builds the tool's packages with `go install` (once: a second caller waits on the lock and
 * finds the binaries), showing progress; returns the folder. Binaries appear atomically.
 */
export async function goInstall(tool: GoTool, log: (line: string) => void = (l) => console.error(l)): Promise<string> {
  const done = () => Object.values(tool.binaries).every((b) => existsSync(join(tool.dir, b)));
  if (done()) return tool.dir;
  const go = goBinary();
  if (!go) throw new Error(`${tool.label} was not found and Go is not installed to build it.\n${tool.withoutGo}`);
  mkdirSync(tool.dir, { recursive: true });
  const release = await lock(join(tool.dir, '.lock'));
  try {
    if (done()) return tool.dir;
    const staging = join(tool.dir, `.staging-${process.pid}`);
    log(`Building ${tool.label} with Go into ${tool.dir} (once per machine; minutes)...`);
    const started = Date.now();
    await new Promise<void>((resolve, reject) => {
      const child = spawn(go, ['install', '-v', ...tool.packages], {
        env: { ...process.env, GOBIN: staging },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let packages = 0;
      let tail = '';
      const tick = setInterval(() => log(`  ... ${packages} packages compiled, ${Math.round((Date.now() - started) / 1000)}s`), 15_000);
      child.stderr.on('data', (chunk: Buffer) => {
        const text = chunk.toString();
        packages += text.split('\n').filter((l) => l && !l.startsWith('go: downloading')).length;
        tail = (tail + text).slice(-4000);
      });
      child.on('error', reject);
      child.on('exit', (code) => {
        clearInterval(tick);
        if (code === 0) resolve();
        else reject(new Error(`go install failed (exit ${code}):\n${tail}`));
      });
    });
    for (const [built, name] of Object.entries(tool.binaries)) renameSync(join(staging, built), join(tool.dir, name));
    rmSync(staging, { recursive: true, force: true });
    log(`${tool.label} ready after ${Math.round((Date.now() - started) / 1000)}s: ${tool.dir}`);
    return tool.dir;
  } finally {
    release();
  }
}
