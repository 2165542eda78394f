/**
 * The re-audit's critical finding, from the attacker's side: a tenant asks the scout for the
 * deployment's secrets (`.data/api-key`, the keys and agents files, `deploy/*.env`,
 * `.git/config`) and must get nothing of them, by scope, by path and by grep.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createScoutAgent } from '../../activities/agents/scout';
import { createSandbox, isDeniedPath, resolveScope } from '../../activities/scout/sandbox';
import { parseScoutRoots, scoutRoot } from '../../activities/scout/scout-root';
import type { ScoutAnswer } from '../../schemas/scout';
import { refusal, rejection, scoutStep } from './scout-tree';

const KEY = 'dlg_0123456789abcdef0123456789abcdef';
/** A working directory as `npm start` leaves it: the code, and the secrets beside it. */
const base = mkdtempSync(join(tmpdir(), 'scout-secrets-'));
const root = join(base, 'deployment');
for (const d of ['.data', '.git', 'deploy', 'src', 'keys']) mkdirSync(join(root, d), { recursive: true });
writeFileSync(join(root, '.data/api-key'), `${KEY}\n`);
writeFileSync(join(root, '.data/record.sqlite'), `tenant default ${KEY}\n`);
writeFileSync(join(root, '.env'), `DELEGATE_API_KEYS=default=${KEY}\n`);
writeFileSync(join(root, '.git/config'), `[remote] url = https://user:${KEY}@example.com/x\n`);
writeFileSync(join(root, 'keys.json'), JSON.stringify({ tenants: [{ tenant: 'default', keys: [KEY] }] }));
writeFileSync(join(root, 'agents.json'), JSON.stringify({ agents: [{ id: 'x', headers: { authorization: `Bearer ${KEY}` } }] }));
writeFileSync(join(root, 'deploy/worker.env'), `DELEGATE_METRICS_TOKEN=${KEY}\n`);
writeFileSync(join(root, 'keys/server.pem'), `-----BEGIN PRIVATE KEY----- ${KEY}\n`);
writeFileSync(join(root, 'src/app.ts'), 'export const dlgPrefix = "dlg_"; // where is dlg\n');
// a harmless-looking name that leads into .data
symlinkSync(join(root, '.data'), join(root, 'src', 'cache'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const scout = createScoutAgent({ rootFor: () => root });
const ask = (question: string, paths: string[]) => scout.step(scoutStep(question, paths));

describe('the scout never reads what the operator did not expose', () => {
  it('has no root unless one is configured: never the working directory', () => {
    expect(scoutRoot({})).toBeUndefined();
    expect(scoutRoot({ DELEGATE_SCOUT_ROOT: '/srv/code' })).toBe('/srv/code');
    expect(scoutRoot({ DELEGATE_SCOUT_ROOT: '/srv/code', DELEGATE_SCOUT_ROOTS: 'acme=/srv/acme, beta=/srv/beta' }, 'beta')).toBe(
      '/srv/beta',
    );
    expect(scoutRoot({ DELEGATE_SCOUT_ROOT: '/srv/code', DELEGATE_SCOUT_ROOTS: 'acme=/srv/acme' }, 'gamma')).toBe('/srv/code');
    expect(() => parseScoutRoots('acme=relative/dir')).toThrow(/DELEGATE_SCOUT_ROOTS: pair 1/);
  });

  it('a scout without a root refuses every call, saying what to configure', async () => {
    const off = createSandbox(undefined, ['.']);
    expect((await refusal(off.grep('dlg'))).message).toMatch(/no_root: .*DELEGATE_SCOUT_ROOT/);
    const err = await rejection(createScoutAgent({ rootFor: () => undefined }).step(scoutStep('where is dlg', ['.'], { stepKey: 'k#0' })));
    expect(err).toMatchObject({ type: 'InvalidInput', message: expect.stringContaining('DELEGATE_SCOUT_ROOT') });
  });

  it('refuses a scope on a dot-directory, a dotfile, a secret-bearing file, or a symlink into one', async () => {
    for (const p of [
      '.data',
      '.data/api-key',
      './.git/config',
      '.env',
      'keys.json',
      'agents.json',
      'deploy/worker.env',
      'keys/server.pem',
      'src/cache',
      'src/cache/api-key',
      join(root, '.data'),
    ]) {
      expect(await resolveScope(root, [p]), p).toMatchObject({ ok: false, index: 0, reason: 'path_denied' });
    }
    // a denied path does not learn whether it exists
    expect(await resolveScope(root, ['.nothing-here'])).toMatchObject({ ok: false, reason: 'path_denied' });
    expect(await resolveScope(root, ['src', 'deploy'])).toEqual({ ok: true, paths: ['src', 'deploy'] });
  });

  it('a job asking for .data is invalid input before anything is read', async () => {
    const err = await rejection(ask('where is dlg', ['.data']));
    expect(err).toMatchObject({ type: 'InvalidInput', message: expect.stringContaining('path_denied') });
  });

  it('"where is dlg" over the whole root finds the code and none of the secrets', async () => {
    const r = await ask('where is `dlg`', ['.']);
    const text = JSON.stringify(r);
    expect(text).not.toContain(KEY);
    expect((r.data as ScoutAnswer).findings.map((f) => f.file)).toEqual(['src/app.ts']);
  });

  it('read_file and grep deny secrets inside an allowed scope', async () => {
    const sb = createSandbox(root, ['.']);
    for (const p of ['.data/api-key', 'keys.json', 'deploy/worker.env', '.git/config', 'src/cache/api-key']) {
      expect((await refusal(sb.readFile(p))).code, p).toBe('denied');
    }
    expect((await refusal(sb.grep('dlg', { path: '.data' }))).code).toBe('denied');
    const all = await sb.grep(KEY.slice(0, 12), { literal: true });
    expect(all.matches).toEqual([]);
    expect((await sb.grep('dlg')).matches.map((m) => m.file)).toEqual(['src/app.ts']);
  });

  it('names the denied entries', () => {
    for (const p of [
      '.data',
      'a/.ssh/id_ed25519',
      'api-key',
      'keys.json',
      'agents.json',
      'agents.local.json',
      'deploy/api.env',
      'tls.key',
      'x/credentials',
      'secrets.yaml',
      'record.sqlite-wal',
      'temporal.db',
    ])
      expect(isDeniedPath(p), p).toBe(true);
    for (const p of ['.', 'src/app.ts', 'record/tokens.ts', 'test/webhook-secret.ts', 'docs/keys-and-tenants.md', '../x'])
      expect(isDeniedPath(p), p).toBe(false);
  });
});
