/**
 * SIGKILL the worker while it archives a job: mid-transaction (nothing committed) and
 * between the commit and the activity's completion (all committed, Temporal not told). Either
 * way a new worker finishes the job, and the record holds it exactly once.
 */
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import { openRecord, openRecordDb, type OpenRecord, type RecordLocation } from '../../record';
import { createDatabase, dropDatabase } from '../../scripts/postgres';
import { RECORD_STORES } from '../record-stores';
import { ChaosStack } from './harness';

describe.each(RECORD_STORES)('the record on %s', (kind) => {
  let stack: ChaosStack;
  let record: OpenRecord;
  let location: RecordLocation;
  const database = `chaos_archive_${process.pid}`;
  beforeAll(async () => {
    const recordUrl = kind === 'postgres' ? await createDatabase(inject('pgUrl'), database) : null;
    stack = await ChaosStack.start({ name: `archive-kill-${kind}`, workers: 0, recordUrl });
    location = { databaseUrl: recordUrl ?? undefined, sqliteFile: stack.recordFile };
    record = await openRecord(location);
  });
  afterAll(async () => {
    await record?.close();
    await stack?.stop();
    if (kind === 'postgres') await dropDatabase(inject('pgUrl'), database);
  });

  /** Rows of the job in each table of the record. */
  async function rowsOf(jobId: string) {
    const { db, close } = await openRecordDb(location);
    try {
      const jobs = await db.selectFrom('jobs').select(['id', 'archived_at']).where('job_id', '=', jobId).execute();
      const ids = jobs.map((j) => j.id);
      const count = async (table: 'job_subtasks' | 'job_labels' | 'job_agents') =>
        ids.length ? (await db.selectFrom(table).select('job').where('job', 'in', ids).execute()).length : 0;
      return { jobs, subtasks: await count('job_subtasks'), labels: await count('job_labels'), agents: await count('job_agents') };
    } finally {
      await close();
    }
  }

  /** Waits until the job's archive activity has started (its worker holds it). */
  async function archiveStarted(jobId: string): Promise<void> {
    const client = await stack.client();
    const handle = client.workflow.getHandle(`job/default/${jobId}`);
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const d = await handle.describe();
      const pending = d.raw.pendingActivities ?? [];
      if (pending.some((a) => a.activityType?.name === 'archiveJob' && a.lastStartedTime)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`archive of ${jobId} never started`);
  }

  const spec = (jobId: string) => ({
    jobId,
    pattern: 'fanout',
    labels: { feature: 'chaos' },
    tasks: [1, 2, 3].map((i) => ({ id: `t${i}`, question: `question ${i}`, agent: 'sim', params: { answer: { i } } })),
  });

  it.each([
    ['mid-transaction', 'DELEGATE_CHAOS_ARCHIVE_HOLD_MS', false],
    ['after the commit, before Temporal heard of it', 'DELEGATE_CHAOS_ARCHIVE_HOLD_AFTER_MS', true],
  ] as const)('keeps one record when the worker dies %s', async (_when, hold, committed) => {
    const jobId = `archive-kill-${committed ? 'after-commit' : 'mid-write'}`;
    await stack.startWorker(0, { [hold]: '60000' });
    onTestFinished(() => stack.killWorker(0, 'SIGKILL'));
    expect((await stack.submit(spec(jobId))).status).toBe(201);
    await archiveStarted(jobId);
    // inside the hold: the transaction is open (nothing visible), or committed (all of it)
    await new Promise((r) => setTimeout(r, 1000));
    const atKill = await rowsOf(jobId);
    expect(atKill.jobs).toHaveLength(committed ? 1 : 0);
    await stack.killWorker(0, 'SIGKILL');

    await stack.startWorker(0);
    const result = await stack.waitResult(jobId, 120_000);
    expect(result.results.map((r) => r.id)).toEqual(['t1', 't2', 't3']);
    const after = await rowsOf(jobId);
    expect(after.jobs).toHaveLength(1);
    expect(after).toMatchObject({ subtasks: 3, labels: 1, agents: 1 });
    // the committed record was not written again
    if (committed) expect(after.jobs[0]!.archived_at).toBe(atKill.jobs[0]!.archived_at);
    expect((await record.store.get('default', jobId))?.result).toEqual(result);
  });
});
