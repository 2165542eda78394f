/**
 * Compiles a task's `outputSchema` into a validator, safely for a worker shared by tenants:
 *
 *   schema ──> structural rules (size, $id, local $ref, depth) ──> $ref graph (expansion, in-place cycles)
 *          ──> meta-schema check (shared, holds no user schema)
 *          ──> fresh Ajv with RE2 patterns ──> validator, kept in a small LRU keyed by the schema's hash
 *
 * A fresh Ajv per compile means no `$id` can collide across tasks and nothing outlives its LRU
 * entry; RE2 matches in linear time, so no `pattern` can backtrack catastrophically. The worker
 * and the API run this compiler inside schema threads (schema-thread.ts), bounded in time and heap.
 */
import { LRUCache } from 'lru-cache';
import { Ajv, type ErrorObject, type Options, type SchemaObject } from 'ajv';
import { createHash } from 'node:crypto';
import { RE2JS } from 're2js';
import { outputSchemaProblems, schemaPathText } from '../schemas/output-schema';
import { refGraphErrors } from '../schemas/output-schema-refs';
import { backtracking } from './regex-ambiguity';

/** Checks data against a compiled schema: null when valid, else why not (for the agent's re-prompt). */
export type OutputValidator = (data: unknown) => string | null;

/** A compiled schema, or why it does not compile. */
export type CompiledOutputSchema = { ok: true; validate: OutputValidator } | { ok: false; error: string };

/** Bounds of a compiler's cache. */
export interface OutputSchemaCompilerOptions {
  /** Compiled schemas kept. @default 64 */
  maxEntries?: number;
  /** Sum of the kept schemas' JSON sizes (a proxy for their compiled size). @default 2 MiB */
  maxBytes?: number;
}

/** A validation message longer than this is cut: it goes into a re-prompt and the result's errors. */
const MAX_MESSAGE_CHARS = 1000;
/** Longest string a `pattern` is matched against; longer strings fail it (bound `maxLength` instead). */
export const MAX_PATTERN_SUBJECT_CHARS = 16_384;

type RegExpEngine = NonNullable<NonNullable<Options['code']>['regExp']>;

/** RE2 in place of RegExp for `pattern` and `patternProperties`: linear time, no backreferences or lookaround. */
const re2: RegExpEngine = Object.assign(
  (pattern: string) => {
    let compiled: ReturnType<typeof RE2JS.compile>;
    try {
      compiled = RE2JS.compile(pattern);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new Error(
        `pattern ${JSON.stringify(pattern.slice(0, 200))} is not supported (${why}); patterns use RE2 syntax: no backreferences or lookaround`,
      );
    }
    // linear, but linear in string × program: a string past the cap does not match any pattern
    return { test: (s: string) => s.length <= MAX_PATTERN_SUBJECT_CHARS && compiled.test(s) };
  },
  { code: 're2js' },
);

/** Validates schemas against the draft-07 meta-schema only: it never holds a user's schema. */
const metaAjv = new Ajv({ allErrors: true, strict: false });

/** JSON with sorted keys, so equal values give equal text whatever their key order. */
function canonical(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
    .join(',')}}`;
}

/** `uniqueItems` in linear time: Ajv's own compares every pair, seconds for a 256 KiB array. */
function uniqueItems(schema: boolean, data: unknown[]): boolean {
  if (!schema) return true;
  const seen = new Map<string, number>();
  for (let i = 0; i < data.length; i++) {
    const key = canonical(data[i]);
    const j = seen.get(key);
    if (j !== undefined) {
      uniqueItems.errors = [
        { keyword: 'uniqueItems', message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)`, params: { i: j, j: i } },
      ];
      return false;
    }
    seen.set(key, i);
  }
  return true;
}
uniqueItems.errors = undefined as Partial<ErrorObject>[] | undefined;

/** Calls `visit` with every `pattern` and `patternProperties` key of a schema, and where it is. */
function eachPattern(node: unknown, visit: (pattern: string, at: (string | number)[]) => void, path: (string | number)[] = []): void {
  if (node === null || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'pattern' && typeof value === 'string') visit(value, [...path, key]);
    if (key === 'patternProperties' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const p of Object.keys(value)) visit(p, [...path, key, p]);
    }
    eachPattern(value, visit, [...path, Array.isArray(node) ? Number(key) : key]);
  }
}

/**
 * Every `pattern` and `patternProperties` key that RE2 cannot compile, with its path. Checked
 * up front because Ajv skips the patterns it never needs (`patternProperties: { "(?=a)": {} }`).
 */
function patternProblems(schema: unknown): string[] {
  const out: string[] = [];
  eachPattern(schema, (pattern, at) => {
    try {
      RE2JS.compile(pattern);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      out.push(
        `${schemaPathText(at)}: pattern ${JSON.stringify(pattern.slice(0, 200))} is not RE2 syntax (${why}); no backreferences or lookaround`,
      );
    }
  });
  return out.slice(0, 20);
}

/**
 * Patterns that would backtrack catastrophically in a backtracking engine (a repeated group
 * whose iterations can split one string in several ways: `(a+)+`, `(a|aa)+`, `(.*a){12}`; or
 * three or more quantified parts in a row that trade characters: `a*a*a*b`, `.*foo.*bar`;
 * see regex-ambiguity.ts), with their paths. The worker matches with RE2 in linear time whatever the
 * pattern, but the API refuses these at submission: the same schema is often reused by
 * clients whose own validators backtrack.
 */
export function backtrackingPatterns(schema: unknown): string[] {
  const out: string[] = [];
  eachPattern(schema, (pattern, at) => {
    const found = backtracking(pattern);
    if (!found) return;
    const quoted = `${schemaPathText(at)}: pattern ${JSON.stringify(pattern.slice(0, 200))}`;
    out.push(
      found.kind === 'exponential'
        ? `${quoted} repeats a repeated group (catastrophic backtracking); write it without nested quantifiers`
        : `${quoted} lets a backtracking engine split one run of characters among quantified parts in about n^${found.degree} ways (polynomial backtracking); separate the parts by a character they cannot match, merge them, or anchor the pattern with ^`,
    );
  });
  return out.slice(0, 20);
}

/** Compiles one schema with an Ajv of its own, so nothing it registers is seen by another schema. */
function compileFresh(schema: SchemaObject): CompiledOutputSchema {
  const problems = outputSchemaProblems(schema);
  if (problems.length > 0) {
    return { ok: false, error: problems.map((p) => `${schemaPathText(p.path)}: ${p.message}`).join('; ') };
  }
  // before Ajv sees it: a $ref graph that multiplies or loops in place would cost every validation (or never end)
  const badRefs = refGraphErrors(schema);
  if (badRefs.length > 0) return { ok: false, error: badRefs.join('; ').slice(0, MAX_MESSAGE_CHARS) };
  const badPatterns = patternProblems(schema);
  if (badPatterns.length > 0) return { ok: false, error: badPatterns.join('; ').slice(0, MAX_MESSAGE_CHARS) };
  try {
    if (!metaAjv.validateSchema(schema)) {
      return {
        ok: false,
        error: `not a valid JSON Schema: ${metaAjv.errorsText(metaAjv.errors, { dataVar: 'outputSchema' })}`.slice(0, MAX_MESSAGE_CHARS),
      };
    }
  } catch (err) {
    // an unknown "$schema" (Ajv never fetches one)
    return { ok: false, error: `not a valid JSON Schema: ${err instanceof Error ? err.message : String(err)}`.slice(0, MAX_MESSAGE_CHARS) };
  }
  // optimize: false compiles ~5x faster; inlineRefs: false stops a schema from multiplying its code
  // by referencing one large definition many times
  const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false, inlineRefs: false, code: { optimize: false, regExp: re2 } });
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword({ keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', validate: uniqueItems });
  try {
    const validate = ajv.compile(schema);
    // an async validator answers with a promise, never a verdict (the structural rules refuse "$async" too)
    if ((validate as { $async?: boolean }).$async)
      return { ok: false, error: 'outputSchema compiles to an async validator ("$async"), which is not allowed' };
    return {
      ok: true,
      validate: (data) => (validate(data) ? null : ajv.errorsText(validate.errors, { dataVar: 'data' }).slice(0, MAX_MESSAGE_CHARS)),
    };
  } catch (err) {
    return {
      ok: false,
      error: `outputSchema does not compile: ${err instanceof Error ? err.message : String(err)}`.slice(0, MAX_MESSAGE_CHARS),
    };
  }
}

/** A compiler whose cache stays within its bounds however many distinct schemas it sees. */
export function createOutputSchemaCompiler({ maxEntries = 64, maxBytes = 2 * 1024 * 1024 }: OutputSchemaCompilerOptions = {}) {
  const cache = new LRUCache<string, CompiledOutputSchema>({ max: maxEntries, maxSize: maxBytes });
  return {
    /** The validator for a schema (from the cache when seen lately), or why the schema does not compile. */
    compile(schema: Record<string, unknown>): CompiledOutputSchema {
      const json = JSON.stringify(schema);
      const key = createHash('sha256').update(json).digest('hex');
      const hit = cache.get(key);
      if (hit) return hit;
      const compiled = compileFresh(schema);
      const size = Buffer.byteLength(json);
      // a schema larger than the whole cache is compiled every time, never kept
      if (size <= maxBytes) cache.set(key, compiled, { size });
      return compiled;
    },
    /** What the cache holds now (for tests and metrics). */
    stats: () => ({ entries: cache.size, bytes: cache.calculatedSize }),
  };
}

/** The compiler a process shares: the worker's agent steps and the API's submission check. */
export const outputSchemas = createOutputSchemaCompiler();

/** Compiles a schema with the process's shared, bounded compiler. */
export const compileOutputSchema = (schema: Record<string, unknown>): CompiledOutputSchema => outputSchemas.compile(schema);
