/**
 * A job's live events in the record: appended by the workers (agent steps, the job's own
 * lifecycle, the archive), read by any API process. Each job's events are numbered 1, 2, 3…
 * under a per-job lock, and committed in that order, so a reader resuming after `seq` n
 * misses nothing and sees nothing twice.
 *
 *   writers ── append(tenant, jobId, [events]) ── job_events (tenant, job_id, seq) ── after(seq) ── one follower per job ── SSE, A2A, MCP
 *
 * The API follows a job with one reader however many streams watch it (api/jobs/followers.ts).
 */
import { CompiledQuery, sql } from 'kysely';
import type { JobEvent, JobEventType, NewJobEvent } from '../schemas';
import type { RecordDb } from './db';

/** Events read at once. */
const PAGE = 500;

/**
 * One event on SQLite (every step's own): one statement, atomic under SQLite's one writer, in
 * place of a transaction of four (two reads, the insert, the commit): less than half the CPU
 * (bench/history/2026-12-05-diary.md). Its text is fixed, neither built nor compiled per call. A key
 * the job has already: no row, no seq.
 */
const APPEND_ONE_SQLITE = `INSERT INTO job_events (tenant, job_id, seq, key, type, data, at)
  SELECT ?, ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ? FROM job_events WHERE tenant = ? AND job_id = ?
  ON CONFLICT (tenant, job_id, key) DO NOTHING RETURNING seq`;

/** The events part of the record. */
export function createJobEvents({ db, dialect }: RecordDb) {
  return {
    /** Appends events to a job's stream in order; an event whose key the job already has is skipped. Returns the seqs written. */
    async append(tenant: string, jobId: string, events: NewJobEvent[]): Promise<number[]> {
      if (!events.length) return [];
      if (dialect === 'sqlite' && events.length === 1) {
        const e = events[0]!;
        const at = Math.floor(e.at ?? Date.now());
        const { rows } = await db.executeQuery<{ seq: number }>(
          CompiledQuery.raw(APPEND_ONE_SQLITE, [tenant, jobId, e.key, e.type, JSON.stringify(e.data), at, tenant, jobId]),
        );
        return rows.map((r) => Number(r.seq));
      }
      return db.transaction().execute(async (trx) => {
        // one writer per job at a time: seqs are handed out and committed in order (SQLite has one writer anyway)
        if (dialect === 'postgres') await sql`SELECT pg_advisory_xact_lock(hashtext(${`${tenant}/${jobId}`}))`.execute(trx);
        const keys = [...new Set(events.map((e) => e.key))];
        const seen = new Set(
          (
            await trx
              .selectFrom('job_events')
              .select('key')
              .where('tenant', '=', tenant)
              .where('job_id', '=', jobId)
              .where('key', 'in', keys)
              .execute()
          ).map((r) => r.key),
        );
        const last = await trx
          .selectFrom('job_events')
          .select((eb) => eb.fn.max('seq').as('seq'))
          .where('tenant', '=', tenant)
          .where('job_id', '=', jobId)
          .executeTakeFirst();
        let seq = Number(last?.seq ?? 0);
        const rows = [];
        for (const e of events) {
          if (seen.has(e.key)) continue;
          seen.add(e.key);
          rows.push({
            tenant,
            job_id: jobId,
            seq: ++seq,
            key: e.key,
            type: e.type,
            data: JSON.stringify(e.data),
            at: Math.floor(e.at ?? Date.now()),
          });
        }
        for (let i = 0; i < rows.length; i += PAGE)
          await trx
            .insertInto('job_events')
            .values(rows.slice(i, i + PAGE))
            .execute();
        return rows.map((r) => r.seq);
      });
    },

    /** The job's events after `seq` (0: from the start), in order, at most `limit`. */
    async after(tenant: string, jobId: string, seq: number, limit = PAGE): Promise<JobEvent[]> {
      // the job's trace id (parent-sessions.ts) on each event: a job the API started has one
      const rows = await db
        .selectFrom('job_events as e')
        .leftJoin('job_origins as o', (j) => j.onRef('o.tenant', '=', 'e.tenant').onRef('o.job_id', '=', 'e.job_id'))
        .select(['e.seq', 'e.type', 'e.data', 'e.at', 'o.trace_id'])
        .where('e.tenant', '=', tenant)
        .where('e.job_id', '=', jobId)
        .where('e.seq', '>', seq)
        .orderBy('e.seq')
        .limit(limit)
        .execute();
      return rows.map((r) => ({
        seq: r.seq,
        type: r.type as JobEventType,
        at: new Date(r.at).toISOString(),
        data: JSON.parse(r.data) as Record<string, unknown>,
        ...(r.trace_id ? { traceId: r.trace_id } : {}),
      }));
    },
  };
}

/** A job's events in the record. */
export type JobEvents = ReturnType<typeof createJobEvents>;
