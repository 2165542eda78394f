/**
 * The record's hygiene queries (`delegate doctor`) on both stores: a tenant's orphaned scouts
 * (no feature, created before the cutoff) counted with the oldest, deleted for that tenant only;
 * scouts with a feature never; inbox items pending past their expiry counted.
 */
import { describe, expect, it } from 'vitest';
import { openFreshRecord, RECORD_STORES } from '../record-stores';

const DAY = 86_400_000;

describe.each(RECORD_STORES)('record hygiene on %s', (kind) => {
  const record = openFreshRecord(kind);
  const now = Date.now();
  const scout = (tenant: string, id: string, daysAgo: number, featureSlug: string | null) =>
    record.store.scouts.prepare(tenant, {
      id,
      parentAgent: 'a',
      parentSessionId: 's',
      featureSlug,
      question: 'where is x',
      scopePaths: ['src'],
      excerpt: 'why the scout went, long enough to pass as an excerpt of the parent session',
      createdAt: now - daysAgo * DAY,
    });

  it('counts, then deletes, only the tenant’s scouts without a feature older than the cutoff', async () => {
    await scout('t1', 'old-orphan', 120, null);
    await scout('t1', 'older-orphan', 150, null);
    await scout('t1', 'old-featured', 300, 'f');
    await scout('t1', 'young-orphan', 5, null);
    await scout('t2', 'other-tenant', 200, null);
    const before = now - 90 * DAY;
    expect(await record.store.hygiene.orphans('t1', before)).toEqual({ count: 2, oldestAt: Math.floor(now - 150 * DAY) });
    expect(await record.store.hygiene.deleteOrphans('t1', before)).toBe(2);
    expect(await record.store.hygiene.orphans('t1', before)).toEqual({ count: 0, oldestAt: null });
    for (const id of ['old-featured', 'young-orphan']) expect(await record.store.scouts.get('t1', id)).toBeDefined();
    expect(await record.store.scouts.get('t2', 'other-tenant')).toBeDefined();
  });

  it('counts inbox items still pending past their expiry', async () => {
    const item = (id: string, expiresAt: number) =>
      record.store.inbox.open({
        id,
        kind: 'approval',
        reason: 'before_start',
        tenant: 't1',
        jobId: 'j',
        workflowId: `job/t1/j/${id}`,
        labels: {},
        detail: {},
        onTimeout: 'fail',
        requestedAt: now - 2 * DAY,
        expiresAt,
      });
    await item('overdue', now - DAY);
    await item('waiting', now + DAY);
    expect(await record.store.hygiene.overdueItems('t1', now)).toBe(1);
    expect(await record.store.hygiene.overdueItems('t2', now)).toBe(0);
  });
});
