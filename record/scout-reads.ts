/**
 * Reads of the scout record: one scout, a tenant's scouts a page at a time (newest first, ties by
 * id bytewise), and the counts of a period (dispatched, committed, per session, top topics).
 */
import { sql } from 'kysely';
import type { RecordDb } from './db';
import { decodeScoutCursor, encodeScoutCursor, toRecord, type ScoutRecord, type ScoutState, type ScoutSummary } from './scout-rows';
import { topicOf } from './scout-text';

/** The reads of the scouts part of the record (see scouts.ts). */
export function createScoutReads({ db, dialect }: RecordDb) {
  // ids compared byte by byte on both databases (PostgreSQL's default collation would not)
  const idBytes = dialect === 'sqlite' ? sql<string>`id` : sql<string>`id COLLATE "C"`;
  return {
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
  };
}
