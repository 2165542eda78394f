/**
 * Every ```sh runnable (and ```ts runnable) block of README.md and docs/ runs, and succeeds, against a real stack:
 * the run's dev server and worker, and an API listening on a free loopback port. Each block
 * runs with `bash -euo pipefail`, one after the other per page (a block may use what an
 * earlier one of its page made), in a scratch folder inside this checkout (a reader's terminal is
 * in their clone), with `DELEGATE_URL`, `DELEGATE_KEY` and `AUTH` set as the docs tell a reader to
 * set them, and nothing else a fresh terminal lacks: no `delegate` on PATH, no node_modules/.bin,
 * no npm_* variables of the npm that started the tests (`npx delegate` must find this clone's bin
 * as it does for a reader); a TypeScript block runs with tsx. A renamed field breaks a `jq -e` or a `curl --fail-with-body` here, not a reader.
 * Pages run side by side, a few at once (PAGES_AT_ONCE): a page uses only what it made, and
 * its jobs have ids of its own.
 */
import { execFile } from 'node:child_process';
import pLimit from 'p-limit';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { delimiter, join, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningApp } from '../helpers';
import { TEST_TENANTS } from '../tenants';
import { allBlocks, ROOT, where, type CodeBlock } from './blocks';

const runnable = allBlocks().filter((b) => b.flags.includes('runnable'));
const byFile = new Map<string, CodeBlock[]>();
for (const b of runnable) byFile.set(b.file, [...(byFile.get(b.file) ?? []), b]);

/** One block's run: exit code and output. */
interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Pages whose blocks run at once: the blocks mostly wait on jobs, and each starts bash, curl, jq or node. */
const PAGES_AT_ONCE = 3;
/** Runs a block once fewer than PAGES_AT_ONCE blocks run (a page runs one block at a time). */
const inTurn = pLimit(PAGES_AT_ONCE);

/** Where a runnable TypeScript block is written: inside the repository, so `delegate/client` resolves as for a user. */
const TS_RUN_DIR = join(ROOT, 'test-results', 'docs-run');

/** The command that runs a block: bash for shell, tsx for TypeScript. */
function commandOf(b: CodeBlock): [string, string[]] {
  if (b.lang === 'ts') {
    mkdirSync(TS_RUN_DIR, { recursive: true });
    const file = join(TS_RUN_DIR, `${b.file.replace(/[/.]/g, '_')}_L${b.line}.ts`);
    writeFileSync(file, `${b.code}\nexport {};\n`);
    return [process.execPath, ['--import', 'tsx', file]];
  }
  return ['bash', ['-euo', 'pipefail', '-c', b.code]];
}

/** Runs a block in `cwd` with `env`; gives up (and says so) after `timeoutMs`. */
function runBlock(b: CodeBlock, cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<Run> {
  const [cmd, args] = commandOf(b);
  return new Promise((resolve) => {
    // TypeScript runs from the repository, where tsx and delegate/client resolve
    execFile(cmd, args, { cwd: b.lang === 'ts' ? ROOT : cwd, env, timeout: timeoutMs, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      const e = err as (NodeJS.ErrnoException & { code?: number | string; killed?: boolean }) | null;
      const code = e ? (typeof e.code === 'number' ? e.code : 1) : 0;
      resolve({ code, stdout, stderr: e?.killed ? `${stderr}\n(killed after ${timeoutMs} ms)` : stderr });
    });
  });
}

/** The environment of a fresh terminal: this one's, less what npm and vitest put there for the test run itself. */
function freshTerminalEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const path = (env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => !dir.endsWith(`${sep}node_modules${sep}.bin`))
    .join(delimiter);
  return { ...Object.fromEntries(Object.entries(env).filter(([k]) => !/^npm_/i.test(k))), PATH: path };
}

let app: FastifyInstance;
let env: NodeJS.ProcessEnv;
// inside the checkout, where a reader runs the examples (test-results/ is not committed)
mkdirSync(join(ROOT, 'test-results'), { recursive: true });
const scratch = mkdtempSync(join(ROOT, 'test-results', 'docs-pages-'));

beforeAll(async () => {
  // a tenant of their own: the examples use fixed job ids and count what they made
  const listening = await listeningApp({ DELEGATE_WEBHOOK_SECRET: 'docs-test-webhook-master-secret' }, 'docs');
  app = listening.app;
  const key = TEST_TENANTS.docs.key;
  env = {
    ...freshTerminalEnv(process.env),
    DELEGATE_URL: listening.url,
    DELEGATE_KEY: key,
    AUTH: `authorization: Bearer ${key}`,
    NO_COLOR: '1',
  };
});
afterAll(async () => {
  await app?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('the runnable examples of the docs', () => {
  it('are there, on the pages that show the main features', () => {
    expect(runnable.length).toBeGreaterThanOrEqual(15);
    const text = runnable.map((b) => b.code).join('\n');
    // submit, status, result, stop, top-ups, events, the CLI
    for (const feature of [
      '/v1/jobs"',
      '/result?waitSeconds',
      '/stop',
      '/budget',
      '/events',
      'delegate submit',
      'delegate status',
      'delegate result',
    ]) {
      expect(text, feature).toContain(feature);
    }
  });

  it('run the CLI as a reader of a fresh clone can, `npx delegate`, not a `delegate` that only `npm link` puts on PATH', () => {
    const bare = runnable.filter((b) => b.lang === 'sh' && /(^|[\s|;&(])delegate\s/m.test(b.code.replaceAll('npx delegate', '')));
    expect(bare.map(where)).toEqual([]);
  });

  for (const [file, blocks] of byFile) {
    // the pages side by side (a concurrent suite runs beside its concurrent siblings), a page's blocks in order
    describe.concurrent(file, () => {
      const cwd = join(scratch, file.replace(/[/.]/g, '_'));
      beforeAll(() => mkdirSync(cwd, { recursive: true }));
      for (const b of blocks) {
        it.sequential(
          `runs the block at ${where(b)}`,
          async () => {
            const run = await inTurn(() => runBlock(b, cwd, env));
            const report = `${where(b)} exited ${run.code}\n--- block\n${b.code}--- stdout\n${run.stdout.slice(-4000)}\n--- stderr\n${run.stderr.slice(-4000)}`;
            expect(run.code, report).toBe(0);
          },
          150_000,
        );
      }
    });
  }
});
