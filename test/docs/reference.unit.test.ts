/**
 * The reference pages that must follow the code: the configuration variables (generated from
 * the schema by `npm run docs:config`), the error types (every failure reason, error type and
 * problem type of the code is on the page), every relative link of the docs (its file and
 * its #anchor exist), and the contributors' table of benches (a row for each).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ErrorType } from '../../core/errors';
import { FailureReasonSchema } from '../../schemas/result';
import { CONFIG_REFERENCE_PATH, renderConfigReference, undescribedVariables } from '../../scripts/config-reference';
import { docFiles, ROOT } from './blocks';

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

describe('docs/reference/configuration.md', () => {
  it('is what `npm run docs:config` generates from schemas/config.ts', () => {
    // a difference means the schema changed without the page: run `npm run docs:config`
    expect(read(CONFIG_REFERENCE_PATH)).toBe(renderConfigReference());
  });

  it('has a description for every variable', () => {
    expect(undescribedVariables()).toEqual([]);
  });
});

describe('docs/reference/errors.md', () => {
  const page = read('docs/reference/errors.md');
  it('names every failure reason, error type and problem type', () => {
    const problemTypes = [...read('api/errors.ts').matchAll(/\d{3}: '([a-z-]+)'/g)].map((m) => m[1]);
    expect(problemTypes.length).toBeGreaterThan(5);
    const missing = [...FailureReasonSchema.options, ...Object.values(ErrorType), ...problemTypes].filter(
      (n) => !page.includes(`\`${n}\``),
    );
    expect(missing).toEqual([]);
  });
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');

/** The anchors of a Markdown file (outside code blocks). */
function anchors(file: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of read(file).split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const h = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (h) out.add(slug(h[1]));
  }
  return out;
}

describe('links in the docs', () => {
  it('point at files and headings that exist', () => {
    const broken: string[] = [];
    for (const file of [...docFiles(), 'CONTRIBUTING.md']) {
      const text = read(file).replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        const [path, anchor] = target.split('#');
        const dest = path ? normalize(join(dirname(file), path)) : file;
        if (!existsSync(join(ROOT, dest))) broken.push(`${file}: ${target} (no ${dest})`);
        else if (anchor && dest.endsWith('.md') && !anchors(dest).has(anchor))
          broken.push(`${file}: ${target} (no heading #${anchor} in ${dest})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('do not point at README sections that moved', () => {
    const stale = [...docFiles(), 'CONTRIBUTING.md'].filter((f) => /README\.md#/.test(read(f)));
    expect(stale).toEqual([]);
  });
});

describe("CONTRIBUTING.md's table of benches", () => {
  it('has a row for every bench `npm run bench` runs', () => {
    // bench/run-all.ts runs when imported: its list is read as text
    const list = /const ALL = \[([\s\S]*?)\];/.exec(read('bench/run-all.ts'))![1]!;
    const benches = [...list.matchAll(/'([a-z0-9-]+)'/g)].map((m) => m[1]!);
    expect(benches.length).toBeGreaterThan(10);
    const page = read('CONTRIBUTING.md');
    expect(benches.filter((b) => !page.includes(`| \`${b}\` |`))).toEqual([]);
  });
});
