import { describe, expect, it } from 'vitest';
import { JobSpecSchema } from '../../schemas/job';
import { MAX_OUTPUT_SCHEMA_BYTES, MAX_OUTPUT_SCHEMA_DEPTH, OutputSchemaSchema, outputSchemaProblems } from '../../schemas/output-schema';

/** The issues of a parse, as `path: message`. */
const issues = (r: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  (r.error?.issues ?? []).map((i) => `${i.path.join('.')}: ${i.message}`);

const job = (outputSchema: unknown) => ({ pattern: 'fanout', tasks: [{ id: 'a', question: 'q', agent: 'sim', outputSchema }] });

describe('outputSchema structural rules (zod, shared by the API and the workflow)', () => {
  it('accepts an ordinary schema with local references and properties named $id or $ref', () => {
    const ok = {
      type: 'object',
      $defs: { name: { type: 'string', pattern: '^[a-z]+$' } },
      properties: { first: { $ref: '#/$defs/name' }, $id: { type: 'string' }, $ref: { type: 'string' } },
      required: ['first'],
    };
    expect(OutputSchemaSchema.safeParse(ok).success).toBe(true);
  });

  it('refuses $id anywhere, naming the path inside the schema', () => {
    expect(issues(OutputSchemaSchema.safeParse({ $id: 'https://x/a', type: 'string' }))).toEqual([
      expect.stringMatching(/^\$id: "\$id" is not allowed/),
    ]);
    const r = JobSpecSchema.safeParse(job({ type: 'object', properties: { x: { $id: 'shared', type: 'string' } } }));
    expect(issues(r)).toEqual([expect.stringMatching(/^tasks\.0\.outputSchema\.properties\.x\.\$id: "\$id" is not allowed/)]);
  });

  it('refuses remote $ref, $dynamicRef and $recursiveRef, and accepts local ones', () => {
    for (const kw of ['$ref', '$dynamicRef', '$recursiveRef']) {
      expect(issues(OutputSchemaSchema.safeParse({ items: { [kw]: 'https://evil.example/s.json' } }))).toEqual([
        expect.stringMatching(new RegExp(`^items\\.\\${kw}: "\\${kw}" must be local`)),
      ]);
      expect(OutputSchemaSchema.safeParse({ items: { [kw]: '#' } }).success).toBe(true);
    }
    expect(issues(JobSpecSchema.safeParse(job({ $ref: 'file:///etc/passwd' })))).toEqual([
      expect.stringMatching(/^tasks\.0\.outputSchema\.\$ref: /),
    ]);
  });

  it(`refuses a schema over ${MAX_OUTPUT_SCHEMA_BYTES} bytes and one nested deeper than ${MAX_OUTPUT_SCHEMA_DEPTH} levels`, () => {
    const big = { type: 'string', description: 'x'.repeat(MAX_OUTPUT_SCHEMA_BYTES) };
    expect(issues(OutputSchemaSchema.safeParse(big))).toEqual([expect.stringMatching(/exceeds the 65536-byte limit/)]);
    // multi-byte characters count as UTF-8 bytes: 30,000 × "é" is 60,000 bytes, 30,000 × "€" is 90,000
    expect(OutputSchemaSchema.safeParse({ description: 'é'.repeat(30_000) }).success).toBe(true);
    expect(OutputSchemaSchema.safeParse({ description: '€'.repeat(30_000) }).success).toBe(false);
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 40; i++) deep = { items: deep };
    const r = issues(OutputSchemaSchema.safeParse(deep));
    expect(r).toHaveLength(1);
    expect(r[0]).toMatch(/nested deeper than 32 levels/);
    let fine: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 15; i++) fine = { items: fine };
    expect(OutputSchemaSchema.safeParse(fine).success).toBe(true);
  });
});

describe('outputSchema limits that bound compile and match time', () => {
  it('refuses "$async", more than 16 patterns, long patterns and large repeat counts, naming where', () => {
    const paths = (schema: Record<string, unknown>) => outputSchemaProblems(schema).map((p) => `${p.path.join('.')}: ${p.message}`);
    expect(paths({ $async: true, type: 'number' })).toEqual(['$async: "$async" is not allowed in an outputSchema']);
    const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`p${i}`, { type: 'string', pattern: `^x${i}$` }]));
    expect(paths({ type: 'object', properties: many })).toEqual(['properties.p16.pattern: more than 16 patterns in one outputSchema']);
    expect(paths({ type: 'string', pattern: 'a'.repeat(257) })).toEqual(['pattern: pattern of 257 characters exceeds 256']);
    expect(paths({ type: 'string', pattern: '\\pL{1000}' })[0]).toMatch(/^pattern: repeat counts add up to 1000, over 100/);
    expect(paths({ type: 'object', patternProperties: { 'a{60}b{60}': {} } })[0]).toMatch(
      /^patternProperties\.a\{60\}b\{60\}: repeat counts add up to 120/,
    );
    expect(paths({ type: 'string', pattern: '^[0-9]{1,64}$' })).toEqual([]);
  });
});
