/** Following the keys file: fs.watch on its directory, a stat as the fallback, a bad file kept out. */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/config';
import { hashKey, watchFile, watchTenants, type TenantDirectory } from '../../config/tenants';

const dirs: string[] = [];
const closers: { close(): void }[] = [];
afterEach(() => {
  for (const c of closers.splice(0)) c.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempFile = (content: string) => {
  const dir = mkdtempSync(join(tmpdir(), 'delegate-watch-'));
  dirs.push(dir);
  const path = join(dir, 'keys.json');
  writeFileSync(path, content);
  return path;
};
/** Resolves after `onChange` has been called `n` times, or rejects after `ms`. */
function counter() {
  let n = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  return {
    hit: () => {
      n += 1;
      for (const w of waiters) if (n >= w.n) w.resolve();
    },
    reaches: (want: number, ms = 5000) =>
      new Promise<void>((resolve, reject) => {
        if (n >= want) return resolve();
        waiters.push({ n: want, resolve });
        setTimeout(() => reject(new Error(`${n} changes seen, wanted ${want}`)), ms).unref();
      }),
    get count() {
      return n;
    },
  };
}
const keys = (...tenants: string[]) =>
  JSON.stringify({ tenants: tenants.map((tenant) => ({ tenant, keySha256: [hashKey(`${tenant}-key-0123456789abcdef`)] })) });

describe('watchFile', () => {
  it('sees a write in place and a file renamed over it (as deploy tools replace files)', async () => {
    const path = tempFile('a');
    const c = counter();
    closers.push(watchFile(path, c.hit, { settleMs: 50, intervalMs: 60_000 }));
    writeFileSync(path, 'bb');
    await c.reaches(1);
    writeFileSync(`${path}.tmp`, 'ccc');
    renameSync(`${path}.tmp`, path);
    await c.reaches(2);
  });

  it('sees a change by its stat alone where fs.watch says nothing', async () => {
    const path = tempFile('a');
    const c = counter();
    closers.push(watchFile(path, c.hit, { settleMs: 10, intervalMs: 100, fsWatch: false }));
    writeFileSync(path, 'changed');
    await c.reaches(1, 3000);
  });

  it('calls once for a burst of writes', async () => {
    const path = tempFile('a');
    const c = counter();
    closers.push(watchFile(path, c.hit, { settleMs: 150, intervalMs: 60_000 }));
    for (let i = 0; i < 5; i++) writeFileSync(path, 'x'.repeat(i + 2));
    await c.reaches(1);
    await new Promise((r) => setTimeout(r, 400));
    expect(c.count).toBe(1);
  });
});

describe('watchTenants', () => {
  it('hands over the new tenants after a change, and reports a file that does not load', async () => {
    const path = tempFile(keys('acme'));
    const seen: TenantDirectory[] = [];
    const errors: string[] = [];
    closers.push(
      watchTenants(
        loadConfig({ DELEGATE_API_KEYS_FILE: path }),
        (t) => seen.push(t),
        (e) => errors.push(e.message),
        { settleMs: 20, intervalMs: 100 },
      ),
    );
    writeFileSync(path, keys('acme', 'beta'));
    await expect.poll(() => seen.length, { timeout: 3000 }).toBe(1);
    expect(seen[0].list().map((t) => t.tenant)).toEqual(['acme', 'beta']);
    writeFileSync(path, '{"tenants": [');
    await expect.poll(() => errors.length, { timeout: 3000 }).toBe(1);
    expect(errors[0]).toMatch(/DELEGATE_API_KEYS_FILE/);
    expect(seen).toHaveLength(1);
  });
});
