/**
 * The attacker's outputSchemas of issue 26 (findings 2 and 3), shared by the submission, the
 * worker and the unit tests.
 */

/** k definitions, each an `allOf`/`anyOf` of two `$ref`s to the next: 2^k schema applications per datum, in ~70 bytes per level. */
export function exponentialSchema(kind: 'allOf' | 'anyOf', k: number): Record<string, unknown> {
  const definitions: Record<string, unknown> = {};
  for (let i = 0; i < k; i++) definitions[`d${i}`] = { [kind]: [{ $ref: `#/definitions/d${i + 1}` }, { $ref: `#/definitions/d${i + 1}` }] };
  definitions[`d${k}`] = { type: 'string' };
  return { $ref: '#/definitions/d0', definitions };
}

/** A reference to itself with nothing in between: never terminates on any datum. */
export const SELF_REF = { $ref: '#' };

/** A → B → A through in-place keywords only (allOf, not): never terminates either. */
export const MUTUAL_REF = {
  definitions: { a: { allOf: [{ $ref: '#/definitions/b' }] }, b: { not: { $ref: '#/definitions/a' } } },
  $ref: '#/definitions/a',
};

/**
 * Passes every static rule (the recursion steps into a property each time) yet applies itself
 * twice per level to the same value, through `properties` and `patternProperties`: 2^depth work
 * on data nested `depth` levels deep. Only a bound on the validation itself stops it.
 */
export const DATA_EXPONENTIAL = { type: 'object', properties: { a: { $ref: '#' } }, patternProperties: { '^a$': { $ref: '#' } } };

/** `{a: {a: ... {}}}`, `depth` levels deep. */
export function nested(depth: number): Record<string, unknown> {
  let v: Record<string, unknown> = {};
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

/** A distinct schema of about `bytes` JSON bytes that is slow to compile (many small properties). */
export function heavySchema(seed: number, bytes = 40_000): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; JSON.stringify(properties).length < bytes - 200; i++)
    properties[`s${seed}p${i}`] = { type: 'string', maxLength: 40 + (i % 7), description: `field ${i} of schema ${seed}`.padEnd(60, '.') };
  return { type: 'object', properties };
}
