import { describe, expect, it } from 'vitest';
import { MAX_OUTPUT_SCHEMA_EXPANSION, refGraphErrors } from '../../schemas/output-schema-refs';
import { DATA_EXPONENTIAL, exponentialSchema, MUTUAL_REF, SELF_REF } from '../hostile-schemas';

describe('the $ref graph of an outputSchema', () => {
  it('refuses an expansion past the cap, allOf and anyOf alike, in linear time', () => {
    for (const kind of ['allOf', 'anyOf'] as const) {
      const began = performance.now();
      expect(refGraphErrors(exponentialSchema(kind, 31))).toEqual([
        expect.stringMatching(new RegExp(`^\\(root\\): expands to more than ${MAX_OUTPUT_SCHEMA_EXPANSION} subschemas`)),
      ]);
      expect(performance.now() - began).toBeLessThan(500);
    }
    // 3 * 2^12 applications: within the cap
    expect(refGraphErrors(exponentialSchema('allOf', 12))).toEqual([]);
  });

  it('refuses references that come back in place, naming where', () => {
    expect(refGraphErrors(SELF_REF)).toEqual([
      expect.stringMatching(/^\$ref: refers to itself \(via "#"\) without stepping into a property or an item/),
    ]);
    expect(refGraphErrors(MUTUAL_REF)).toEqual([
      expect.stringMatching(/^definitions\.b\.not\.\$ref: refers to itself \(via "#\/definitions\/a" → "#\/definitions\/b"\)/),
    ]);
    expect(refGraphErrors({ if: { type: 'string' }, else: { $ref: '#' } })).toEqual([
      expect.stringMatching(/^else\.\$ref: refers to itself/),
    ]);
    // through an anchor and an escaped pointer
    expect(refGraphErrors({ $defs: { x: { $anchor: 'x', anyOf: [{ $ref: '#x' }] } }, $ref: '#x' })).toEqual([
      expect.stringMatching(/^\$defs\.x\.anyOf\[0\]\.\$ref: refers to itself/),
    ]);
    expect(refGraphErrors({ $defs: { 'a/b': { oneOf: [{ $ref: '#/$defs/a~1b' }] } }, $ref: '#/$defs/a~1b' })).toEqual([
      expect.stringMatching(/^\$defs\.a\/b\.oneOf\[0\]\.\$ref: refers to itself/),
    ]);
  });

  it('accepts recursion that steps into the data, reuse within the cap, and unreferenced loops', () => {
    expect(refGraphErrors({ type: 'object', properties: { child: { $ref: '#' } } })).toEqual([]);
    expect(refGraphErrors({ type: 'array', items: { anyOf: [{ type: 'string' }, { $ref: '#' }] } })).toEqual([]);
    expect(refGraphErrors(DATA_EXPONENTIAL)).toEqual([]);
    expect(
      refGraphErrors({
        definitions: { n: { type: 'number' } },
        properties: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`p${i}`, { $ref: '#/definitions/n' }])),
      }),
    ).toEqual([]);
    // a loop nothing reaches is never applied
    expect(refGraphErrors({ definitions: { a: { $ref: '#/definitions/a' } }, type: 'string' })).toEqual([]);
    // a property called "$ref", an enum value that looks like a reference
    expect(refGraphErrors({ properties: { $ref: { type: 'string' } }, enum: [{ $ref: '#' }] })).toEqual([]);
  });

  it('refuses a chain of references deeper than the cap instead of overflowing', () => {
    const definitions: Record<string, unknown> = {};
    for (let i = 0; i < 1500; i++) definitions[`d${i}`] = { $ref: `#/definitions/d${i + 1}` };
    definitions.d1500 = { type: 'string' };
    expect(refGraphErrors({ $ref: '#/definitions/d0', definitions })).toEqual([expect.stringMatching(/nest deeper than 1000 levels/)]);
  });
});
