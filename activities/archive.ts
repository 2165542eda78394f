/**
 * The record's activities: archiving a finished root job (the job runs it before it
 * completes: no job is reported finished without its record) and pruning old records (the
 * prune schedule's workflow runs it).
 *
 * Archiving is idempotent: a retry after a worker died mid-write finds either nothing (the
 * transaction rolled back) or the whole record (it committed), and writes nothing twice.
 */
import { Context } from '@temporalio/activity';
import { setTimeout as sleep } from 'node:timers/promises';
import { SCOUT_RETENTION_DAYS, type ArchiveInput, type PruneOutcome, type RecordStore } from '../record';
import type { NewJobEvent } from '../schemas';
import { wholeResult } from './whole-result';

/** What the job hands the archive: its result as returned (batches not yet fetched) and its context. */
export type ArchiveJobInput = Omit<ArchiveInput, 'startedAt'>;

/** Input of a prune run. */
export interface PruneInput {
  /** Records of jobs finished longer ago than this are deleted. */
  maxAgeDays: number;
  /** Label keys whose records are never deleted. */
  keepLabels: string[];
  /** List what would go; delete nothing. */
  dryRun: boolean;
}

/** What the record's activities need. */
export interface ArchiveDeps {
  record: RecordStore;
  /** Chaos tests only: hold the archive transaction open this long before it commits (a kill lands mid-write). */
  pauseBeforeCommitMs?: number;
  /** Chaos tests only: wait this long after the commit before completing (a kill lands between the two). */
  pauseAfterCommitMs?: number;
}

/** The record's activities. */
export function createArchiveActivities({ record, pauseBeforeCommitMs, pauseAfterCommitMs }: ArchiveDeps) {
  return {
    /** Writes the job's record once, its result whole; `created: false` when it was already written. */
    async archiveJob(input: ArchiveJobInput): Promise<{ created: boolean; subtasks: number; bytes: number }> {
      const ctx = Context.current();
      // the stream's last event, once the record holds the result (written again by a retry: skipped by its key)
      const finished = () =>
        record.events.append(input.tenant, input.jobId, [
          {
            key: 'job.finished',
            type: 'job.finished',
            data: { status: input.result.status, pattern: input.result.pattern, metrics: input.result.metrics },
          },
        ]);
      // a retry after a commit whose completion was lost: nothing to fetch, nothing to write
      if (await record.specHashOf(input.tenant, input.jobId)) {
        await finished();
        return { created: false, subtasks: 0, bytes: 0 };
      }
      // the start Temporal reports for the run (the workflow's own clock reads its first task's time)
      const { startTime } = await ctx.client.workflow.getHandle(input.workflowId, ctx.info.workflowExecution?.runId).describe();
      const result = await wholeResult(ctx.client, input.result, () => ctx.heartbeat('fetching batches'));
      ctx.heartbeat('writing');
      const pause = pauseBeforeCommitMs ? () => sleep(pauseBeforeCommitMs) : undefined;
      const { created, bytes } = await record.archive({ ...input, startedAt: startTime.getTime(), result }, pause);
      await finished();
      if (pauseAfterCommitMs) await sleep(pauseAfterCommitMs);
      return { created, subtasks: result.results.length, bytes };
    },

    /** Appends a job's buffered events to its root's stream (a local activity of the job). */
    async appendJobEvents(input: { tenant: string; jobId: string; events: NewJobEvent[] }): Promise<number> {
      return (await record.events.append(input.tenant, input.jobId, input.events)).length;
    },

    /**
     * Deletes (or lists, dry) the records older than `maxAgeDays` that carry none of `keepLabels`,
     * and scouts without a feature older than SCOUT_RETENTION_DAYS (scouts with one are never pruned).
     */
    async pruneRecords(input: PruneInput): Promise<PruneOutcome> {
      const ctx = Context.current();
      const before = Math.floor(Date.now() - input.maxAgeDays * 86_400_000);
      const jobs = await record.prune({ before, keepLabels: input.keepLabels, dryRun: input.dryRun, onBatch: (n) => ctx.heartbeat(n) });
      const scouts = await record.scouts.prune({
        before: Math.floor(Date.now() - SCOUT_RETENTION_DAYS * 86_400_000),
        dryRun: input.dryRun,
      });
      return { ...jobs, scouts: scouts.scouts };
    },
  };
}
