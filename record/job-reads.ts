/**
 * Reads of archived jobs by id: one job whole (its result stitched back from its subtask rows),
 * its spec hash alone (idempotency), which of some ids are archived, and the finished half of the
 * job list (newest start first, ties by job id bytewise, as the API compares them).
 */
import { sql, type ExpressionBuilder } from 'kysely';
import type { JobResult, TaskResult } from '../schemas';
import type { RecordDb, RecordTables } from './db';
import type { ArchiveInput } from './job-archive';

/** One archived job as the API reads it back: what was archived, its labels always present. */
export type JobRecord = Pick<ArchiveInput, 'tenant' | 'jobId' | 'workflowId' | 'specHash' | 'startedAt' | 'closedAt' | 'result'> & {
  labels: Record<string, string>;
};

/** Jobs carrying every `key=value` label of `labels`. */
export const hasLabels = (labels: string[]) => (eb: ExpressionBuilder<RecordTables, 'jobs'>) =>
  eb.and(
    labels.map((l) => {
      const at = l.indexOf('=');
      return eb.exists(
        eb
          .selectFrom('job_labels')
          .select('job')
          .whereRef('job_labels.job', '=', 'jobs.id')
          .where('key', '=', l.slice(0, at))
          .where('value', '=', l.slice(at + 1)),
      );
    }),
  );

/** The record's reads of archived jobs, over an open database (part of `createRecordStore`). */
export function createJobReads({ db, dialect }: RecordDb) {
  // job ids compared byte by byte on both databases (PostgreSQL's default collation would not)
  const jobIdBytes = dialect === 'sqlite' ? sql<string>`job_id` : sql<string>`job_id COLLATE "C"`;
  return {
    /** The spec hash of an archived job (idempotency), without reading its result. */
    async specHashOf(tenant: string, jobId: string): Promise<{ specHash: string | null } | undefined> {
      const row = await db
        .selectFrom('jobs')
        .select('spec_hash')
        .where('tenant', '=', tenant)
        .where('job_id', '=', jobId)
        .executeTakeFirst();
      return row && { specHash: row.spec_hash };
    },

    /** One archived job, its result whole; undefined when there is none. */
    async get(tenant: string, jobId: string): Promise<JobRecord | undefined> {
      const row = await db
        .selectFrom('jobs')
        .select(['id', 'workflow_id', 'spec_hash', 'started_at', 'closed_at', 'labels', 'result'])
        .where('tenant', '=', tenant)
        .where('job_id', '=', jobId)
        .executeTakeFirst();
      if (!row) return undefined;
      const subs = await db.selectFrom('job_subtasks').select('result').where('job', '=', row.id).orderBy('idx').execute();
      // `results` was stored empty in its place: the spread keeps the result's key order
      const result = { ...(JSON.parse(row.result) as JobResult), results: subs.map((s) => JSON.parse(s.result) as TaskResult) };
      return {
        tenant,
        jobId,
        workflowId: row.workflow_id,
        specHash: row.spec_hash,
        startedAt: row.started_at,
        closedAt: row.closed_at,
        labels: JSON.parse(row.labels) as Record<string, string>,
        result,
      };
    },

    /**
     * Finished jobs of a tenant, newest start first, ties by job id (bytewise, as the API
     * compares them): the job list's finished half, from after `after` on.
     */
    async listFinished(
      tenant: string,
      f: { pattern?: string; status?: string; label?: string[]; after?: { startedAt: number; jobId: string }; limit: number },
    ) {
      let q = db.selectFrom('jobs').select(['job_id', 'workflow_id', 'status', 'pattern', 'started_at']).where('tenant', '=', tenant);
      if (f.pattern) q = q.where('pattern', '=', f.pattern);
      if (f.status) q = q.where('status', '=', f.status);
      if (f.label?.length) q = q.where(hasLabels(f.label));
      const after = f.after;
      if (after)
        q = q.where((eb) =>
          eb.or([
            eb('started_at', '<', after.startedAt),
            eb.and([eb('started_at', '=', after.startedAt), eb(jobIdBytes, '<', after.jobId)]),
          ]),
        );
      return q.orderBy('started_at', 'desc').orderBy(jobIdBytes, 'desc').limit(f.limit).execute();
    },

    /** Which of these job ids the record holds (a job is archived a moment before Temporal reports it completed). */
    async archivedAmong(tenant: string, jobIds: string[]): Promise<Set<string>> {
      if (!jobIds.length) return new Set();
      const rows = await db.selectFrom('jobs').select('job_id').where('tenant', '=', tenant).where('job_id', 'in', jobIds).execute();
      return new Set(rows.map((r) => r.job_id));
    },
  };
}
