import { describe, expect, inject, it } from 'vitest';
import { loadRegistry } from '../../activities';
import { checkOutputSchemas, checkRunnable } from '../../api/spec-check';
import { JobSpecSchema, type JobSpec } from '../../schemas';
import { jobsStartedWithId, uniqueId, useApp } from '../helpers';

const app = useApp();

const task = (id: string, outputSchema: Record<string, unknown>) => ({ id, question: 'q', agent: 'sim', outputSchema });

describe('outputSchema at submission', () => {
  it('checkOutputSchemas names every task whose outputSchema does not compile, at every level of nesting', async () => {
    const spec: JobSpec = JobSpecSchema.parse({
      pattern: 'fanout',
      tasks: [
        task('ok', { type: 'string', pattern: '^[a-z]+(-[a-z]+)*$' }),
        task('type', { type: 'nope' }),
        { id: 'nest', question: 'q', job: { pattern: 'pipeline', tasks: [task('backref', { type: 'string', pattern: '(a)\\1' })] } },
        // the classic ReDoS: linear under RE2 in the worker, but refused at submission
        task('redos', { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } }),
      ],
    });
    expect(checkRunnable(spec, loadRegistry(inject('agentsFile')), 3)).toEqual([]);
    const errors = await checkOutputSchemas(spec);
    expect(errors.map((e) => e.path)).toEqual(['tasks[1].outputSchema', 'tasks[2].job.tasks[0].outputSchema', 'tasks[3].outputSchema']);
    expect(errors[0].message).toMatch(/^not a valid JSON Schema: outputSchema\/type/);
    expect(errors[1].message).toMatch(/^pattern: pattern "\(a\)\\\\1" is not RE2 syntax/);
    expect(errors[2].message).toMatch(/^properties\.s\.pattern: pattern "\^\(a\+\)\+\$" repeats a repeated group/);
  });

  it('checkOutputSchemas refuses more than 1 MiB or 32 distinct schemas in one request, and compiles a repeated one once', async () => {
    const big = (n: number) => task(`t${n}`, { type: 'string', description: `${n}`.padEnd(60_000, 'x') });
    const spec: JobSpec = JobSpecSchema.parse({ pattern: 'fanout', tasks: Array.from({ length: 20 }, (_, n) => big(n)) });
    const errors = await checkOutputSchemas(spec);
    expect(errors.map((e) => e.path)).toEqual(['tasks[17].outputSchema', 'tasks[18].outputSchema', 'tasks[19].outputSchema']);
    expect(errors[0].message).toMatch(/distinct outputSchemas in one request pass 1048576 bytes/);
    const same: JobSpec = JobSpecSchema.parse({
      pattern: 'fanout',
      tasks: Array.from({ length: 20 }, (_, n) => ({ ...big(0), id: `t${n}` })),
    });
    expect(await checkOutputSchemas(same)).toEqual([]);
    const many: JobSpec = JobSpecSchema.parse({
      pattern: 'fanout',
      tasks: Array.from({ length: 34 }, (_, n) => task(`t${n}`, { type: 'string', maxLength: n + 1 })),
    });
    expect((await checkOutputSchemas(many)).map((e) => [e.path, e.message])).toEqual([
      ['tasks[32].outputSchema', 'more than 32 distinct outputSchemas in one request; reuse one schema across tasks'],
      ['tasks[33].outputSchema', 'more than 32 distinct outputSchemas in one request; reuse one schema across tasks'],
    ]);
  });

  it('POST /v1/jobs answers 422 for a schema that does not compile; nothing starts', async () => {
    const jobId = uniqueId('badschema');
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        jobId,
        pattern: 'fanout',
        tasks: [task('a', { type: 'string' }), task('b', { type: 'object', patternProperties: { '(?=x)': { type: 'number' } } })],
      },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([
      { path: 'body.tasks[1].outputSchema', message: expect.stringMatching(/^patternProperties\.\(\?=x\): .*not RE2 syntax/) },
    ]);
    expect(await jobsStartedWithId(jobId)).toBe(0);
  });

  it('POST /v1/jobs refuses the polynomial patterns of audit #8 (422 at each task), keeps everyday ones; nothing starts', async () => {
    // each ran for minutes in V8 on a few hundred characters (the first 407 s on 200); RE2 in the
    // worker is linear, but clients validate with the same schema
    const polynomial = ['a*a*a*a*a*a*a*a*b', '(a+)(a+)(a+)(a+)(a+)(a+)b', '.*.*.*.*.*.*=', '\\s*\\s*\\s*\\s*\\s*\\s*x'];
    const everyday = {
      type: 'object',
      properties: {
        email: { type: 'string', pattern: '^[a-z]+@[a-z]+\\.[a-z]{2,}$' },
        date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
        name: { type: 'string', pattern: '^[A-Z][a-z]*( [A-Z][a-z]*)*$' },
        url: { type: 'string', pattern: '^https?://[a-z0-9.-]+(:\\d+)?(/[^\\s]*)?$' },
        version: { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+(-[0-9A-Za-z.-]+)?(\\+[0-9A-Za-z.-]+)?$' },
        // linear in V8 (0.4 ms on 48,000 characters): not refused
        code: { type: 'string', pattern: '(ab|a)(bc|c)*d' },
      },
    };
    const jobId = uniqueId('polyschema');
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        jobId,
        pattern: 'fanout',
        tasks: [...polynomial.map((p, n) => task(`p${n}`, { type: 'string', pattern: p })), task('fine', everyday)],
      },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual(
      polynomial.map((_, n) => ({
        path: `body.tasks[${n}].outputSchema`,
        message: expect.stringMatching(/^pattern: pattern .* about n\^\d+ ways \(polynomial backtracking\)/),
      })),
    );
    expect(await jobsStartedWithId(jobId)).toBe(0);
  });

  it('POST /v1/jobs answers 400 for $id and remote $ref, naming the path inside the schema; nothing starts', async () => {
    const jobId = uniqueId('idschema');
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        jobId,
        pattern: 'fanout',
        tasks: [
          task('a', { $id: 'https://tenant-a.example/answer', type: 'string' }),
          task('b', { type: 'object', properties: { x: { $ref: 'https://evil.example/x.json' } } }),
        ],
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { path: 'body.tasks[0].outputSchema.$id', message: expect.stringMatching(/"\$id" is not allowed/) },
      { path: 'body.tasks[1].outputSchema.properties.x.$ref', message: expect.stringMatching(/"\$ref" must be local/) },
    ]);
    expect(await jobsStartedWithId(jobId)).toBe(0);
  });
});
