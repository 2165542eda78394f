/**
 * The pinned Temporal tools (the CLI, the Temporal server and its SQL tool, the UI server), kept
 * once per machine in a tools folder outside the clone, one folder per tool and version, so every
 * clone and CI run on the machine reuses them. Each comes from, in order: the PATH, the tools
 * folder, a `go install` build when Go is there, a download of its release archive
 * (scripts/release-download.ts) otherwise.
 *
 *   DELEGATE_GO                    the `go` command to build with; `off`: never build, download
 *   DELEGATE_TOOLS_DOWNLOAD_URL    a mirror of github.com's release downloads (default https://github.com)
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { downloadRelease, releaseUrl, type ReleaseArchive } from './release-download';

type Log = (line: string) => void;
const stderr: Log = (l) => console.error(l);

/** `~/.cache/delegate/tools/<name>` (or under $XDG_CACHE_HOME). */
export function toolFolder(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const cache = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'delegate', 'tools', name);
}

/** The first `name` on PATH. */
export function onPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    const p = join(dir, name);
    if (dir && existsSync(p)) return p;
  }
  return undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Takes an exclusive lock file (so two processes never build or download at once); returns a release function. */
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

/** A pinned tool: where it is kept, and the two ways to get it. */
export interface PinnedTool {
  /** Said in progress lines, e.g. "the Temporal server v1.29.1". */
  label: string;
  /** The folder the binaries are kept in (`toolFolder(...)`). */
  dir: string;
  /** The binaries kept in `dir`, by these names (also the names looked for on PATH). */
  binaries: string[];
  /**
   * Binaries on PATH are used when all of them are there and each one's `--version` output has
   * this text (another server version would migrate the databases to its own schema). Unset: any version.
   */
  pathVersion?: string;
  /** `go install` arguments (module package paths with their `@version`), and the binary each produces → the name to keep it under. */
  go: { packages: string[]; built: Record<string, string> };
  /** The release archive with its published checksums: the download when there is no Go. */
  release: ReleaseArchive;
  /** Said when neither works: how else to get the tool. */
  otherwise: string;
}

/** The `go` command, or undefined (DELEGATE_GO=off: none). */
export function goBinary(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const chosen = env.DELEGATE_GO;
  if (chosen === 'off') return undefined;
  if (chosen) return chosen;
  return onPath('go', env) ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
}

/** Whether a `--version` output names `version` (1.29.1 or v1.29.1 as a word: not 1.29.10). */
export function hasVersion(output: string, version: string): boolean {
  const bare = version.replace(/^v/, '');
  return output.split(/[\s(),]+/).some((t) => t === bare || t === `v${bare}`);
}

/** `bin --version`'s output, or '' when it does not run. */
async function versionOf(bin: string): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(bin, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.on('error', () => resolve(''));
    child.on('close', () => (clearTimeout(timer), resolve(out.trim())));
  });
}

/**
 * The tool's binaries (kept name → path): from PATH, else the tools folder, else built with Go,
 * else downloaded (once: a second caller waits on the lock and finds the binaries). A Go build
 * that fails falls back to the download; when nothing works, the error says each reason and
 * `otherwise`.
 */
export async function ensureTool(
  tool: PinnedTool,
  log: Log = stderr,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Record<string, string>> {
  const onPathBins = tool.binaries.map((b) => onPath(b, env));
  if (onPathBins.every(Boolean)) {
    const versions = tool.pathVersion ? await Promise.all(onPathBins.map((b) => versionOf(b!))) : [];
    const wrong = versions.findIndex((v) => !hasVersion(v, tool.pathVersion!));
    if (wrong < 0) return Object.fromEntries(tool.binaries.map((b, i) => [b, onPathBins[i]!]));
    log(`${onPathBins[wrong]} is "${versions[wrong] || 'no version'}", not ${tool.pathVersion}: using the pinned one.`);
  }
  const kept = () => Object.fromEntries(tool.binaries.map((b) => [b, join(tool.dir, b)]));
  const done = () => tool.binaries.every((b) => existsSync(join(tool.dir, b)));
  if (done()) return kept();
  mkdirSync(tool.dir, { recursive: true });
  const release = await lock(join(tool.dir, '.lock'));
  try {
    if (done()) return kept();
    const go = goBinary(env);
    let goFailure = '';
    if (go) {
      try {
        await goBuild(go, tool, log);
        return kept();
      } catch (err) {
        goFailure = (err as Error).message;
        log(`${goFailure}\nDownloading ${tool.label} instead.`);
      }
    }
    try {
      await downloadRelease(tool.release, tool.dir, { label: tool.label, log, env });
      return kept();
    } catch (err) {
      const why = (err as Error).message;
      const url = releaseUrl(tool.release, '', env);
      throw new Error(
        `${tool.label} was not found, ${go ? `the Go build failed (${goFailure.split('\n')[0]})` : 'Go is not installed to build it'}, ` +
          `and the download from ${url} failed: ${why}\n${tool.otherwise}`,
      );
    }
  } finally {
    release();
  }
}

/** Builds the tool's packages with `go install`, showing progress; the binaries appear in `tool.dir` atomically. */
async function goBuild(go: string, tool: PinnedTool, log: Log): Promise<void> {
  const staging = join(tool.dir, `.staging-${process.pid}`);
  log(`Building ${tool.label} with Go into ${tool.dir} (once per machine; minutes)...`);
  const started = Date.now();
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(go, ['install', '-v', ...tool.go.packages], {
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
      child.on('error', (err) => (clearInterval(tick), reject(new Error(`go install could not run (${go}): ${err.message}`))));
      child.on('exit', (code) => {
        clearInterval(tick);
        if (code === 0) resolve();
        else reject(new Error(`go install failed (exit ${code}):\n${tail}`));
      });
    });
    for (const [built, name] of Object.entries(tool.go.built)) renameSync(join(staging, built), join(tool.dir, name));
    log(`${tool.label} ready after ${Math.round((Date.now() - started) / 1000)}s: ${tool.dir}`);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
