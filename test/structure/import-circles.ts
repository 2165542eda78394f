/**
 * Circles of value imports between the project's modules, read with the TypeScript compiler's
 * parser: `import type`, `import { type A }` and `export type … from` are left out (they are gone
 * from the compiled code, so they order nothing at run time). A circle of value imports makes the
 * order modules evaluate in depend on which one is loaded first, and ties the layers it crosses
 * together; DESIGN.md's layers forbid them, type-only ones are fine.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import ts from 'typescript';

/** Folders that hold no source of the services: tests, benches, builds, scratch. */
const SKIP = new Set(['node_modules', 'test', 'bench', 'scratch', 'dist', '.build', '.data', 'test-results', 'docs']);

/** The files under `root` (paths relative to it, with `/`) that `keep` takes, past the folders `skip` names and dot-entries. */
export function filesUnder(root: string, skip: ReadonlySet<string>, keep: (name: string) => boolean = () => true): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name.startsWith('.') || skip.has(e.name)) continue;
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (keep(e.name)) out.push(relative(root, path).split('\\').join('/'));
    }
  };
  walk(root);
  return out.sort();
}

/** The project's TypeScript sources under `root`, as paths relative to it (with `/`). */
export function sourceFiles(root: string): string[] {
  return filesUnder(root, SKIP, (name) => name.endsWith('.ts') && !name.endsWith('.d.ts'));
}

/** The relative modules `source` imports or re-exports as values, as written. */
export function valueImports(fileName: string, source: string): string[] {
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest);
  const specs: string[] = [];
  const onlyTypes = (elements: ts.NodeArray<ts.ImportSpecifier | ts.ExportSpecifier>) =>
    elements.length > 0 && elements.every((e) => e.isTypeOnly);
  for (const s of sf.statements) {
    if (ts.isImportDeclaration(s)) {
      const c = s.importClause;
      if (c?.isTypeOnly) continue;
      if (c && !c.name && c.namedBindings && ts.isNamedImports(c.namedBindings) && onlyTypes(c.namedBindings.elements)) continue;
      specs.push((s.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(s) && s.moduleSpecifier) {
      if (s.isTypeOnly || (s.exportClause && ts.isNamedExports(s.exportClause) && onlyTypes(s.exportClause.elements))) continue;
      specs.push((s.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return specs.filter((spec) => spec.startsWith('.'));
}

/**
 * The circles (strongly connected sets of two or more files, each sorted) of value imports among
 * `files` (path → source); a specifier resolves to `x.ts`, or `x/index.ts`, among them.
 */
export function valueImportCircles(files: Map<string, string>): string[][] {
  const resolve = (from: string, spec: string) => {
    const base = posix.normalize(posix.join(posix.dirname(from), spec)).replace(/\.js$/, '');
    return [base, `${base}.ts`, `${base}/index.ts`].find((p) => files.has(p));
  };
  const edges = new Map<string, string[]>();
  for (const [path, source] of files)
    edges.set(
      path,
      valueImports(path, source)
        .map((spec) => resolve(path, spec))
        .filter((p): p is string => p !== undefined),
    );
  // Tarjan's strongly connected components
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const part: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      part.push(w);
    } while (w !== v);
    if (part.length > 1) circles.push(part.sort());
  };
  for (const path of files.keys()) if (!index.has(path)) visit(path);
  return circles;
}

/** The circles of value imports in the project under `root`. */
export function projectCircles(root: string): string[][] {
  return valueImportCircles(new Map(sourceFiles(root).map((p) => [p, readFileSync(join(root, p), 'utf8')])));
}
