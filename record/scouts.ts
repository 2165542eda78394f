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
 */
import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { RecordDb, RecordTables, ScoutsTable } from './db';
import { scopeKey, topicOf } from './scout-text';

export { scopeKey, scoutSummaryLine, topicOf } from './scout-text';

/** Scouts without a feature may be pruned once older than this many days; scouts with a feature never are. */
export const SCOUT_RETENTION_DAYS = 90;

/** A scout's state in the record. */
export type ScoutState = 'dispatched' | 'prepped' | 'committed' | 'error';
/** The status a scout report gives itself. */
export type ScoutReportStatus = 'success' | 'partial' | 'no_findings' | 'error';

/** What `reserve` writes. */
export interface ScoutReservation {
  id: string;
  parentAgent: string;
  parentSessionId: string;
  featureSlug: string | null;
  question: string;
  scopePaths: string[];
  excerpt: string;
  jobId?: string | null;
  /** Epoch ms. */
  createdAt: number;
}

/** The caps a reservation is checked against. */
export interface ScoutCaps {
  perSession: number;
  perScope: number;
}

/** Scouts a session may still dispatch: in all, and on one scope. Never negative. */
export interface ScoutRemaining {
  session: number;
  scope: number;
}

/** The outcome of a reservation: `remaining` counts after this one when it passed. */
export type ReserveOutcome = { ok: true; remaining: ScoutRemaining } | { ok: false; cap: 'session' | 'scope'; remaining: ScoutRemaining };

/** One scout as the record holds it: what was reserved, and what became of it; times in epoch ms, the report parsed. */
export interface ScoutRecord extends Omit<ScoutReservation, 'jobId'> {
  tenant: string;
  scopeKey: string;
  jobId: string | null;
  state: ScoutState;
  report: unknown;
  reportStatus: ScoutReportStatus | null;
  tokens: number | null;
  committedAt: number | null;
  failedAt: number | null;
  /** Invalid reports a harness sent for a prepped scout. */
  reportAttempts: number;
}

/** Counts of a tenant's scouts created in a period. */
export interface ScoutSummary {
  /** Every scout dispatched, whatever became of it. */
  dispatched: number;
  committed: number;
  perSession: { parentSessionId: string; parentAgent: string; count: number }[];
  /** A topic is the feature slug when set, else `topicOf(question)`; most frequent first, ties by topic. */
  topTopics: { topic: string; count: number }[];
}

/** Any int4: the class of the PostgreSQL advisory locks reservations take (one per tenant + session). */
const PG_LOCK_CLASS = 0x73636f75;
/** States that hold a place under the caps. */
const HOLDING = ['dispatched', 'committed'];

/** PostgreSQL's text cannot hold NUL (JSON columns escape it). */
const noNul = (s: string) => s.replace(/\0/g, '');

/** The opaque cursor after a scout: its (created_at, id). */

/** A scout's row as it is first written: dispatched (with its job) or prepped for a harness (none yet). */
function newScoutRow(tenant: string, row: ScoutReservation, state: 'dispatched' | 'prepped') {
  return {
    tenant,
    id: row.id,
    parent_agent: row.parentAgent,
    parent_session_id: row.parentSessionId,
    feature_slug: row.featureSlug,
    question: noNul(row.question),
    scope_key: scopeKey(row.scopePaths),
    scope: JSON.stringify(row.scopePaths),
    excerpt: noNul(row.excerpt),
    job_id: row.jobId ?? null,
    state,
    report: null,
    report_status: null,
    tokens: null,
    created_at: Math.floor(row.createdAt),
    committed_at: null,
    failed_at: null,
  };
}

export function encodeScoutCursor(createdAt: number, id: string): string {
  return Buffer.from(JSON.stringify([createdAt, id])).toString('base64url');
}

/** The position a scout cursor names; undefined when it is not one of ours (the API refuses it). */
export function decodeScoutCursor(cursor: string): { createdAt: number; id: string } | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    if (Array.isArray(v) && v.length === 2 && Number.isSafeInteger(v[0]) && typeof v[1] === 'string')
      return { createdAt: v[0] as number, id: v[1] };
  } catch {
    // not JSON: not ours
  }
  return undefined;
}

const toRecord = (r: Selectable<ScoutsTable>): ScoutRecord => ({
  tenant: r.tenant,
  id: r.id,
  parentAgent: r.parent_agent,
  parentSessionId: r.parent_session_id,
  featureSlug: r.feature_slug,
  question: r.question,
  scopePaths: JSON.parse(r.scope) as string[],
  scopeKey: r.scope_key,
  excerpt: r.excerpt,
  jobId: r.job_id,
  state: r.state as ScoutState,
  report: r.report === null ? null : (JSON.parse(r.report) as unknown),
  reportStatus: r.report_status as ScoutReportStatus | null,
  tokens: r.tokens === null ? null : Number(r.tokens),
  createdAt: Number(r.created_at),
  committedAt: r.committed_at === null ? null : Number(r.committed_at),
  failedAt: r.failed_at === null ? null : Number(r.failed_at),
  reportAttempts: Number(r.report_attempts ?? 0),
});

/** The scouts part of the record, over the same database as `createRecordStore`. */
export function createScoutStore({ db, dialect }: RecordDb) {
  // ids compared byte by byte on both databases (PostgreSQL's default collation would not)
  const idBytes = dialect === 'sqlite' ? sql<string>`id` : sql<string>`id COLLATE "C"`;

  /** Runs `work` alone among the reservations of (tenant, session), in one transaction. */
  async function underSessionLock<T>(tenant: string, session: string, work: (q: Kysely<RecordTables>) => Promise<T>): Promise<T> {
    if (dialect === 'postgres') {
      return db.transaction().execute(async (trx) => {
        await sql`SELECT pg_advisory_xact_lock(${PG_LOCK_CLASS}::int, hashtext(${`${tenant}/${session}`}))`.execute(trx);
        return work(trx);
      });
    }
    // SQLite: the write lock up front, so no other process reads the counts between ours and our insert
    return db.connection().execute(async (conn) => {
      await sql.raw('BEGIN IMMEDIATE').execute(conn);
      try {
        const out = await work(conn);
        await sql.raw('COMMIT').execute(conn);
        return out;
      } catch (err) {
        await sql
          .raw('ROLLBACK')
          .execute(conn)
          .catch(() => undefined);
        throw err;
      }
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

  const left = (caps: ScoutCaps, t: { session: number; scope: number }): ScoutRemaining => ({
    session: Math.max(0, caps.perSession - t.session),
    scope: Math.max(0, caps.perScope - t.scope),
  });

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

    /** One scout; undefined when the tenant has none of that id. */
    async get(tenant: string, id: string): Promise<ScoutRecord | undefined> {
      const row = await db.selectFrom('scouts').selectAll().where('tenant', '=', tenant).where('id', '=', id).executeTakeFirst();
      return row && toRecord(row);
    },

    /** A page of a tenant's scouts, newest first (ties by id, bytewise); `nextCursor` while more match. Throws on a cursor not ours. */
    async list(
      tenant: string,
      f: { feature?: string; parentSessionId?: string; state?: ScoutState; limit: number; cursor?: string },
    ): Promise<{ scouts: ScoutRecord[]; nextCursor: string | null }> {
      let q = db.selectFrom('scouts').selectAll().where('tenant', '=', tenant);
      if (f.feature !== undefined) q = q.where('feature_slug', '=', f.feature);
      if (f.parentSessionId !== undefined) q = q.where('parent_session_id', '=', f.parentSessionId);
      if (f.state !== undefined) q = q.where('state', '=', f.state);
      if (f.cursor !== undefined) {
        const at = decodeScoutCursor(f.cursor);
        if (!at) throw new TypeError('not a scout page cursor');
        q = q.where((eb) =>
          eb.or([eb('created_at', '<', at.createdAt), eb.and([eb('created_at', '=', at.createdAt), eb(idBytes, '<', at.id)])]),
        );
      }
      const rows = await q
        .orderBy('created_at', 'desc')
        .orderBy(idBytes, 'desc')
        .limit(f.limit + 1)
        .execute();
      const page = rows.slice(0, f.limit);
      const last = page.at(-1);
      return {
        scouts: page.map(toRecord),
        nextCursor: rows.length > f.limit && last ? encodeScoutCursor(Number(last.created_at), last.id) : null,
      };
    },

    /** Counts of the tenant's scouts created in [from, to): dispatched, committed, per parent session, top topics. */
    async summary(tenant: string, { from, to, topTopics = 5 }: { from: number; to: number; topTopics?: number }): Promise<ScoutSummary> {
      const period = db.selectFrom('scouts').where('tenant', '=', tenant).where('created_at', '>=', from).where('created_at', '<', to);
      const sessions = await period
        .select((eb) => ['parent_session_id', 'parent_agent', eb.fn.countAll<number>().as('n')])
        .groupBy(['parent_session_id', 'parent_agent'])
        .orderBy('n', 'desc')
        .orderBy('parent_session_id')
        .orderBy('parent_agent')
        .execute();
      const committed = await period
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('state', '=', 'committed')
        .executeTakeFirstOrThrow();
      const features = await period
        .select((eb) => ['feature_slug', eb.fn.countAll<number>().as('n')])
        .where('feature_slug', 'is not', null)
        .groupBy('feature_slug')
        .execute();
      // a question's topic is computed here, not in SQL: the rule (scout-text.ts) is the same on both stores
      const questions = await period.select('question').where('feature_slug', 'is', null).execute();
      const topics = new Map<string, number>();
      for (const r of features) topics.set(r.feature_slug!, Number(r.n));
      for (const r of questions) topics.set(topicOf(r.question), (topics.get(topicOf(r.question)) ?? 0) + 1);
      return {
        dispatched: sessions.reduce((a, r) => a + Number(r.n), 0),
        committed: Number(committed.n),
        perSession: sessions.map((r) => ({ parentSessionId: r.parent_session_id, parentAgent: r.parent_agent, count: Number(r.n) })),
        topTopics: [...topics]
          .map(([topic, count]) => ({ topic, count }))
          .sort((a, b) => b.count - a.count || (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0))
          .slice(0, topTopics),
      };
    },

    /** Deletes (or, dry, counts) every tenant's scouts without a feature created before `before`; scouts with a feature are never pruned. */
    async prune(o: { before: number; dryRun: boolean }): Promise<{ dryRun: boolean; scouts: number }> {
      const doomed = db.selectFrom('scouts').where('feature_slug', 'is', null).where('created_at', '<', o.before);
      if (o.dryRun)
        return {
          dryRun: true,
          scouts: Number((await doomed.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n),
        };
      const r = await db.deleteFrom('scouts').where('feature_slug', 'is', null).where('created_at', '<', o.before).executeTakeFirst();
      return { dryRun: false, scouts: Number(r.numDeletedRows) };
    },
  };
}

/** The scouts part of the record. */
export type ScoutStore = ReturnType<typeof createScoutStore>;
