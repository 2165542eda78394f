/**
 * Every ```ts block of the docs compiles against this repository: the blocks are written to a
 * folder inside it (so `delegate/client` and the project's packages resolve as they do for a
 * user of the package) and checked with the project's tsc and compiler options. A block that
 * is a piece of a program is fenced ```ts fragment and is not compiled.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { allBlocks, ROOT, where, type CodeBlock } from './blocks';

const TS = new Set(['ts', 'typescript']);
const blocks = allBlocks().filter((b) => TS.has(b.lang));
const programs = blocks.filter((b) => !b.flags.includes('fragment'));

/** tsc on the files of `dir`, with the project's options; its output when it fails. */
async function typecheck(dir: string, files: string[]): Promise<string> {
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ extends: '../../tsconfig.json', include: files }));
  try {
    await promisify(execFile)(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], {
      cwd: ROOT,
    });
    return '';
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    return `${e.stdout ?? ''}${e.stderr ?? ''}` || e.message;
  }
}

/** Writes each block as its own module, named after its page and line; the file name → block. */
function writeBlocks(dir: string, list: CodeBlock[]): Map<string, CodeBlock> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const byName = new Map<string, CodeBlock>();
  for (const b of list) {
    const name = `${b.file.replace(/[/.]/g, '_')}_L${b.line}.ts`;
    // `export {}` keeps a block without imports a module (its names its own, top-level await allowed)
    writeFileSync(join(dir, name), `${b.code}\nexport {};\n`);
    byName.set(name, b);
  }
  return byName;
}

describe('the TypeScript blocks of the docs', () => {
  it('are there: whole programs and marked fragments', () => {
    expect(programs.length).toBeGreaterThanOrEqual(4);
    expect(blocks.filter((b) => b.flags.includes('fragment')).every((b) => b.flags.length === 1)).toBe(true);
  });

  it('compile against the project', async () => {
    const dir = join(ROOT, 'test-results', 'docs-ts');
    const byName = writeBlocks(dir, programs);
    const output = await typecheck(dir, [...byName.keys()]);
    // name the page and line of each error instead of the temp file
    const readable = output.replace(/[\w./-]*?([\w-]+_L\d+)\.ts\((\d+),\d+\)/g, (_, n: string, l: string) => {
      const b = byName.get(`${n}.ts`);
      return b ? `${where(b)} (block line ${l})` : `${n}.ts:${l}`;
    });
    expect(readable).toBe('');
  }, 120_000);
});
