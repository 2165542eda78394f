/**
 * Structural rules for a task's `outputSchema`, checked by the API and by the workflow's own
 * input validation alike, so no schema reaches the worker's compiler that could: grow its
 * memory (size cap), collide with another tenant's schema (`$id`), fetch or name a schema
 * outside itself (remote `$ref`), or blow its stack (nesting depth). What its `$ref` graph costs
 * (expansion, references looping in place) is output-schema-refs.ts; whether the schema compiles
 * (and its patterns are RE2-compatible) is checked next, by activities/output-schema.ts.
 */
import { z } from 'zod';
import { utf8Bytes } from '../core/utf8';

/** Largest `outputSchema` accepted, in JSON bytes (UTF-8). */
export const MAX_OUTPUT_SCHEMA_BYTES = 64 * 1024;
/** Deepest nesting of objects and arrays inside an `outputSchema`. */
export const MAX_OUTPUT_SCHEMA_DEPTH = 32;

/** Most `pattern`/`patternProperties` regular expressions one schema may hold: each costs compile and match time. */
export const MAX_OUTPUT_SCHEMA_PATTERNS = 16;
/** Longest regular expression, in characters. */
export const MAX_PATTERN_LENGTH = 256;
/** Largest sum of repeat counts (`{n}`, `{n,m}`) in one regular expression: RE2 unrolls repeats into its program. */
export const MAX_PATTERN_REPEAT = 100;

/** Keywords that name another schema: only references inside this schema (`#...`) are allowed. */
const REF_KEYWORDS = ['$ref', '$dynamicRef', '$recursiveRef'] as const;
/** Keywords that register a schema under a global name in a validator instance. */
const ID_KEYWORDS = ['$id'] as const;

type Path = (string | number)[];

/** A path inside a schema as text, e.g. `properties.name.pattern` or `(root)`. */
export const schemaPathText = (path: Path): string =>
  path.length === 0
    ? '(root)'
    : path
        .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
        .join('')
        .replace(/^\./, '');

/**
 * Every rule broken, as (path inside the schema, message). Keys are checked wherever they occur,
 * also inside `const`/`enum` values: conservative, since a value and a sub-schema can look alike.
 */
export function outputSchemaProblems(schema: unknown): { path: Path; message: string }[] {
  const problems: { path: Path; message: string }[] = [];
  let tooDeep = false;
  let patterns = 0;
  const checkPattern = (pattern: string, at: Path) => {
    if (++patterns === MAX_OUTPUT_SCHEMA_PATTERNS + 1)
      problems.push({ path: at, message: `more than ${MAX_OUTPUT_SCHEMA_PATTERNS} patterns in one outputSchema` });
    if (pattern.length > MAX_PATTERN_LENGTH)
      problems.push({ path: at, message: `pattern of ${pattern.length} characters exceeds ${MAX_PATTERN_LENGTH}` });
    let repeats = 0;
    for (const m of pattern.matchAll(/\{(\d+)(?:,(\d*))?\}/g)) repeats += Math.max(Number(m[1]), Number(m[2] || 0));
    if (repeats > MAX_PATTERN_REPEAT) {
      problems.push({
        path: at,
        message: `repeat counts add up to ${repeats}, over ${MAX_PATTERN_REPEAT} (bound lengths with minLength/maxLength instead)`,
      });
    }
  };
  const walk = (node: unknown, path: Path, depth: number): void => {
    if (problems.length >= 20 || node === null || typeof node !== 'object') return;
    if (depth > MAX_OUTPUT_SCHEMA_DEPTH) {
      if (!tooDeep) problems.push({ path, message: `nested deeper than ${MAX_OUTPUT_SCHEMA_DEPTH} levels` });
      tooDeep = true;
      return;
    }
    if (Array.isArray(node)) {
      node.forEach((v, i) => walk(v, [...path, i], depth + 1));
      return;
    }
    for (const [key, value] of Object.entries(node)) {
      // a string is the keyword form; an object under these names is a property called "$id"/"$ref"
      if (key === '$async' && (value === null || typeof value !== 'object')) {
        // an async validator answers with a promise: never a verdict the host can wait on
        problems.push({ path: [...path, key], message: '"$async" is not allowed in an outputSchema' });
      } else if (key === 'pattern' && typeof value === 'string') checkPattern(value, [...path, key]);
      else if (key === 'patternProperties' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
        for (const p of Object.keys(value)) checkPattern(p, [...path, key, p]);
      }
      if ((ID_KEYWORDS as readonly string[]).includes(key) && typeof value === 'string') {
        problems.push({
          path: [...path, key],
          message: `"${key}" is not allowed in an outputSchema (schemas are anonymous; use "$defs" and "#/$defs/..." references)`,
        });
      } else if ((REF_KEYWORDS as readonly string[]).includes(key) && typeof value === 'string' && !value.startsWith('#')) {
        problems.push({ path: [...path, key], message: `"${key}" must be local (start with "#"), got "${value.slice(0, 100)}"` });
      }
      walk(value, [...path, key], depth + 1);
    }
  };
  walk(schema, [], 0);
  if (!tooDeep) {
    const bytes = utf8Bytes(JSON.stringify(schema) ?? '');
    if (bytes > MAX_OUTPUT_SCHEMA_BYTES) {
      problems.push({ path: [], message: `outputSchema of ${bytes} bytes exceeds the ${MAX_OUTPUT_SCHEMA_BYTES}-byte limit` });
    }
  }
  return problems;
}

/** The TaskSpec field: a JSON Schema object (draft-07) the result data must satisfy, within the rules above. */
export const OutputSchemaSchema = z
  .record(z.string(), z.unknown())
  .superRefine((schema, ctx) => {
    for (const p of outputSchemaProblems(schema)) {
      ctx.addIssue({ code: 'custom', path: p.path, message: p.message });
    }
  })
  .describe(
    `JSON Schema (draft-07) the result data must satisfy: at most ${MAX_OUTPUT_SCHEMA_BYTES} bytes and ${MAX_OUTPUT_SCHEMA_DEPTH} levels, no "$id", local "$ref" only ("#/...") in a graph that stays small and never loops in place, "pattern" in RE2 syntax (no backreferences or lookaround)`,
  );
export type OutputSchema = z.infer<typeof OutputSchemaSchema>;
