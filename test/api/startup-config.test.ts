/**
 * An agents file whose roles are wrong stops the API and the worker at start with one line on
 * stderr naming the file, the role and the field, and exit code 1: no stack trace, no connection.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const entry = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

/** An agents file with an llm agent and a role played by an agent that does not exist. */
function badRolesFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bad-roles-'));
  const file = join(dir, 'agents.json');
  writeFileSync(
    file,
    JSON.stringify({
      agents: [{ kind: 'llm', id: 'player', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }],
      roles: [{ id: 'review', persona: 'p', agent: 'nobody', outputKinds: { code_review: ['review'] } }],
    }),
  );
  return file;
}

/** Runs an entry point with the agents file; its exit code and what it wrote. */
function run(path: string, agentsFile: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', entry(path)], {
    env: {
      ...process.env,
      DELEGATE_AGENTS_FILE: agentsFile,
      // nothing listens there: the process must stop before it connects
      TEMPORAL_ADDRESS: '127.0.0.1:9',
      DELEGATE_RECORD_FILE: join(agentsFile, '..', 'record.db'),
      DELEGATE_WORKER_METRICS_PORT: '0',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe('an error in the roles of the agents file at start', () => {
  it.each([
    ['api', 'api/server.ts'],
    ['worker', 'workers/main.ts'],
  ])('%s: one line naming the file, the role and the field; exit code 1', async (proc, path) => {
    const file = badRolesFile();
    const { code, stdout, stderr } = await run(path, file);
    expect(code, stderr).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(`${proc}: invalid roles in agents file ${file}: role "review": agent: unknown agent "nobody"\n`);
  });
});
