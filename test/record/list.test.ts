/**
 * The job listing's finished half on both stores: newest start first, ties on the start
 * broken by job id byte by byte (as the API's page token compares them, whatever the
 * database's collation), and keyset pages after a job's (startedAt, jobId).
 */
import { describe, expect, it } from 'vitest';
import { compareJobKeys, type JobKey } from '../../api/jobs/page-token';
import { recordJob } from '../record-jobs';
import { openFreshRecord, RECORD_STORES } from '../record-stores';

const TENANT = 'acme';
// ids whose byte order differs from a locale's: case, "-" against "_", digits against letters
const IDS = ['a-1', 'a_1', 'A1', 'b', 'B', 'a.1', 'a:1', '0x', 'Zz', 'zz'];

describe.each(RECORD_STORES)('record job listing on %s', (kind) => {
  const record = openFreshRecord(kind);

  it('pages over 30 jobs, three to a start instant, newest first, each once', async () => {
    const keys: JobKey[] = [];
    for (let n = 0; n < 30; n++) {
      const jobId = `${IDS[n % IDS.length]}-${Math.floor(n / IDS.length)}`;
      // three jobs share each start instant; archive order is not listing order
      const startedAt = Date.UTC(2026, 2, 1) + Math.floor(((n * 7) % 30) / 3) * 1000;
      await record.store.archive({ ...recordJob(TENANT, n), jobId, workflowId: `job/${TENANT}/${jobId}`, startedAt });
      keys.push({ startedAt, jobId });
    }
    await record.store.archive({ ...recordJob('other', 0), jobId: 'theirs', startedAt: Date.UTC(2026, 2, 1) });
    const expected = [...keys].sort(compareJobKeys).map((k) => k.jobId);

    const seen: string[] = [];
    let after: JobKey | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const rows = await record.store.listFinished(TENANT, { after, limit: 7 });
      seen.push(...rows.map((r) => r.job_id));
      if (rows.length < 7) break;
      const last = rows[rows.length - 1];
      after = { startedAt: Number(last.started_at), jobId: last.job_id };
    }
    expect(seen).toEqual(expected);
    expect((await record.store.listFinished(TENANT, { limit: 100, pattern: 'vote' })).map((r) => r.job_id)).toEqual(
      expected.filter((id) => keys.findIndex((k) => k.jobId === id) % 3 === 2),
    );
    expect(await record.store.archivedAmong(TENANT, ['a-1-0', 'theirs', 'nobody'])).toEqual(new Set(['a-1-0']));
  });
});
