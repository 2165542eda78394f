/**
 * The identical-subtask cache in the record, on both stores: a success found by tenant and key
 * until it expires, never by another tenant, a newer success replacing the row, and pruning
 * deleting only what expired.
 */
import { describe, expect, it } from 'vitest';
import { taskResult } from '../task-result';
import { openFreshRecord, RECORD_STORES } from '../record-stores';

describe.each(RECORD_STORES)('result cache on %s', (kind) => {
  const record = openFreshRecord(kind);
  const now = 1_800_000_000_000;

  it('finds a success by tenant and key until it expires, and never for another tenant', async () => {
    const cache = record.store.resultCache;
    await cache.put({ tenant: 'acme', key: 'k1', jobId: 'job-1', taskId: 't1', result: taskResult('t1', { a: 1 }), ttlSeconds: 60, now });
    const hit = await cache.get('acme', 'k1', now + 59_000);
    expect(hit).toMatchObject({ jobId: 'job-1', taskId: 't1', createdAt: now, result: { id: 't1', data: { a: 1 } } });
    expect(await cache.get('other', 'k1', now)).toBeUndefined();
    expect(await cache.get('acme', 'k2', now)).toBeUndefined();
    expect(await cache.get('acme', 'k1', now + 60_000)).toBeUndefined();
  });

  it('replaces a key’s row with a newer success (and its expiry)', async () => {
    const cache = record.store.resultCache;
    await cache.put({ tenant: 'acme', key: 'k3', jobId: 'job-1', taskId: 't1', result: taskResult('t1', 1), ttlSeconds: 10, now });
    await cache.put({
      tenant: 'acme',
      key: 'k3',
      jobId: 'job-2',
      taskId: 't9',
      result: taskResult('t9', 2),
      ttlSeconds: 100,
      now: now + 5000,
    });
    expect(await cache.get('acme', 'k3', now + 50_000)).toMatchObject({ jobId: 'job-2', taskId: 't9', result: { data: 2 } });
  });

  it('prunes the expired rows only', async () => {
    const cache = record.store.resultCache;
    await cache.put({ tenant: 'beta', key: 'old', jobId: 'j', taskId: 't', result: taskResult('t', 0), ttlSeconds: 1, now });
    await cache.put({ tenant: 'beta', key: 'new', jobId: 'j', taskId: 't', result: taskResult('t', 0), ttlSeconds: 3600, now });
    expect(await cache.prune(now + 2000)).toBeGreaterThanOrEqual(1);
    expect(await cache.get('beta', 'new', now + 2000)).toBeDefined();
    expect(await cache.prune(now + 2000)).toBe(0);
  });
});
