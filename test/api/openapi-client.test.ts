/**
 * A generated client typechecks: the API's own /openapi.json goes through openapi-typescript
 * (a widely used generator) into `paths` types, and a usage file is compiled against them
 * with the project's TypeScript. The usage file assigns every operation's examples to the
 * generated request and response types (so examples and schemas must agree) and uses the
 * submit body and the JobResult as a typed client would, with `@ts-expect-error` lines that
 * only hold while the types are precise (a document whose types collapse to `unknown` or
 * `any` fails).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { useApp } from '../helpers';

const app = useApp();
const dir = mkdtempSync(join(tmpdir(), 'delegate-openapi-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Media = { example?: unknown };
type Operation = {
  operationId?: string;
  requestBody?: { content?: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
};
type Doc = { paths: Record<string, Record<string, Operation>> };

/** The project's tsc on `files` of the temp dir (strict, no ambient types); its output when it fails. */
async function typecheck(name: string, files: string[]): Promise<{ ok: boolean; output: string }> {
  const config = join(dir, `tsconfig.${name}.json`);
  const compilerOptions = {
    strict: true,
    noEmit: true,
    target: 'ES2022',
    lib: ['ES2022'],
    module: 'ESNext',
    moduleResolution: 'Bundler',
    types: [],
  };
  writeFileSync(config, JSON.stringify({ compilerOptions, files }));
  try {
    await promisify(execFile)(process.execPath, ['node_modules/typescript/bin/tsc', '-p', config]);
    return { ok: true, output: '' };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

/** One typed assignment per example of the document: `const x: <generated type> = <example>`. */
function exampleAssignments(doc: Doc): string[] {
  const lines: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const at = `paths[${JSON.stringify(path)}][${JSON.stringify(method)}]`;
      const name = op.operationId!;
      const body = op.requestBody?.content?.['application/json'];
      if (body?.example !== undefined) {
        lines.push(
          `export const ${name}Request: NonNullable<${at}['requestBody']>['content']['application/json'] = ${JSON.stringify(body.example)};`,
        );
      }
      for (const [status, res] of Object.entries(op.responses)) {
        for (const [type, media] of Object.entries(res.content ?? {})) {
          if (media.example === undefined) continue;
          lines.push(
            `export const ${name}${status}: ${at}['responses'][${status}]['content'][${JSON.stringify(type)}] = ${JSON.stringify(media.example)};`,
          );
        }
      }
    }
  }
  return lines;
}

/** A hand-written client's use of the generated types. */
const USAGE = `
import type { paths } from './schema';
type SubmitBody = NonNullable<paths['/v1/jobs']['post']['requestBody']>['content']['application/json'];
type JobResult = paths['/v1/jobs/{jobId}/result']['get']['responses'][200]['content']['application/json'];

export const spec: SubmitBody = { pattern: 'vote', tasks: [{ id: 'a', question: 'Yes or no?', agent: { capability: 'judge' } }], vote: { strategy: 'majority' }, budget: { costUsd: 1 } };
// @ts-expect-error the pattern is a closed set
export const badPattern: SubmitBody = { pattern: 'relay', tasks: [] };
// @ts-expect-error tasks are required
export const noTasks: SubmitBody = { pattern: 'fanout' };

export function summarize(r: JobResult): string {
  const status: 'success' | 'partial' | 'failure' | 'cancelled' = r.status;
  const cost: number = r.metrics.costUsd;
  // @ts-expect-error a task's status is not a number
  const wrong: number = r.results[0].status;
  return [status, cost, wrong, ...r.results.map((t) => \`\${t.id}:\${t.status}:\${t.confidence}\`)].join(' ');
}
`;

describe('OpenAPI document', () => {
  it('gives every operation an operationId and examples for its JSON body and answers', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as Doc;
    const missing: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${path}`;
        if (!op.operationId) missing.push(`${where}: operationId`);
        const body = op.requestBody?.content?.['application/json'];
        if (body && body.example === undefined) missing.push(`${where}: request example`);
        for (const [status, res] of Object.entries(op.responses)) {
          const media = res.content?.['application/json'];
          if (media && media.example === undefined) missing.push(`${where} ${status}: example`);
        }
      }
    }
    expect(missing).toEqual([]);
    expect(Object.keys(doc.paths)).toContain('/v1/jobs');
  });

  it('generates a TypeScript client with openapi-typescript that typechecks against the examples and a typed usage', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as Doc;
    const types = astToString(await openapiTS(doc as never));
    writeFileSync(join(dir, 'schema.ts'), types);
    const assignments = exampleAssignments(doc);
    expect(assignments.length).toBeGreaterThan(20);
    writeFileSync(join(dir, 'examples.ts'), `import type { paths } from './schema';\n${assignments.join('\n')}\n`);
    writeFileSync(join(dir, 'usage.ts'), USAGE);
    const good = await typecheck('good', ['schema.ts', 'examples.ts', 'usage.ts']);
    expect(good.output).toBe('');
    expect(good.ok).toBe(true);

    // the check can fail: a body that breaks the generated types is refused
    writeFileSync(
      join(dir, 'broken.ts'),
      `import type { paths } from './schema';\nexport const b: NonNullable<paths['/v1/jobs']['post']['requestBody']>['content']['application/json'] = { pattern: 'fanout', tasks: [{ id: 1 }] };\n`,
    );
    const bad = await typecheck('broken', ['schema.ts', 'broken.ts']);
    expect(bad.ok).toBe(false);
    expect(bad.output).toMatch(/broken\.ts/);
  });
});
