/**
 * Finds the Temporal CLI, or builds the pinned version once into a tools folder outside
 * the clone (keyed by version) so every clone and CI run on the machine reuses it.
 * Run directly (`npm run temporal:install`) to install and print its path.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, openSync, closeSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

/** The pinned CLI version (newer tags cannot be `go install`ed: replace directives). */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';

/** Where the pinned CLI lives once built. */
export function toolsDir(): string {
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'delegate', 'tools', `temporal-${TEMPORAL_CLI_VERSION}`);
}

function onPath(name: string): string | undefined {
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
      // a lock older than 20 minutes is from a build that died
      try {
        if (Date.now() - statSync(path).mtimeMs > 20 * 60_000) rmSync(path, { force: true });
      } catch {
        /* gone already */
      }
      await sleep(1000);
    }
  }
}

/** Builds the pinned CLI with `go install`, showing progress; returns the binary's path. */
async function build(dir: string, log: (line: string) => void): Promise<string> {
  const go = onPath('go') ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
  if (!go) {
    throw new Error(
      'The Temporal CLI was not found and Go is not installed to build it.\n' +
        '  Install one of:\n' +
        '   - the Temporal CLI: https://docs.temporal.io/cli (e.g. `brew install temporal`), on PATH; or\n' +
        '   - Go >= 1.23 (https://go.dev/dl), then run `npm run temporal:install`;\n' +
        '  or point TEMPORAL_ADDRESS at a running Temporal server.',
    );
  }
  mkdirSync(dir, { recursive: true });
  const release = await lock(join(dir, '.lock'));
  try {
    const bin = join(dir, 'temporal');
    if (existsSync(bin)) return bin;
    const staging = join(dir, `.staging-${process.pid}`);
    log(`Building the Temporal CLI ${TEMPORAL_CLI_VERSION} with Go into ${dir} (once per machine; a few minutes)...`);
    const started = Date.now();
    await new Promise<void>((resolve, reject) => {
      const child = spawn(go, ['install', '-v', `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`], {
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
    renameSync(join(staging, 'temporal'), bin);
    rmSync(staging, { recursive: true, force: true });
    log(`Temporal CLI ready after ${Math.round((Date.now() - started) / 1000)}s: ${bin}`);
    return bin;
  } finally {
    release();
  }
}

/** The Temporal CLI to use: $TEMPORAL_CLI, `temporal` on PATH, the cached build, or a fresh build. */
export async function ensureTemporalCli(log: (line: string) => void = (l) => console.error(l)): Promise<string> {
  const explicit = process.env.TEMPORAL_CLI;
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`TEMPORAL_CLI points at ${explicit}, which does not exist`);
    return explicit;
  }
  const found = onPath('temporal');
  if (found) return found;
  const cached = join(toolsDir(), 'temporal');
  if (existsSync(cached)) return cached;
  return build(toolsDir(), log);
}

/** The CLI's version line, e.g. to print at start. */
export function cliVersion(bin: string): string {
  return spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const bin = await ensureTemporalCli();
  console.log(`${bin} (${cliVersion(bin)})`);
}
