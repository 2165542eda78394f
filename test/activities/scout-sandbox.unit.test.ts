import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandbox, resolveScope } from '../../activities/scout/sandbox';
import { refusal, scoutTree } from './scout-tree';

const tree = scoutTree();
afterAll(() => tree.cleanup());

describe('resolveScope', () => {
  it('resolves paths inside the root to relative posix paths, the root itself as "."', async () => {
    expect(await resolveScope(tree.root, ['src', './docs/notes.md', join(tree.root, 'src/lib'), '.', 'src/../src'])).toEqual({
      ok: true,
      paths: ['src', 'docs/notes.md', 'src/lib', '.'],
    });
  });

  it('follows a symlink that stays inside to its real place', async () => {
    expect(await resolveScope(tree.root, ['lib-link'])).toEqual({ ok: true, paths: ['src/lib'] });
  });

  it('refuses ../, an absolute path outside and a symlink escape with path_outside_root, naming the index', async () => {
    expect(await resolveScope(tree.root, ['src', '../outside'])).toEqual({
      ok: false,
      index: 1,
      path: '../outside',
      reason: 'path_outside_root',
    });
    expect(await resolveScope(tree.root, [tree.outside])).toEqual({ ok: false, index: 0, path: tree.outside, reason: 'path_outside_root' });
    expect(await resolveScope(tree.root, ['/etc'])).toMatchObject({ ok: false, reason: 'path_outside_root' });
    expect(await resolveScope(tree.root, ['src/escape'])).toEqual({ ok: false, index: 0, path: 'src/escape', reason: 'path_outside_root' });
    expect(await resolveScope(tree.root, ['src/secret-link.ts'])).toMatchObject({ ok: false, reason: 'path_outside_root' });
  });

  it('says not_found for a missing path inside, and path_outside_root (not not_found) for a missing one outside', async () => {
    expect(await resolveScope(tree.root, ['src/nope.ts'])).toEqual({ ok: false, index: 0, path: 'src/nope.ts', reason: 'not_found' });
    expect(await resolveScope(tree.root, ['../nope'])).toMatchObject({ ok: false, reason: 'path_outside_root' });
  });
});

describe('the sandbox', () => {
  it('reads a window of lines of a file in scope and records it as inspected', async () => {
    const sb = createSandbox(tree.root, ['src']);
    const r = await sb.readFile('src/lib/backoff.ts', { offset: 8, limit: 2 });
    expect(r).toMatchObject({ file: 'src/lib/backoff.ts', startLine: 8, totalLines: 12, truncated: true });
    expect(r.lines).toEqual([
      'export function computeBackoff(attempt: number, opts: BackoffOptions): number {',
      '  const delay = opts.baseMs * 2 ** attempt;',
    ]);
    expect(sb.inspected()).toEqual(['src/lib/backoff.ts']);
  });

  it('refuses files outside the scope, outside the root, and symlinks leading out, without reading them', async () => {
    const sb = createSandbox(tree.root, ['src']);
    expect((await refusal(sb.readFile('docs/notes.md'))).code).toBe('outside_scope');
    expect((await refusal(sb.readFile('../outside/secret.ts'))).code).toBe('outside_scope');
    expect((await refusal(sb.readFile(join(tree.outside, 'secret.ts')))).code).toBe('outside_scope');
    expect((await refusal(sb.readFile('src/secret-link.ts'))).code).toBe('outside_scope');
    expect((await refusal(sb.readFile('src/escape/secret.ts'))).code).toBe('outside_scope');
    expect((await refusal(sb.readFile('src/missing.ts'))).code).toBe('not_found');
    expect(sb.inspected()).toEqual([]);
  });

  it('re-checks symlinks when it reads: a link swapped in after the scope was checked is refused', async () => {
    const sb = createSandbox(tree.root, ['docs']);
    await sb.scope();
    symlinkSync(join(tree.outside, 'secret.ts'), join(tree.root, 'docs', 'late-link.md'));
    expect((await refusal(sb.readFile('docs/late-link.md'))).code).toBe('outside_scope');
    expect((await sb.grep('do not read')).matches).toEqual([]);
  });

  it('greps the scope with file, line and text, skipping escaping symlinks, binaries and node_modules', async () => {
    writeFileSync(
      join(tree.root, 'src', 'blob.bin'),
      Buffer.from([0x63, 0x6f, 0x6d, 0, 0x70, 0x75, 0x74, 0x65, 0x42, 0x61, 0x63, 0x6b, 0x6f, 0x66, 0x66, 0x28]),
    );
    mkdirSync(join(tree.root, 'src', 'node_modules'), { recursive: true });
    writeFileSync(join(tree.root, 'src', 'node_modules', 'dep.ts'), 'computeBackoff(1)\n');
    const sb = createSandbox(tree.root, ['src']);
    const r = await sb.grep('computeBackoff\\(');
    expect(r.truncated).toBe(false);
    expect(r.matches).toEqual([
      { file: 'src/client.ts', line: 12, text: '      await new Promise((r) => setTimeout(r, computeBackoff(attempt, defaults)));' },
      { file: 'src/lib/backoff.ts', line: 8, text: 'export function computeBackoff(attempt: number, opts: BackoffOptions): number {' },
    ]);
    // the secret behind src/escape and src/secret-link.ts also says computeBackoff: never found
    expect((await sb.grep('computeBackoffSecret')).matches).toEqual([]);
  });

  it('takes a literal when the pattern is not a regex, ignores case on request, caps results and confines `path`', async () => {
    const sb = createSandbox(tree.root, ['src', 'docs']);
    expect((await sb.grep('computeBackoff(attempt')).matches.map((m) => m.line)).toEqual([12, 8]);
    expect((await sb.grep('COMPUTEBACKOFF', { ignoreCase: true, path: 'docs' })).matches).toHaveLength(1);
    expect(await sb.grep('attempt', { maxResults: 2 })).toMatchObject({ truncated: true, matches: [{}, {}] });
    expect((await refusal(sb.grep('x', { path: '../outside' }))).code).toBe('outside_scope');
  });

  it('refuses every call when the scope itself is outside the root', async () => {
    const sb = createSandbox(tree.root, ['../outside']);
    expect((await refusal(sb.grep('x'))).message).toMatch(/path_outside_root/);
    expect((await refusal(sb.readFile('src/client.ts'))).code).toBe('outside_scope');
  });
});
