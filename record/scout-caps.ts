/**
 * The scouts' caps: a parent session's places (dispatched or committed scouts), in all and per
 * scope, taken under a lock of the session so two reservations never both take the last place.
 *
 *   reserve        ── lock (tenant, session) ── count ── insert `dispatched` | refuse naming the cap
 *   commitReported ── lock (tenant, session) ── count ── prepped → committed | refuse naming the cap
 *   remaining      ── count (no lock: prep's answer, reserves nothing)
 */
import { sql, type Kysely } from 'kysely';
import type { RecordDb, RecordTables } from './db';
import {
  newScoutRow,
  type ReserveOutcome,
  type ScoutCaps,
  type ScoutRecord,
  type ScoutRemaining,
  type ScoutReportStatus,
  type ScoutReservation,
  type ScoutState,
} from './scout-rows';
import { scopeKey } from './scout-text';

/** Any int4: the class of the PostgreSQL advisory locks reservations take (one per tenant + session). */
const PG_LOCK_CLASS = 0x73636f75;
/** States that hold a place under the caps. */
const HOLDING = ['dispatched', 'committed'];

/** The places a session has left under `caps` when `t` are taken. */
const left = (caps: ScoutCaps, t: { session: number; scope: number }): ScoutRemaining => ({
  session: Math.max(0, caps.perSession - t.session),
  scope: Math.max(0, caps.perScope - t.scope),
});

/** The capped operations of the scouts part of the record (see scouts.ts). */
export function createScoutCaps({ db, dialect }: RecordDb) {
  /**
   * Runs `work` alone among the reservations of (tenant, session), in one transaction. SQLite's
   * transactions of the record begin IMMEDIATE (db.ts), so the write lock is held from the start and no
   * other process reads the counts between ours and our insert; PostgreSQL's take an advisory lock
   * of the session first.
   */
  async function underSessionLock<T>(tenant: string, session: string, work: (q: Kysely<RecordTables>) => Promise<T>): Promise<T> {
    return db.transaction().execute(async (trx) => {
      if (dialect === 'postgres')
        await sql`SELECT pg_advisory_xact_lock(${PG_LOCK_CLASS}::int, hashtext(${`${tenant}/${session}`}))`.execute(trx);
      return work(trx);
    });
  }

  /** The session's places taken: in all, and on `key`. */
  async function taken(q: Kysely<RecordTables>, tenant: string, session: string, key: string): Promise<{ session: number; scope: number }> {
    const rows = await q
      .selectFrom('scouts')
      .select((eb) => ['scope_key', eb.fn.countAll<number>().as('n')])
      .where('tenant', '=', tenant)
      .where('parent_session_id', '=', session)
      .where('state', 'in', HOLDING)
      .groupBy('scope_key')
      .execute();
    return { session: rows.reduce((a, r) => a + Number(r.n), 0), scope: Number(rows.find((r) => r.scope_key === key)?.n ?? 0) };
  }

  return {
    /** Takes a place under both caps and writes the scout as `dispatched`, or refuses (writing nothing) naming the cap. */
    async reserve(tenant: string, row: ScoutReservation, caps: ScoutCaps): Promise<ReserveOutcome> {
      const key = scopeKey(row.scopePaths);
      return underSessionLock(tenant, row.parentSessionId, async (q) => {
        const t = await taken(q, tenant, row.parentSessionId, key);
        if (t.session >= caps.perSession) return { ok: false, cap: 'session', remaining: left(caps, t) };
        if (t.scope >= caps.perScope) return { ok: false, cap: 'scope', remaining: left(caps, t) };
        await q
          .insertInto('scouts')
          .values(newScoutRow(tenant, row, 'dispatched'))
          .execute();
        return { ok: true, remaining: left(caps, { session: t.session + 1, scope: t.scope + 1 }) };
      });
    },

    /**
     * Commits the report of a prepped scout, taking its place under the caps in the same lock as
     * `reserve` (so caps are never passed); refuses naming the cap, or says why it is not prepped.
     */
    async commitReported(
      tenant: string,
      row: Pick<ScoutRecord, 'id' | 'parentSessionId' | 'scopePaths'>,
      report: unknown,
      reportStatus: ScoutReportStatus,
      tokens: number | null,
      at: number,
      caps: ScoutCaps,
    ): Promise<ReserveOutcome | { ok: false; cap: null; state: ScoutState | null }> {
      const key = scopeKey(row.scopePaths);
      return underSessionLock(tenant, row.parentSessionId, async (q) => {
        const t = await taken(q, tenant, row.parentSessionId, key);
        if (t.session >= caps.perSession) return { ok: false, cap: 'session', remaining: left(caps, t) };
        if (t.scope >= caps.perScope) return { ok: false, cap: 'scope', remaining: left(caps, t) };
        const r = await q
          .updateTable('scouts')
          .set({
            state: 'committed',
            report: JSON.stringify(report ?? null),
            report_status: reportStatus,
            tokens,
            committed_at: Math.floor(at),
          })
          .where('tenant', '=', tenant)
          .where('id', '=', row.id)
          .where('state', '=', 'prepped')
          .executeTakeFirst();
        if (Number(r.numUpdatedRows) === 0) {
          const now = await q.selectFrom('scouts').select('state').where('tenant', '=', tenant).where('id', '=', row.id).executeTakeFirst();
          return { ok: false, cap: null, state: (now?.state as ScoutState | undefined) ?? null };
        }
        return { ok: true, remaining: left(caps, { session: t.session + 1, scope: t.scope + 1 }) };
      });
    },

    /** Places left to the session, in all and on this scope (prep's answer; reserves nothing). */
    async remaining(tenant: string, parentSessionId: string, scopePaths: string[], caps: ScoutCaps): Promise<ScoutRemaining> {
      return left(caps, await taken(db, tenant, parentSessionId, scopeKey(scopePaths)));
    },
  };
}
