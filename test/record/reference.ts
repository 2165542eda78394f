/**
 * What the record should answer, computed in plain code from the jobs a test archived, and
 * small readers of the record's tables: the store tests compare the two.
 */
import { sql } from 'kysely';
import type { ArchiveInput, RecordDb, RecordStore, ReportFilter } from '../../record';
import { tokens } from '../../record/tokens';

/** The jobs a test archived, in archive order (later = higher row id). */
export type Archived = ArchiveInput[];

/** The words a job can be found by: its objective, questions and summaries. */
const wordsOf = (j: ArchiveInput) =>
  tokens([j.objective ?? '', ...(j.questions ?? []), ...j.result.results.map((r) => r.summary)].join(' '));

/** The job ids a search of `tenant` should find, in (closedAt desc, archive order desc) order. */
export function expectedHits(archived: Archived, tenant: string, f: Omit<ReportFilter, 'limit' | 'cursor'>): string[] {
  const query = f.text ? tokens(f.text) : [];
  return archived
    .map((j, pos) => ({ j, pos }))
    .filter(({ j }) => {
      if (j.tenant !== tenant) return false;
      if (f.pattern && j.result.pattern !== f.pattern) return false;
      if (f.status && j.result.status !== f.status) return false;
      if (f.from !== undefined && j.closedAt < f.from) return false;
      if (f.to !== undefined && j.closedAt >= f.to) return false;
      if (f.agent && !j.result.results.some((r) => r.agentId === f.agent)) return false;
      for (const l of f.label ?? []) {
        const at = l.indexOf('=');
        if ((j.labels ?? {})[l.slice(0, at)] !== l.slice(at + 1)) return false;
      }
      const words = wordsOf(j);
      return query.every((q) => words.some((w) => w.startsWith(q)));
    })
    .sort((a, b) => b.j.closedAt - a.j.closedAt || b.pos - a.pos)
    .map(({ j }) => j.jobId);
}

/** Every page of a search, `limit` per page: the hits in order, and the pages' sizes. */
export async function walk(store: RecordStore, tenant: string, f: Omit<ReportFilter, 'limit' | 'cursor'>, limit: number) {
  const reports = [];
  const sizes: number[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const r = await store.search(tenant, { ...f, limit, cursor });
    reports.push(...r.reports);
    sizes.push(r.reports.length);
    if (r.nextCursor === null) return { reports, ids: reports.map((x) => x.jobId), sizes };
    cursor = r.nextCursor;
  }
  throw new Error('search pages never ended');
}

/** Rows of each of the record's tables (and, on SQLite, of the free-text index). */
export async function rowCounts({ db, dialect }: RecordDb): Promise<Record<string, number>> {
  const count = async (table: string) =>
    Number((await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(db)).rows[0].n);
  const out: Record<string, number> = {};
  for (const t of ['jobs', 'job_labels', 'job_agents', 'job_subtasks']) out[t] = await count(t);
  // the FTS5 table's own data rows: one per document indexed, whatever the content table holds
  if (dialect === 'sqlite') out.jobs_fts_docsize = await count('jobs_fts_docsize');
  return out;
}

/** The row id of an archived job. */
export async function rowIdOf({ db }: RecordDb, tenant: string, jobId: string): Promise<number | undefined> {
  const row = await db.selectFrom('jobs').select('id').where('tenant', '=', tenant).where('job_id', '=', jobId).executeTakeFirst();
  return row?.id;
}

/** Child rows (labels, agents, subtasks) still pointing at these job row ids. */
export async function childRowsOf({ db }: RecordDb, ids: number[]): Promise<number> {
  if (!ids.length) return 0;
  let n = 0;
  for (const t of ['job_labels', 'job_agents', 'job_subtasks'] as const) {
    n += (await db.selectFrom(t).select('job').where('job', 'in', ids).execute()).length;
  }
  return n;
}

/** SQLite only: the rows the free-text index itself returns for a word (a stale entry would show here, not in a search). */
export async function ftsRowIds({ db }: RecordDb, word: string): Promise<number[]> {
  const rows = await sql<{ rowid: number }>`SELECT rowid FROM jobs_fts WHERE jobs_fts MATCH ${`"${word}"`}`.execute(db);
  return rows.rows.map((r) => Number(r.rowid));
}
