/**
 * The code blocks of the docs (README.md and docs/**\/*.md), as the docs tests read them.
 * Conventions (CONTRIBUTING.md, "The layout and its rules"): ```sh runnable blocks are run
 * against a test stack; ```ts blocks are whole programs that must compile, ```ts fragment
 * blocks are pieces of one and are not compiled.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** One fenced block: where it is, its language and flags (the info string's other words), its text. */
export interface CodeBlock {
  file: string;
  line: number;
  lang: string;
  flags: string[];
  code: string;
}

/** README.md and every Markdown file under docs/, relative to the root, in a stable order. */
export function docFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true })
      .sort((a, b) => a.name.localeCompare(b.name))
      .flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : []));
  return ['README.md', ...walk('docs')];
}

/** Every fenced block of a file (a fence may be indented, as in a list; its indentation is removed). */
export function codeBlocks(file: string, text = readFileSync(join(ROOT, file), 'utf8')): CodeBlock[] {
  const lines = text.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, info] = open;
    const [lang = '', ...flags] = info.trim().split(/\s+/).filter(Boolean);
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !(lines[j].startsWith(indent + fence) && lines[j].trim() === fence)) {
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j]);
      j++;
    }
    blocks.push({ file, line: i + 1, lang, flags, code: body.join('\n') + '\n' });
    i = j;
  }
  return blocks;
}

/** Every block of every doc file. */
export function allBlocks(): CodeBlock[] {
  return docFiles().flatMap((f) => codeBlocks(f));
}

/** A block's place, as an editor opens it. */
export const where = (b: CodeBlock) => `${relative(ROOT, join(ROOT, b.file))}:${b.line}`;
