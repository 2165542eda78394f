import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { compileOutputSchema, createOutputSchemaCompiler, type CompiledOutputSchema } from '../../activities/output-schema';

/** A distinct schema of about 16 KB: 40 properties with bounds and an enum, 16 of them with a pattern (the most one schema may hold). */
function distinctSchema(n: number): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < 40; i++) {
    properties[`field_${n}_${i}`] = {
      type: 'string',
      minLength: 1,
      maxLength: 100 + i,
      ...(i < 16 ? { pattern: `^[a-z]{1,${(n % 50) + 1}}[0-9]*$` } : {}),
      enum: Array.from({ length: 8 }, (_, k) => `v${n}0${i}0${k}`),
      description: `field ${i} of schema ${n} `.repeat(10),
    };
  }
  return { type: 'object', properties, required: [`field_${n}_0`], additionalProperties: false };
}

/** The validator of a schema that must compile. */
function validator(c: CompiledOutputSchema) {
  if (!c.ok) throw new Error(`expected the schema to compile: ${c.error}`);
  return c.validate;
}
/** The error of a schema that must not compile. */
function compileError(c: CompiledOutputSchema): string {
  if (c.ok) throw new Error('expected the schema not to compile');
  return c.error;
}

describe('compiling outputSchema in the worker', () => {
  it('matches patterns in linear time: ^(a+)+$ against 40 a and a b answers at once', () => {
    const validate = validator(compileOutputSchema({ type: 'string', pattern: '^(a+)+$' }));
    const started = Date.now();
    // a backtracking engine needs about 2^40 steps here (hours); RE2 needs a few microseconds
    expect(validate(`${'a'.repeat(40)}b`)).toMatch(/must match pattern/);
    expect(validate('a'.repeat(40))).toBeNull();
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('applies patternProperties with RE2 too', () => {
    const validate = validator(compileOutputSchema({ type: 'object', patternProperties: { '^(x+)+$': { type: 'number' } } }));
    expect(validate({ xxx: 1 })).toBeNull();
    expect(validate({ xxx: 'one' })).toMatch(/must be number/);
    expect(validate({ [`${'x'.repeat(40)}y`]: 'not checked' })).toBeNull();
  });

  it('refuses patterns RE2 cannot compile, naming where they are, even where Ajv would never run them', () => {
    expect(compileError(compileOutputSchema({ type: 'string', pattern: '(a)\\1' }))).toMatch(
      /^pattern: pattern "\(a\)\\\\1" is not RE2 syntax/,
    );
    expect(compileError(compileOutputSchema({ type: 'object', properties: { p: { type: 'string', pattern: '^(?!admin)' } } }))).toMatch(
      /^properties\.p\.pattern: .*no backreferences or lookaround/,
    );
    expect(compileError(compileOutputSchema({ type: 'object', patternProperties: { '(?<=a)b': {} } }))).toMatch(
      /^patternProperties\.\(\?<=a\)b: /,
    );
  });

  it('refuses schemas that are not JSON Schema, or whose references do not resolve', () => {
    expect(compileError(compileOutputSchema({ type: 'nope' }))).toMatch(
      /^not a valid JSON Schema: outputSchema\/type must be equal to one of the allowed values/,
    );
    expect(compileError(compileOutputSchema({ minLength: 'three' }))).toMatch(/outputSchema\/minLength must be integer/);
    expect(compileError(compileOutputSchema({ $ref: '#/definitions/missing' }))).toMatch(/can't resolve reference #\/definitions\/missing/);
    expect(compileError(compileOutputSchema({ $schema: 'https://evil.example/meta', type: 'string' }))).toMatch(
      /no schema with key or ref/,
    );
  });

  it('applies the structural rules again, for a task that reached the worker without them', () => {
    expect(compileError(compileOutputSchema({ $id: 'https://tenant-a/s', type: 'string' }))).toMatch(/^\$id: "\$id" is not allowed/);
    expect(compileError(compileOutputSchema({ items: { $ref: 'https://evil.example/s.json' } }))).toMatch(
      /^items\.\$ref: "\$ref" must be local/,
    );
  });

  it('resolves local and recursive references', () => {
    const validate = validator(
      compileOutputSchema({
        type: 'object',
        definitions: { n: { type: 'number' } },
        properties: { x: { $ref: '#/definitions/n' }, child: { $ref: '#' } },
      }),
    );
    expect(validate({ x: 1, child: { x: 2 } })).toBeNull();
    expect(validate({ x: 1, child: { x: 'two' } })).toBe('data/child/x must be number');
  });

  it('checks uniqueItems in linear time, equal values in any key order counting as duplicates', () => {
    const validate = validator(compileOutputSchema({ type: 'array', uniqueItems: true }));
    expect(
      validate([
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ]),
    ).toMatch(/duplicate items \(items ## 0 and 1/);
    expect(validate([1, '1', [1], { a: 1 }])).toBeNull();
    // Ajv's own uniqueItems compares every pair: ~13 s for 50,000 arrays; this is a few ms
    const many = Array.from({ length: 50_000 }, (_, i) => [i]);
    const started = Date.now();
    expect(validate(many)).toBeNull();
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('keeps at most maxEntries compiled schemas, least recently used out first', () => {
    const compiler = createOutputSchemaCompiler({ maxEntries: 3 });
    const schemas = [0, 1, 2, 3].map((n) => ({ type: 'string', maxLength: n }));
    for (const s of schemas.slice(0, 3)) compiler.compile(s);
    const hit = compiler.compile({ type: 'string', maxLength: 0 });
    expect(compiler.compile(schemas[0])).toBe(hit);
    compiler.compile(schemas[3]);
    expect(compiler.stats().entries).toBe(3);
    // maxLength 1 was the least recently used: it is compiled anew, maxLength 0 is still cached
    expect(compiler.compile(schemas[0])).toBe(hit);
    const before = compiler.compile(schemas[2]);
    compiler.compile(schemas[1]);
    expect(compiler.compile(schemas[2])).toBe(before);
    expect(compiler.stats().entries).toBe(3);
  });

  it('keeps the cached schemas within maxBytes', () => {
    const compiler = createOutputSchemaCompiler({ maxEntries: 100, maxBytes: 10_000 });
    for (let n = 0; n < 20; n++) compiler.compile({ type: 'string', description: `${n}`.padEnd(2000, 'x') });
    expect(compiler.stats().bytes).toBeLessThanOrEqual(10_000);
    expect(compiler.stats().entries).toBe(4);
  });

  it('leaves the heap where it was after 400 distinct 16 KB schemas', { timeout: 600_000 }, () => {
    setFlagsFromString('--expose-gc');
    // V8's eval cache keeps the code of every `new Function` until a memory-reducing collection, which a
    // forced gc() is not: without it, the heap shows what the compiled validators themselves keep alive
    setFlagsFromString('--no-compilation-cache');
    const gc = runInNewContext('gc') as () => void;
    const compiler = createOutputSchemaCompiler();
    // warm up: code paths, and a full cache, so what follows measures growth beyond the cache's bound
    for (let n = 0; n < 100; n++) validator(compiler.compile(distinctSchema(n)))({});
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let n = 100; n < 500; n++) {
      const validate = validator(compiler.compile(distinctSchema(n)));
      expect(validate({ [`field_${n}_0`]: `v${n}0000` })).toBeNull();
      expect(validate({ [`field_${n}_0`]: `v${n}_0_0` })).toMatch(/must match pattern/);
    }
    gc();
    const growth = process.memoryUsage().heapUsed - before;
    console.log(`heap growth after 400 distinct schemas: ${(growth / 1024 / 1024).toFixed(1)} MB`);
    expect(compiler.stats().entries).toBe(64);
    // the shared Ajv this replaces keeps every compile: 37.5 MB for these 400 schemas (measured)
    expect(growth).toBeLessThan(15 * 1024 * 1024);
  });
});
