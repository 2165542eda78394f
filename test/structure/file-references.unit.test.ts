/**
 * Every `.ts` file a comment of the sources or a page of the docs names exists: the job's modules
 * were grouped into workflows/job/ (issue 25) and six comments kept naming the files as they were
 * (job-ledger.ts, job-children.ts, …), which sends a reader looking for code that is not there.
 * A name with a folder must match the end of a real path; a bare name, some file's name.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { docFiles, ROOT } from '../docs/blocks';
import { filesUnder, sourceFiles } from './import-circles';

/** Names that are examples, not references. */
const EXAMPLES = new Set([
  'src/a.ts', // activities/scout/verify.ts: the shape of a report's line
]);
/** Folders whose files are not the project's: dependencies, builds, scratch (dot-entries are skipped too). */
const SKIP = new Set(['node_modules', 'dist', 'test-results', 'scratch']);

/** The `.ts` file names in `text` (globs such as `*.unit.test.ts` and suffixes such as `.d.ts` are not names). */
function tsNames(text: string): string[] {
  return [...text.matchAll(/(?<![\w*.-])[A-Za-z0-9_][A-Za-z0-9_./-]*\.ts\b/g)].map((m) => m[0]);
}

/** The comments of a TypeScript source, as TypeScript's scanner reads them. */
function commentsOf(source: string): string[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, source);
  const out: string[] = [];
  for (let k = scanner.scan(); k !== ts.SyntaxKind.EndOfFileToken; k = scanner.scan())
    if (k === ts.SyntaxKind.SingleLineCommentTrivia || k === ts.SyntaxKind.MultiLineCommentTrivia) out.push(scanner.getTokenText());
  return out;
}

/** Whether `name` names one of `files`: a path's end when it has a folder, a file's name when not. */
function exists(name: string, files: string[]): boolean {
  const clean = name.replace(/^\.\//, '');
  return clean.includes('/') ? files.some((f) => f === clean || f.endsWith(`/${clean}`)) : files.some((f) => f.split('/').pop() === clean);
}

describe('file names in comments and docs', () => {
  const files = filesUnder(ROOT, SKIP);

  it('every .ts file a source comment names exists', () => {
    const missing = sourceFiles(ROOT).flatMap((path) =>
      commentsOf(readFileSync(join(ROOT, path), 'utf8'))
        .flatMap(tsNames)
        .filter((name) => !EXAMPLES.has(name) && !exists(name, files))
        .map((name) => `${path}: ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it('every .ts file the README, CONTRIBUTING and docs/ name exists', () => {
    const pages = [...docFiles(), 'CONTRIBUTING.md'];
    const missing = pages.flatMap((page) =>
      tsNames(readFileSync(join(ROOT, page), 'utf8'))
        .filter((name) => !EXAMPLES.has(name) && !exists(name, files))
        .map((name) => `${page}: ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it('reads names, not globs or suffixes, and only from comments', () => {
    expect(tsNames('see job/carry.ts, `*.unit.test.ts`, the .d.ts files and ./x-y.ts.')).toEqual(['job/carry.ts', 'x-y.ts']);
    expect(commentsOf(`// a.ts\nconst s = 'b.ts'; /* c.ts */`)).toEqual(['// a.ts', '/* c.ts */']);
    expect(exists('job/carry.ts', ['workflows/job/carry.ts'])).toBe(true);
    expect(exists('job-carry.ts', ['workflows/job/carry.ts'])).toBe(false);
    expect(exists('carry.ts', ['workflows/job/carry.ts'])).toBe(true);
  });
});
