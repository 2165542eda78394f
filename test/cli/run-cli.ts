/**
 * The `delegate` CLI as a subprocess against one API, and JSON input files for it (shared by the CLI tests).
 * A call runs cli/main.ts compiled once per test file (../compiled-entry.ts); `{ launcher: true }`
 * runs the launcher a user's `delegate` is (`cli/bin.js`, under tsx), as the docs' examples do.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compiledEntry } from '../compiled-entry';
import { uniqueId } from '../helpers';
import { TEST_TENANTS } from '../tenants';

/** What one `delegate …` run gave. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** How to run one call. */
export interface CliOptions {
  /** Run `cli/bin.js` (the launcher a user's `delegate` is) instead of the compiled CLI. @default false */
  launcher?: boolean;
}

/** A runner of `delegate …` against the API at `url` (tenant default's key), with a temporary directory for its input files. */
export function cliRunner(url: string) {
  const dir = mkdtempSync(join(tmpdir(), 'delegate-cli-'));
  return {
    dir,
    /** Runs `delegate …`; never rejects: the exit code is part of the answer. */
    async delegate(args: string[], env: Record<string, string> = {}, { launcher = false }: CliOptions = {}): Promise<CliRun> {
      const entry = launcher ? 'cli/bin.js' : await compiledEntry('cli/main.ts');
      return new Promise((resolve) => {
        execFile(
          process.execPath,
          [entry, ...args],
          { env: { ...process.env, DELEGATE_URL: url, DELEGATE_KEY: TEST_TENANTS.default.key, ...env }, timeout: 150_000 },
          (err, stdout, stderr) => {
            resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
          },
        );
      });
    },
    /** Runs `delegate …` with its stdout a pipe whose reader has already gone (`delegate … | head -1` once head exits). */
    async delegateToClosedPipe(args: string[]): Promise<Omit<CliRun, 'stdout'>> {
      const child = spawn(process.execPath, [await compiledEntry('cli/main.ts'), ...args], {
        env: { ...process.env, DELEGATE_URL: url, DELEGATE_KEY: TEST_TENANTS.default.key },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c));
      const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
      return { code, stderr };
    },
    /** Writes a JSON file; its path. */
    jsonFile(value: unknown): string {
      const path = join(dir, `${uniqueId('in')}.json`);
      writeFileSync(path, JSON.stringify(value));
      return path;
    },
  };
}
