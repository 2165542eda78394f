/**
 * `@delegate/client` as another repository gets it: built, packed with `npm pack`, installed
 * from the tarball into an empty project (`npm install --offline`, with its one dependency,
 * eventsource-parser, packed from this repository's node_modules: there is no registry), then
 *   - a plain JavaScript program (`node run.mjs`, no TypeScript loader anywhere) submits a job
 *     to the test stack, follows its live events and reads its result;
 *   - a TypeScript consumer typechecks against the packed .d.ts (`tsc --noEmit`, NodeNext
 *     resolution, no ambient types), with `@ts-expect-error` lines that only hold while the
 *     types are precise, and a broken consumer fails.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClient } from '../../packages/client/scripts/build';
import { listeningApp, uniqueId } from '../helpers';
import { TEST_TENANTS } from '../tenants';

const exec = promisify(execFile);
const ROOT = process.cwd();
const PKG = join(ROOT, 'packages/client');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const dir = mkdtempSync(join(tmpdir(), 'delegate-client-pkg-'));
const consumer = join(dir, 'consumer');
let app: FastifyInstance;
let url: string;

beforeAll(async () => {
  ({ app, url } = await listeningApp({}, null));
  await buildClient();
  const { stdout } = await exec('npm', ['pack', '--json', '--pack-destination', dir], { cwd: PKG });
  const [{ filename }] = JSON.parse(stdout) as { filename: string }[];
  // the dependency packed from this repository's node_modules (the version the package pins):
  // npm answers ENOTCACHED for eventsource-parser's packument offline, although `npm cache ls` lists it
  const dep = await exec('npm', ['pack', '--json', '--pack-destination', dir, join(ROOT, 'node_modules/eventsource-parser')], { cwd: dir });
  const [{ filename: depFile }] = JSON.parse(dep.stdout) as { filename: string }[];
  await exec('mkdir', [consumer]);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await exec('npm', ['install', '--offline', '--no-audit', '--no-fund', join(dir, filename), join(dir, depFile)], { cwd: consumer });
}, 180_000);
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A program of the consumer project run by plain node; its stdout, or the failure with its output. */
async function runNode(file: string, code: string, env: Record<string, string>): Promise<string> {
  writeFileSync(join(consumer, file), code);
  const { stdout } = await exec(process.execPath, [file], { cwd: consumer, env: { PATH: process.env.PATH, ...env }, timeout: 120_000 });
  return stdout;
}

/** tsc on one consumer file with a consumer's options; its output ('' when it compiles). */
async function typecheck(file: string, code: string): Promise<string> {
  writeFileSync(join(consumer, file), code);
  const compilerOptions = {
    strict: true,
    noEmit: true,
    target: 'ES2022',
    lib: ['ES2022', 'DOM'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: [],
  };
  const config = join(consumer, `tsconfig.${file}.json`);
  writeFileSync(config, JSON.stringify({ compilerOptions, files: [file] }));
  try {
    await exec(process.execPath, [TSC, '-p', config], { cwd: consumer });
    return '';
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return `${e.stdout ?? ''}${e.stderr ?? ''}`;
  }
}

const RUN = `
import { createDelegateClient, DelegateProblemError } from '@delegate/client';
const delegate = createDelegateClient({ baseUrl: process.env.DELEGATE_URL, apiKey: process.env.DELEGATE_KEY });
const jobId = process.env.JOB_ID;
const accepted = await delegate.submit({
  jobId,
  pattern: 'fanout',
  tasks: [
    { id: 'a', question: 'What is A?', agent: 'echo' },
    { id: 'b', question: 'What is B?', agent: 'sim', params: { answer: { b: 2 }, costUsd: 0.01, steps: 2 } },
  ],
});
const events = [];
for await (const e of delegate.events(jobId)) events.push(e.type);
const result = await delegate.waitForResult(jobId, { timeoutSeconds: 120 });
let refused;
try {
  await delegate.submit({ pattern: 'fanout', tasks: [] });
} catch (err) {
  refused = err instanceof DelegateProblemError ? { status: err.status, paths: err.errors.map((f) => f.path) } : String(err);
}
console.log(JSON.stringify({ accepted: accepted.status, events, status: result.status, output: result.output, refused }));
`;

const TYPED = `
import { createDelegateClient, type JobEvent, type JobEventOf, type JobResult, type JobSpecInput, type TaskResult } from '@delegate/client';
const delegate = createDelegateClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: 'k' });
export const spec: JobSpecInput = { pattern: 'vote', tasks: [{ id: 'a', question: 'Yes or no?', agent: { capability: 'judge' } }], vote: { strategy: 'majority' } };
// @ts-expect-error the pattern is a closed set
export const badPattern: JobSpecInput = { pattern: 'relay', tasks: [] };
// @ts-expect-error tasks are required
export const noTasks: JobSpecInput = { pattern: 'fanout' };
export async function summarize(jobId: string): Promise<string> {
  const r: JobResult = await delegate.waitForResult(jobId);
  const status: 'success' | 'partial' | 'failure' | 'cancelled' = r.status;
  // @ts-expect-error a task's confidence is a number
  const wrong: string = r.results[0].confidence;
  const first: TaskResult = r.results[0];
  const types: JobEvent['type'][] = [];
  let spent = 0;
  for await (const e of delegate.events(jobId)) {
    types.push(e.type);
    // each event's data is typed by its type
    if (e.type === 'subtask.finished') spent += e.data.metrics.costUsd;
    // @ts-expect-error job.started carries no metrics
    if (e.type === 'job.started') spent += e.data.metrics.costUsd;
  }
  const done: JobEventOf<'job.finished'>['data']['status'] = r.status;
  return [status, wrong, first.summary, r.metrics.costUsd, types.length, spent, done].join(' ');
}
`;

describe('@delegate/client, packed and installed', () => {
  it('installs with one dependency and no zod, Temporal or TypeScript source', () => {
    const modules = join(consumer, 'node_modules');
    expect(
      readdirSync(modules)
        .filter((f) => !f.startsWith('.'))
        .sort(),
    ).toEqual(['@delegate', 'eventsource-parser']);
    expect(readdirSync(join(modules, '@delegate'))).toEqual(['client']);
    const manifest = JSON.parse(readFileSync(join(modules, '@delegate/client/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const parser = JSON.parse(readFileSync(join(modules, 'eventsource-parser/package.json'), 'utf8')) as { version: string };
    expect(manifest.dependencies).toEqual({ 'eventsource-parser': parser.version });
    const files = readdirSync(join(modules, '@delegate/client/dist'));
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    const js = files.filter((f) => f.endsWith('.js')).map((f) => readFileSync(join(modules, '@delegate/client/dist', f), 'utf8'));
    expect(js.join('\n')).not.toMatch(/from ['"](zod|@temporalio\/|\.\.\/)/);
    expect(existsSync(join(modules, '@delegate/client/dist/index.d.ts'))).toBe(true);
  });

  it('runs a job from plain JavaScript against the stack', async () => {
    const jobId = uniqueId('pkg');
    const out = await runNode('run.mjs', RUN, { DELEGATE_URL: url, DELEGATE_KEY: TEST_TENANTS.default.key, JOB_ID: jobId });
    const seen = JSON.parse(out) as { accepted: string; events: string[]; status: string; output: unknown; refused: unknown };
    expect(seen).toMatchObject({ accepted: 'running', status: 'success', output: { a: 'What is A?', b: { b: 2 } } });
    expect(seen.events[0]).toBe('job.started');
    expect(seen.events.at(-1)).toBe('job.finished');
    expect(seen.events.filter((t) => t === 'subtask.finished')).toHaveLength(2);
    expect(seen.refused).toEqual({ status: 400, paths: ['body.tasks'] });
  });

  it('typechecks a TypeScript consumer against the packed types, and refuses a broken one', async () => {
    expect(await typecheck('typed.ts', TYPED)).toBe('');
    const broken = `import type { JobSpecInput } from '@delegate/client';\nexport const s: JobSpecInput = { pattern: 'fanout', tasks: [{ id: 1 }] };\n`;
    expect(await typecheck('broken.ts', broken)).toMatch(/broken\.ts\(2,.*error TS2322/);
  });
});
