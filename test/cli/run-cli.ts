/** The `delegate` CLI as a subprocess against one API, and JSON input files for it (shared by the CLI tests). */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uniqueId } from '../helpers';
import { TEST_TENANTS } from '../tenants';

/** What one `delegate …` run gave. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A runner of `delegate …` against the API at `url` (tenant default's key), with a temporary directory for its input files. */
export function cliRunner(url: string) {
  const dir = mkdtempSync(join(tmpdir(), 'delegate-cli-'));
  return {
    dir,
    /** Runs `delegate …`; never rejects: the exit code is part of the answer. */
    delegate(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
      return new Promise((resolve) => {
        execFile(
          process.execPath,
          ['cli/bin.js', ...args],
          { env: { ...process.env, DELEGATE_URL: url, DELEGATE_KEY: TEST_TENANTS.default.key, ...env }, timeout: 150_000 },
          (err, stdout, stderr) => {
            resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
          },
        );
      });
    },
    /** Writes a JSON file; its path. */
    jsonFile(value: unknown): string {
      const path = join(dir, `${uniqueId('in')}.json`);
      writeFileSync(path, JSON.stringify(value));
      return path;
    },
  };
}
