/**
 * The record's archive and reads, on both stores: a job is written once and read back whole,
 * a failed or repeated archive writes nothing, and a tenant sees only its own jobs.
 */
import { describe, expect, it } from 'vitest';
import { recordJob } from '../record-jobs';
import { openFreshRecord, RECORD_STORES } from '../record-stores';
import { rowCounts } from './reference';

describe.each(RECORD_STORES)('record store on %s', (kind) => {
  const record = openFreshRecord(kind);

  it('reads an archived job back whole: result (key order too), labels, spec hash, times', async () => {
    // 0: fanout with objective; 1: pipeline with budget, no objective; 2: vote block; 3: no spec hash
    for (const i of [0, 1, 2, 3]) {
      const job = recordJob('round-trip', i);
      const { created, bytes } = await record.store.archive(job);
      expect(created).toBe(true);
      expect(bytes).toBeGreaterThan(JSON.stringify(job.result.results).length);
      const got = await record.store.get('round-trip', job.jobId);
      expect(got).toEqual({
        tenant: job.tenant,
        jobId: job.jobId,
        workflowId: job.workflowId,
        specHash: job.specHash,
        startedAt: job.startedAt,
        closedAt: job.closedAt,
        labels: job.labels,
        result: job.result,
      });
      expect(JSON.stringify(got!.result)).toBe(JSON.stringify(job.result));
      expect(typeof got!.startedAt).toBe('number');
      expect(await record.store.specHashOf('round-trip', job.jobId)).toEqual({ specHash: job.specHash });
    }
    expect(await record.store.get('round-trip', 'job-404')).toBeUndefined();
    expect(await record.store.specHashOf('round-trip', 'job-404')).toBeUndefined();
  });

  it('a second archive of the same job returns created: false and writes no row anywhere', async () => {
    const job = recordJob('twice', 5);
    expect((await record.store.archive(job)).created).toBe(true);
    const before = await rowCounts(record.db);
    // even with another result: the first one stands
    const other = recordJob('twice', 6);
    expect(await record.store.archive({ ...other, jobId: job.jobId })).toEqual({ created: false, bytes: 0 });
    expect(await record.store.archive(job)).toEqual({ created: false, bytes: 0 });
    expect(await rowCounts(record.db)).toEqual(before);
    expect((await record.store.get('twice', job.jobId))!.result).toEqual(job.result);
  });

  it('two archives of one job at once: one writes it, the other writes nothing', async () => {
    const job = recordJob('race', 7);
    const before = await rowCounts(record.db);
    const outcomes = await Promise.all([record.store.archive(job), record.store.archive(job), record.store.archive(job)]);
    expect(outcomes.map((o) => o.created).sort()).toEqual([false, false, true]);
    const after = await rowCounts(record.db);
    expect(after.jobs - before.jobs).toBe(1);
    expect(after.job_subtasks - before.job_subtasks).toBe(job.result.results.length);
  });

  it('a throw before commit leaves no row at all, and a retry then writes the job', async () => {
    const job = recordJob('rollback', 9);
    const before = await rowCounts(record.db);
    let ran = false;
    await expect(
      record.store.archive(job, async () => {
        ran = true;
        throw new Error('worker died mid-write');
      }),
    ).rejects.toThrow('worker died mid-write');
    expect(ran).toBe(true);
    expect(await rowCounts(record.db)).toEqual(before);
    expect(await record.store.get('rollback', job.jobId)).toBeUndefined();
    expect((await record.store.search('rollback', { text: 'what', limit: 10 })).reports).toEqual([]);
    expect((await record.store.archive(job)).created).toBe(true);
    expect((await record.store.get('rollback', job.jobId))!.result).toEqual(job.result);
  });

  it("a tenant sees none of another tenant's jobs, even under the same job id", async () => {
    const mine = recordJob('tenant-a', 11);
    await record.store.archive(mine);
    const period = [mine.closedAt - 1, mine.closedAt + 1] as const;
    // another tenant reads nothing
    expect(await record.store.get('tenant-b', mine.jobId)).toBeUndefined();
    expect(await record.store.specHashOf('tenant-b', mine.jobId)).toBeUndefined();
    expect(await record.store.search('tenant-b', { limit: 50 })).toEqual({ reports: [], nextCursor: null });
    expect((await record.store.search('tenant-b', { text: 'what', label: ['team=payments'], limit: 50 })).reports).toEqual([]);
    expect(await record.store.listFinished('tenant-b', { limit: 50 })).toEqual([]);
    const empty = await record.store.summary('tenant-b', ...period);
    expect(empty).toMatchObject({
      jobs: 0,
      subtasks: 0,
      spend: { costUsd: 0, tokens: 0, toolCalls: 0 },
      byStatus: [],
      byAgent: [],
      topLabels: [],
    });
    // and may archive its own job under the same id without touching the first
    const theirs = { ...recordJob('tenant-b', 12), jobId: mine.jobId };
    expect((await record.store.archive(theirs)).created).toBe(true);
    expect((await record.store.get('tenant-a', mine.jobId))!.result).toEqual(mine.result);
    expect((await record.store.get('tenant-b', mine.jobId))!.result).toEqual(theirs.result);
    expect((await record.store.summary('tenant-a', ...period)).jobs).toBe(1);
    expect((await record.store.search('tenant-a', { limit: 50 })).reports.map((r) => r.jobId)).toEqual([mine.jobId]);
  });

  it('archives texts PostgreSQL cannot keep as they are (NUL, lone surrogates, huge words), whole and searchable', async () => {
    const job = recordJob('odd-text', 30);
    job.objective = 'objective with a \u0000 NUL';
    job.result.results[0].summary = `agent wrote \u0000 a NUL, a lone \uD800 surrogate and ${'y'.repeat(3000)} plus café \u{1F600}`;
    expect((await record.store.archive(job)).created).toBe(true);
    const got = await record.store.get('odd-text', job.jobId);
    // the result is JSON: it keeps every character
    expect(JSON.stringify(got!.result)).toBe(JSON.stringify(job.result));
    const find = async (text: string) => (await record.store.search('odd-text', { text, limit: 5 })).reports.map((r) => r.jobId);
    expect(await find('nul surrogate')).toEqual([job.jobId]);
    // PostgreSQL indexes no word over 2047 bytes: both stores cut it, so both find it by any prefix
    expect(await find('y'.repeat(10))).toEqual([job.jobId]);
    expect(await find('y'.repeat(2500))).toEqual([job.jobId]);
    const [hit] = (await record.store.search('odd-text', { limit: 5 })).reports;
    expect(hit.objective).toBe('objective with a  NUL');
    expect(hit.digest).toContain('agent wrote  a NUL');
  });

  it('lists finished jobs newest start first, by pattern, status and label', async () => {
    const jobs = [20, 21, 22, 23, 24, 25].map((i) => recordJob('listing', i));
    for (const j of jobs) await record.store.archive(j);
    const ids = (rows: { job_id: string }[]) => rows.map((r) => r.job_id);
    const byStart = [...jobs].sort((a, b) => b.startedAt - a.startedAt).map((j) => j.jobId);
    expect(ids(await record.store.listFinished('listing', { limit: 10 }))).toEqual(byStart);
    expect(ids(await record.store.listFinished('listing', { limit: 2 }))).toEqual(byStart.slice(0, 2));
    const vote = jobs.filter((j) => j.result.pattern === 'vote').map((j) => j.jobId);
    expect(ids(await record.store.listFinished('listing', { pattern: 'vote', limit: 10 })).sort()).toEqual(vote.sort());
    const team = jobs.filter((j) => j.labels!.team === 'growth' && j.result.status === 'success').map((j) => j.jobId);
    expect(ids(await record.store.listFinished('listing', { status: 'success', label: ['team=growth'], limit: 10 })).sort()).toEqual(
      team.sort(),
    );
  });
});
