/**
 * Pruning the record by age: every tenant's jobs finished before a cutoff go (their child rows
 * by cascade, their live events and webhook secrets with them), except jobs that carry a
 * keep-label; then the rows that name no content and no running job can still need.
 *
 *   doomed jobs ── dry run: count + list ── or, in batches (a transaction each):
 *                  job_events, job_callbacks, job_specs, jobs (labels, agents, subtasks, roles by cascade; FTS by trigger)
 *   then ── orphaned callbacks, origins and sessions (366 days) ── task statistics past every window
 */
import type { RecordDb } from './db';
import { createCallbacks } from './callbacks';
import { createParentSessions } from './parent-sessions';
import { createJobSpecs } from './job-specs';
import { createResultCache } from './result-cache';
import { createTaskStats, DAY_MS, STATS_MAX_DAYS } from './task-stats';

/** What pruning did (or, dry, would do). */
export interface PruneOutcome {
  dryRun: boolean;
  /** Jobs deleted, or that a dry run would delete. */
  jobs: number;
  /** The first of them (at most 1000), oldest first. */
  listed: { tenant: string; jobId: string; closedAt: string }[];
  /** Scouts without a feature older than SCOUT_RETENTION_DAYS deleted (or that a dry run would delete). */
  scouts?: number;
}

/** Jobs a dry run lists. */
const PRUNE_LISTED = 1000;
/**
 * Rows named by (tenant, job_id) that go with a pruned job: its live events, its webhook secrets
 * (its webhook was sent when it finished), and the spec it was submitted with (replays of it can
 * no longer be made).
 */
const GO_WITH_JOB = ['job_events', 'job_callbacks', 'job_specs'] as const;
/** Past this age a callback's job has ended, whatever its maximum duration (DELEGATE_JOB_MAX_SECONDS is at most 365 days). */
const CALLBACK_MAX_AGE_MS = 366 * DAY_MS;

/** The record's pruning, over an open database (part of `createRecordStore`). */
export function createJobPrune(rdb: RecordDb) {
  const { db } = rdb;
  return {
    /**
     * Deletes (or, dry, lists) every tenant's jobs finished before `before`, except those
     * with a label key in `keepLabels`; in batches, each its own transaction, `onBatch` after each.
     */
    async prune(o: {
      before: number;
      keepLabels: string[];
      dryRun: boolean;
      batch?: number;
      onBatch?: (deleted: number) => void;
    }): Promise<PruneOutcome> {
      const batch = o.batch ?? 500;
      const doomed = () => {
        let q = db.selectFrom('jobs').where('closed_at', '<', o.before);
        if (o.keepLabels.length) {
          q = q.where((eb) =>
            eb.not(
              eb.exists(
                eb.selectFrom('job_labels').select('job').whereRef('job_labels.job', '=', 'jobs.id').where('key', 'in', o.keepLabels),
              ),
            ),
          );
        }
        return q;
      };
      const listed = (
        await doomed().select(['tenant', 'job_id', 'closed_at']).orderBy('closed_at').orderBy('id').limit(PRUNE_LISTED).execute()
      ).map((r) => ({ tenant: r.tenant, jobId: r.job_id, closedAt: new Date(r.closed_at).toISOString() }));
      if (o.dryRun) {
        const { jobs } = await doomed()
          .select((eb) => eb.fn.countAll<number>().as('jobs'))
          .executeTakeFirstOrThrow();
        return { dryRun: true, jobs: Number(jobs), listed };
      }
      let deleted = 0;
      for (;;) {
        const rows = await doomed().select(['id', 'tenant', 'job_id']).orderBy('closed_at').orderBy('id').limit(batch).execute();
        const ids = rows.map((r) => r.id);
        if (!ids.length) break;
        // child rows go with their job (ON DELETE CASCADE), the FTS index through its trigger, the rest here
        await db.transaction().execute(async (trx) => {
          for (const table of GO_WITH_JOB)
            await trx
              .deleteFrom(table)
              .where((eb) => eb.or(rows.map((r) => eb.and([eb('tenant', '=', r.tenant), eb('job_id', '=', r.job_id)]))))
              .execute();
          await trx.deleteFrom('jobs').where('id', 'in', ids).execute();
        });
        deleted += ids.length;
        o.onBatch?.(deleted);
      }
      // callbacks whose job was never archived (its archive failed): once no job can still be running
      await createCallbacks(rdb).prune(Date.now() - CALLBACK_MAX_AGE_MS);
      // origins and sessions name no content: kept as long as a running job may still need them
      await createParentSessions(rdb).prune(Date.now() - CALLBACK_MAX_AGE_MS);
      // specs of jobs never archived (their archive failed), on the same terms
      await createJobSpecs(rdb).prune(Date.now() - CALLBACK_MAX_AGE_MS);
      // cached results go when they expire, whatever the jobs' retention (a cache row is its own copy)
      await createResultCache(rdb).prune();
      // statistics hold no content: they go when no window can reach them, whatever the jobs' retention
      await createTaskStats(rdb).prune(Date.now() - STATS_MAX_DAYS * DAY_MS);
      return { dryRun: false, jobs: deleted, listed };
    },
  };
}
