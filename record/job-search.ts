/**
 * Search of one tenant's archived jobs: filters by pattern, status, finish time, labels, agent
 * and free text, a page at a time, newest finish first, behind an opaque cursor.
 *
 *   filters ── text? ── SQLite: FTS5 MATCH | PostgreSQL: probe ≤ sparseText matches ─┬─ few: fetch through the GIN index
 *                                                                                   └─ many: walk the finish-time index
 *           ── page of limit + 1 ── its agents ── Report[] + nextCursor
 */
import { sql, type Expression, type SqlBool } from 'kysely';
import type { JobOutcome, Pattern, Report } from '../schemas';
import { fromMicros } from '../core/money';
import type { RecordDb } from './db';
import { hasLabels } from './job-reads';
import { tokens } from './tokens';

/** Filters of a search of one tenant's record. */
export interface ReportFilter {
  /** `key=value` each; all must hold. */
  label?: string[];
  pattern?: Pattern;
  status?: JobOutcome;
  agent?: string;
  /** Finished at or after (epoch ms). */
  from?: number;
  /** Finished before (epoch ms). */
  to?: number;
  /** Words that must all occur (as prefixes) in the objective, the questions or the summaries. */
  text?: string;
  cursor?: string;
  limit: number;
}

/** Text matches below which PostgreSQL fetches them through its search index first (see textMatch). */
export const SPARSE = 1000;

/** The opaque cursor of a page: the last hit's (closed_at, id). */
export function encodeCursor(closedAt: number, id: number): string {
  return Buffer.from(`${closedAt}.${id}`).toString('base64url');
}

/** The position a cursor names; undefined when it is not one of ours. */
export function decodeCursor(cursor: string): { closedAt: number; id: number } | undefined {
  const m = /^(\d{1,15})\.(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString());
  return m ? { closedAt: Number(m[1]), id: Number(m[2]) } : undefined;
}

/** The record's job search, over an open database (part of `createRecordStore`); `sparseText` is how many text matches count as few. */
export function createJobSearch({ db, dialect }: RecordDb, { sparseText = SPARSE }: { sparseText?: number } = {}) {
  /**
   * Words as a full-text predicate on a tenant's `jobs` (every word, as a prefix). PostgreSQL
   * cannot estimate how many rows a prefix query matches: it walks the finish-time index and
   * tests each row (22 ms for a rare word at 10,000 jobs, growing with the table). A probe of
   * at most `sparseText` matches through the GIN index tells the two cases apart: few matches are
   * fetched through the index first (under 1 ms), many are found by the walk soon enough.
   */
  async function textMatch(tenant: string, words: string[]): Promise<Expression<SqlBool>> {
    if (dialect === 'sqlite') {
      const match = words.map((w) => `"${w}"*`).join(' ');
      return sql<SqlBool>`jobs.id IN (SELECT rowid FROM jobs_fts WHERE jobs_fts MATCH ${match})`;
    }
    const query = words.map((w) => `${w}:*`).join(' & ');
    const matches = sql`SELECT id FROM jobs WHERE tenant = ${tenant} AND search @@ to_tsquery('simple', ${query})`;
    const probe = await sql<{ n: number }>`SELECT count(*)::int AS n FROM (${matches} LIMIT ${sparseText}) AS m`.execute(db);
    // OFFSET 0 keeps the subquery apart: planned alone, it takes the GIN index
    if ((probe.rows[0]?.n ?? 0) < sparseText) return sql<SqlBool>`jobs.id IN (${matches} OFFSET 0)`;
    return sql<SqlBool>`jobs.search @@ to_tsquery('simple', ${query})`;
  }

  return {
    /** A page of a tenant's archived jobs, newest finish first; `nextCursor` while more match. */
    async search(tenant: string, f: ReportFilter): Promise<{ reports: Report[]; nextCursor: string | null }> {
      let q = db
        .selectFrom('jobs')
        .select([
          'id',
          'job_id',
          'workflow_id',
          'pattern',
          'status',
          'labels',
          'objective',
          'started_at',
          'closed_at',
          'subtasks',
          'cost_micros',
          'tokens',
          'tool_calls',
          'digest',
        ])
        .where('tenant', '=', tenant);
      if (f.pattern) q = q.where('pattern', '=', f.pattern);
      if (f.status) q = q.where('status', '=', f.status);
      if (f.from !== undefined) q = q.where('closed_at', '>=', f.from);
      if (f.to !== undefined) q = q.where('closed_at', '<', f.to);
      if (f.label?.length) q = q.where(hasLabels(f.label));
      if (f.agent) {
        const agent = f.agent;
        q = q.where((eb) =>
          eb.exists(eb.selectFrom('job_agents').select('job').whereRef('job_agents.job', '=', 'jobs.id').where('agent_id', '=', agent)),
        );
      }
      const words = f.text ? tokens(f.text) : [];
      if (words.length) q = q.where(await textMatch(tenant, words));
      const at = f.cursor ? decodeCursor(f.cursor) : undefined;
      if (at)
        q = q.where((eb) => eb.or([eb('closed_at', '<', at.closedAt), eb.and([eb('closed_at', '=', at.closedAt), eb('id', '<', at.id)])]));
      const rows = await q
        .orderBy('closed_at', 'desc')
        .orderBy('id', 'desc')
        .limit(f.limit + 1)
        .execute();
      const page = rows.slice(0, f.limit);
      const agentRows = page.length
        ? await db
            .selectFrom('job_agents')
            .select(['job', 'agent_id'])
            .where(
              'job',
              'in',
              page.map((r) => r.id),
            )
            .orderBy('agent_id')
            .execute()
        : [];
      const reports = page.map((r): Report => ({
        jobId: r.job_id,
        workflowId: r.workflow_id,
        pattern: r.pattern as Pattern,
        status: r.status as JobOutcome,
        labels: JSON.parse(r.labels) as Record<string, string>,
        ...(r.objective ? { objective: r.objective } : {}),
        startedAt: new Date(r.started_at).toISOString(),
        closedAt: new Date(r.closed_at).toISOString(),
        subtasks: r.subtasks,
        agents: agentRows.filter((a) => a.job === r.id).map((a) => a.agent_id),
        spend: { costUsd: fromMicros(r.cost_micros), tokens: r.tokens, toolCalls: r.tool_calls },
        digest: r.digest,
      }));
      const last = page.at(-1);
      return { reports, nextCursor: rows.length > f.limit && last ? encodeCursor(last.closed_at, last.id) : null };
    },
  };
}
