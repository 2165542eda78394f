/** A copy of test/fixtures/scout-tree in a temporary directory, with symlinks made at runtime (never committed). */
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The fixture tree's path in the repository. */
export const FIXTURE_TREE = join(import.meta.dirname, '../fixtures/scout-tree');

/** A tree to scout: `root` holds the fixture plus `src/escape` → a secret outside it; `outside` is that secret's directory. */
export function scoutTree(): { root: string; outside: string; cleanup(): void } {
  const base = mkdtempSync(join(tmpdir(), 'scout-tree-'));
  const root = join(base, 'project');
  const outside = join(base, 'outside');
  cpSync(FIXTURE_TREE, root, { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.ts'), 'export const computeBackoffSecret = "do not read";\n');
  symlinkSync(outside, join(root, 'src', 'escape'));
  symlinkSync(join(outside, 'secret.ts'), join(root, 'src', 'secret-link.ts'));
  // a symlink that stays inside: allowed
  symlinkSync(join(root, 'src', 'lib'), join(root, 'lib-link'));
  return { root, outside, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}
