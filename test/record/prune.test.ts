/**
 * Pruning the record, on both stores: jobs older than the cutoff go (with their child rows
 * and their free-text entries) unless they carry a keep-label; a dry run only lists.
 */
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ArchiveInput } from '../../record';
import { closedAtOf, recordJob } from '../record-jobs';
import { openFreshRecord, RECORD_STORES } from '../record-stores';
import { childRowsOf, ftsRowIds, rowCounts, rowIdOf } from './reference';

const KEEP = ['feature', 'retain'];
/** Older than this: jobs 0–11 (11 closes with 10). */
const CUTOFF = closedAtOf(12);

/** Job `i` of `tenant`, findable by a word of its own (`m<i><tenant>`). */
const job = (tenant: string, i: number): ArchiveInput => {
  const j = recordJob(tenant, i);
  return { ...j, questions: [...(j.questions ?? []), `marker m${i}${tenant}`] };
};

describe.each(RECORD_STORES)('record prune on %s', (kind) => {
  const record = openFreshRecord(kind);
  const archived: ArchiveInput[] = [];
  /** Jobs older than the cutoff with neither keep-label, oldest first (closing time, then archive order). */
  let doomed: ArchiveInput[];

  beforeAll(async () => {
    for (let i = 0; i < 20; i++) archived.push(job('a', i));
    for (const i of [1, 2, 5, 9, 13]) archived.push(job('b', i));
    for (const j of archived) {
      await record.store.archive(j);
      await record.store.events.append(j.tenant, j.jobId, [
        { key: 'job.finished', type: 'job.finished', data: { status: j.result.status } },
      ]);
    }
    doomed = archived
      .map((j, pos) => ({ j, pos }))
      .filter(({ j }) => j.closedAt < CUTOFF && !KEEP.some((k) => k in (j.labels ?? {})))
      .sort((x, y) => x.j.closedAt - y.j.closedAt || x.pos - y.pos)
      .map(({ j }) => j);
  });

  it('a dry run lists and counts what would go, and deletes nothing', async () => {
    // without a feature or retain label and older than the cutoff: jobs 1, 5, 9 of both tenants
    expect(doomed.map((j) => `${j.tenant}/${j.jobId}`).sort()).toEqual(['a/job-1', 'a/job-5', 'a/job-9', 'b/job-1', 'b/job-5', 'b/job-9']);
    const before = await rowCounts(record.db);
    let batches = 0;
    const dry = await record.store.prune({ before: CUTOFF, keepLabels: KEEP, dryRun: true, batch: 3, onBatch: () => batches++ });
    expect(dry).toEqual({
      dryRun: true,
      jobs: 6,
      listed: doomed.map((j) => ({ tenant: j.tenant, jobId: j.jobId, closedAt: new Date(j.closedAt).toISOString() })),
    });
    expect(batches).toBe(0);
    expect(await rowCounts(record.db)).toEqual(before);
    for (const j of doomed) expect(await record.store.get(j.tenant, j.jobId)).toBeDefined();
  });

  it('deletes old jobs without a keep-label, their child rows and free-text entries, in batches', async () => {
    const ids = await Promise.all(doomed.map((j) => rowIdOf(record.db, j.tenant, j.jobId)));
    expect(await childRowsOf(record.db, ids as number[])).toBeGreaterThan(0);
    for (const j of doomed)
      expect((await record.store.search(j.tenant, { text: `m${j.jobId.slice(4)}${j.tenant}`, limit: 5 })).reports).toHaveLength(1);
    const before = await rowCounts(record.db);
    const batches: number[] = [];
    const out = await record.store.prune({ before: CUTOFF, keepLabels: KEEP, dryRun: false, batch: 3, onBatch: (n) => batches.push(n) });
    expect(out).toMatchObject({ dryRun: false, jobs: 6 });
    expect(batches).toEqual([3, 6]);
    const after = await rowCounts(record.db);
    expect(after.jobs).toBe(before.jobs - 6);
    if (kind === 'sqlite') expect(after.jobs_fts_docsize).toBe(before.jobs_fts_docsize - 6);
    expect(await childRowsOf(record.db, ids as number[])).toBe(0);
    for (const j of doomed) {
      const word = `m${j.jobId.slice(4)}${j.tenant}`;
      expect(await record.store.get(j.tenant, j.jobId)).toBeUndefined();
      expect((await record.store.search(j.tenant, { text: word, limit: 5 })).reports).toEqual([]);
      // the index itself forgot it (a stale entry would be filtered out of searches, not gone)
      if (kind === 'sqlite') expect(await ftsRowIds(record.db, word)).toEqual([]);
    }
    // and their live events; every other job is whole, events too, kept ones older than the cutoff included
    for (const j of doomed) expect(await record.store.events.after(j.tenant, j.jobId, 0)).toEqual([]);
    for (const j of archived.filter((x) => !doomed.includes(x))) {
      expect((await record.store.get(j.tenant, j.jobId))!.result).toEqual(j.result);
      expect((await record.store.events.after(j.tenant, j.jobId, 0)).map((e) => e.type)).toEqual(['job.finished']);
    }
    expect((await record.store.search('a', { text: 'm0a', limit: 5 })).reports.map((r) => r.jobId)).toEqual(['job-0']);
    // nothing left to prune
    const again = await record.store.prune({ before: CUTOFF, keepLabels: KEEP, dryRun: false, batch: 3, onBatch: (n) => batches.push(n) });
    expect(again).toEqual({ dryRun: false, jobs: 0, listed: [] });
    expect(batches).toEqual([3, 6]);
  });

  it('with no keep-labels and a cutoff after everything, empties the record', async () => {
    const left = (await rowCounts(record.db)).jobs;
    const batches: number[] = [];
    const out = await record.store.prune({
      before: closedAtOf(100),
      keepLabels: [],
      dryRun: false,
      batch: 3,
      onBatch: (n) => batches.push(n),
    });
    expect(out.jobs).toBe(left);
    expect(batches.at(-1)).toBe(left);
    expect(batches).toHaveLength(Math.ceil(left / 3));
    expect(Object.values(await rowCounts(record.db)).every((n) => n === 0)).toBe(true);
    if (kind === 'sqlite') {
      // FTS5's own check: the index matches its content table (now empty)
      await expect(sql.raw("INSERT INTO jobs_fts(jobs_fts) VALUES ('integrity-check')").execute(record.db.db)).resolves.toBeDefined();
    }
  });
});
