/**
 * The deployment's identity and the completion webhooks' secrets in the record, on both stores:
 * one id per record, the same for every process that opens it; callbacks found by reference
 * and tenant only, gone with their job's retention.
 */
import { describe, expect, it } from 'vitest';
import { deploymentOfIdentity, workerIdentity } from '../../config/deployment';
import { createRecordStore, openRecordDb } from '../../record';
import { recordJob } from '../record-jobs';
import { freshRecordLocation, openFreshRecord, RECORD_STORES } from '../record-stores';

describe.each(RECORD_STORES)('deployment id and callbacks on %s', (kind) => {
  const record = openFreshRecord(kind);

  it('gives a record one deployment id, the same when opened again, another record another', async () => {
    const id = await record.store.deploymentId();
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(deploymentOfIdentity(workerIdentity(id, 1, 'host'))).toBe(id);
    const again = await openRecordDb(record.location);
    try {
      expect(await createRecordStore(again).deploymentId()).toBe(id);
    } finally {
      await again.close();
    }
    const other = await openRecordDb(await freshRecordLocation(kind));
    try {
      expect(await createRecordStore(other).deploymentId()).not.toBe(id);
    } finally {
      await other.close();
    }
  });

  it('keeps a callback under a random reference, for its tenant only, and drops it', async () => {
    const c = { tenant: 'a', jobId: 'j1', url: 'https://hooks.example/x?key=s3cret', format: 'a2a' as const, token: 'tok' };
    const ref = await record.store.callbacks.put(c);
    expect(ref).toMatch(/^cb_[0-9a-f]{32}$/);
    expect(ref).not.toContain('j1');
    expect(await record.store.callbacks.put(c)).not.toBe(ref);
    expect(await record.store.callbacks.get(ref, 'a')).toEqual(c);
    expect(await record.store.callbacks.get(ref, 'b')).toBeUndefined();
    const plain = await record.store.callbacks.put({ tenant: 'a', jobId: 'j2', url: 'https://hooks.example/y', format: 'delegate' });
    expect(await record.store.callbacks.get(plain, 'a')).toEqual({
      tenant: 'a',
      jobId: 'j2',
      url: 'https://hooks.example/y',
      format: 'delegate',
    });
    await record.store.callbacks.drop(ref);
    expect(await record.store.callbacks.get(ref, 'a')).toBeUndefined();
  });

  it("goes with its job when the job's record is pruned; one whose job was never archived after a year", async () => {
    const job = recordJob('p', 1);
    await record.store.archive(job);
    const ref = await record.store.callbacks.put({ tenant: 'p', jobId: job.jobId, url: 'https://hooks.example/p', format: 'delegate' });
    const orphan = await record.store.callbacks.put({
      tenant: 'p',
      jobId: 'never-archived',
      url: 'https://hooks.example/o',
      format: 'delegate',
    });
    const recent = await record.store.callbacks.put({ tenant: 'p', jobId: 'running', url: 'https://hooks.example/r', format: 'delegate' });
    await record.db.db
      .updateTable('job_callbacks')
      .set({ created_at: Date.now() - 400 * 86_400_000 })
      .where('ref', '=', orphan)
      .execute();
    expect(await record.store.prune({ before: job.closedAt + 1, keepLabels: [], dryRun: true })).toMatchObject({ jobs: 1 });
    expect(await record.store.callbacks.get(ref, 'p')).toBeDefined();
    await record.store.prune({ before: job.closedAt + 1, keepLabels: [], dryRun: false });
    expect(await record.store.callbacks.get(ref, 'p')).toBeUndefined();
    expect(await record.store.callbacks.get(orphan, 'p')).toBeUndefined();
    expect(await record.store.callbacks.get(recent, 'p')).toBeDefined();
  });
});
