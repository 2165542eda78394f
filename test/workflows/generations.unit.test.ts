/**
 * The registry of behaviour generations (workflows/generations.ts) against the workflow code: every
 * patch id, host-rules version and registered input flag is in both, each generation's fixtures
 * exist, and a generation whose old side no history can still hold fails here until it is retired.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expired, expiresOn, GENERATIONS, LONGEST_JOB_DAYS, RETENTION_DAYS } from '../../workflows/generations';

const ROOT = join(import.meta.dirname, '../..');
const FIXTURES = join(ROOT, 'test/fixtures/histories');

function sources(dir: string): { file: string; text: string }[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => ({ file: join(dir, f), text: readFileSync(join(ROOT, dir, f), 'utf8') }));
}
// the registry itself names patched() in its comments
const workflows = sources('workflows').filter(({ file }) => file !== join('workflows', 'generations.ts'));

/** The ids the workflows pass to patched() / deprecatePatch(): literals, or constants defined as string literals. */
function patchIds(): string[] {
  const constants = new Map<string, string>();
  for (const { text } of workflows) for (const m of text.matchAll(/const (\w+) = '([^']+)'/g)) constants.set(m[1], m[2]);
  const ids = new Set<string>();
  for (const { file, text } of workflows)
    for (const m of text.matchAll(/\b(?:patched|deprecatePatch)\((\w+|'[^']+')\)/g)) {
      const arg = m[1];
      const id = arg.startsWith("'") ? arg.slice(1, -1) : constants.get(arg);
      if (!id) throw new Error(`${file}: patched(${arg}) with an id this test cannot read`);
      ids.add(id);
    }
  return [...ids].sort();
}

const registered = (mechanism: string) =>
  GENERATIONS.filter((g) => g.mechanism === mechanism)
    .map((g) => g.id)
    .sort();

describe('behaviour generations', () => {
  it('registers every patch id the workflows use, and only those', () => {
    expect(patchIds()).toEqual(registered('patch'));
  });

  it('registers every host-rules version up to the one jobs start subtasks with', () => {
    const text = readFileSync(join(ROOT, 'workflows/subtask/host-rules.ts'), 'utf8');
    const current = Number(/export const HOST_RULES = (\d+);/.exec(text)?.[1]);
    expect(current).toBeGreaterThan(0);
    expect(registered('hostRules')).toEqual(Array.from({ length: current }, (_, i) => `hostRules:${i + 1}`));
  });

  it('keeps every registered input flag an optional field of a workflow input that the workflows read', () => {
    const inputs = ['contracts/subtask.ts', 'contracts/job.ts'].map((f) => readFileSync(join(ROOT, f), 'utf8')).join('\n');
    // an optional field of the job's spec (JobInput.spec) chooses too, for a spec that sets it
    const spec = readFileSync(join(ROOT, 'schemas/job.ts'), 'utf8');
    for (const id of registered('input')) {
      const field = id.slice('input:'.length);
      const optional = new RegExp(`\\b${field}\\?:`).test(inputs) || new RegExp(`\\b${field}: \\w+\\.optional\\(\\)`).test(spec);
      expect(optional, `${id}: no optional field "${field}" in the workflow inputs or the job spec`).toBe(true);
      const readers = workflows.filter(({ text }) => new RegExp(`\\.${field}\\b`).test(text));
      expect(readers.length, `${id}: no workflow reads it any more: retire it`).toBeGreaterThan(0);
    }
  });

  it('names fixtures that exist, and every generation has a date in order', () => {
    for (const g of GENERATIONS) {
      expect(g.fixtures.length, g.id).toBeGreaterThan(0);
      for (const f of g.fixtures) expect(existsSync(join(FIXTURES, f)), `${g.id}: fixture ${f}`).toBe(true);
      expect(g.since, g.id).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    const dates = GENERATIONS.map((g) => g.since);
    expect(dates).toEqual([...dates].sort());
  });

  it('counts the expiry from the day after `since`, plus retention and the longest job', () => {
    expect(expiresOn({ since: '2026-12-03' }, 30, 1)).toBe('2027-01-04');
    expect(expiresOn({ since: '2026-12-03' }, 0, 0)).toBe('2026-12-04');
    expect(
      expired(Date.parse('2026-12-04T00:00:00Z'), [{ id: 'x', mechanism: 'patch', changed: '', since: '2026-12-03', fixtures: [] }]),
    ).toEqual([]);
  });

  it('holds no generation whose old side no history can still hold: retire it (CONTRIBUTING.md)', () => {
    const due = expired(Date.now()).map((g) => `${g.id} (since ${g.since}, expired ${expiresOn(g)})`);
    expect(due, `retention ${RETENTION_DAYS} d + longest job ${LONGEST_JOB_DAYS} d have passed`).toEqual([]);
  });
});
