/**
 * The code scouts in the record: a row per dispatch, reserved against the caps before the
 * scout's job starts, its report once committed. Caps count a parent session's scouts that
 * are dispatched or committed (an `error` releases its place): all of them (per session), and
 * those of the same session on the same scope (per scope).
 *
 *   reserve ── lock the session (BEGIN IMMEDIATE | advisory lock) ── count ── insert `dispatched` | refuse
 *   commit  ── dispatched → committed (once; a second commit changes nothing)
 *   fail    ── dispatched → error (its reservation no longer counts)
 *   prepare ── insert `prepped`: a harness runs it; no place held until its report is committed (api/scouts/report.ts)
 *   prune   ── scouts without a feature created before the cutoff (featured ones are kept for good)
 *
 * The caps are scout-caps.ts, the reads scout-reads.ts, the rows' shapes scout-rows.ts; this module
 * puts them together with the writes that need no lock.
 */
import type { ExpressionBuilder, Updateable } from 'kysely';
import type { RecordDb, RecordTables, ScoutsTable } from './db';
import { createScoutCaps } from './scout-caps';
import { createScoutReads } from './scout-reads';
import { newScoutRow, type ScoutReportStatus, type ScoutReservation } from './scout-rows';

/**
 * An orphaned scout: no feature, created before `before` (epoch ms). The prune deletes these and
 * `delegate doctor` counts them (hygiene.ts), so both say the same; the partial index scouts_by_age is on it.
 */
export const orphanScout = (before: number) => (eb: ExpressionBuilder<RecordTables, 'scouts'>) =>
  eb.and([eb('feature_slug', 'is', null), eb('created_at', '<', Math.floor(before))]);

/** The scouts part of the record, over the same database as `createRecordStore`. */
export function createScoutStore(rdb: RecordDb) {
  const { db } = rdb;

  /** Moves a dispatched scout to `state`; why not when it was not dispatched. */
  async function settle(
    tenant: string,
    id: string,
    set: Updateable<ScoutsTable>,
  ): Promise<{ done: true } | { done: false; reason: 'not_found' | 'already_committed' | 'failed' }> {
    const r = await db
      .updateTable('scouts')
      .set(set)
      .where('tenant', '=', tenant)
      .where('id', '=', id)
      .where('state', '=', 'dispatched')
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) > 0) return { done: true };
    const row = await db.selectFrom('scouts').select('state').where('tenant', '=', tenant).where('id', '=', id).executeTakeFirst();
    return { done: false, reason: !row ? 'not_found' : row.state === 'committed' ? 'already_committed' : 'failed' };
  }

  return {
    ...createScoutCaps(rdb),
    ...createScoutReads(rdb),

    /** Writes a scout a harness runs itself as `prepped`: its id is taken, no place under the caps until its report is committed. */
    async prepare(tenant: string, row: ScoutReservation): Promise<void> {
      await db
        .insertInto('scouts')
        .values(newScoutRow(tenant, { ...row, jobId: undefined }, 'prepped'))
        .execute();
    },

    /**
     * Counts an invalid report of a prepped scout; at `maxAttempts` the scout is settled as `error`
     * (final). Returns the count, or undefined when the scout is not prepped.
     */
    async reportInvalid(
      tenant: string,
      id: string,
      maxAttempts: number,
      at: number,
    ): Promise<{ attempts: number; final: boolean } | undefined> {
      const r = await db
        .updateTable('scouts')
        .set((eb) => ({ report_attempts: eb('report_attempts', '+', 1) }))
        .where('tenant', '=', tenant)
        .where('id', '=', id)
        .where('state', '=', 'prepped')
        .returning('report_attempts')
        .executeTakeFirst();
      if (!r) return undefined;
      const attempts = Number(r.report_attempts);
      if (attempts < maxAttempts) return { attempts, final: false };
      await db
        .updateTable('scouts')
        .set({ state: 'error', report_status: 'error', failed_at: Math.floor(at) })
        .where('tenant', '=', tenant)
        .where('id', '=', id)
        .where('state', '=', 'prepped')
        .execute();
      return { attempts, final: true };
    },

    /** Records the job a scout runs as (once its job has started). */
    async setJob(tenant: string, id: string, jobId: string): Promise<void> {
      await db.updateTable('scouts').set({ job_id: jobId }).where('tenant', '=', tenant).where('id', '=', id).execute();
    },

    /** Stores a dispatched scout's report, once: a second commit (or one after `fail`) changes nothing and says why. */
    async commit(
      tenant: string,
      id: string,
      report: unknown,
      reportStatus: ScoutReportStatus,
      tokens: number | null,
      at: number,
    ): Promise<{ committed: true } | { committed: false; reason: 'not_found' | 'already_committed' | 'failed' }> {
      const r = await settle(tenant, id, {
        state: 'committed',
        report: JSON.stringify(report ?? null),
        report_status: reportStatus,
        tokens,
        committed_at: Math.floor(at),
      });
      return r.done ? { committed: true } : { committed: false, reason: r.reason };
    },

    /** Marks a dispatched scout `error` (with its last report, if any): its place under the caps is freed. */
    async fail(
      tenant: string,
      id: string,
      report: unknown,
      at: number,
    ): Promise<{ failed: true } | { failed: false; reason: 'not_found' | 'already_committed' | 'failed' }> {
      const r = await settle(tenant, id, {
        state: 'error',
        report: report == null ? null : JSON.stringify(report),
        report_status: 'error',
        failed_at: Math.floor(at),
      });
      return r.done ? { failed: true } : { failed: false, reason: r.reason };
    },

    /** Deletes (or, dry, counts) every tenant's scouts without a feature created before `before`; scouts with a feature are never pruned. */
    async prune(o: { before: number; dryRun: boolean }): Promise<{ dryRun: boolean; scouts: number }> {
      const doomed = db.selectFrom('scouts').where(orphanScout(o.before));
      if (o.dryRun)
        return {
          dryRun: true,
          scouts: Number((await doomed.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n),
        };
      const r = await db.deleteFrom('scouts').where(orphanScout(o.before)).executeTakeFirst();
      return { dryRun: false, scouts: Number(r.numDeletedRows) };
    },
  };
}

/** The scouts part of the record. */
export type ScoutStore = ReturnType<typeof createScoutStore>;
