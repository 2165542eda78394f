/**
 * The job record at 10,000 jobs, on SQLite and on PostgreSQL (a throwaway cluster from
 * Debian's packages): archive time per job, record bytes per subtask, and search latency
 * p50/p99 by kind of search (filters, label, agent, free text rare and common, a second page).
 *
 *   archive N realistic jobs one by one (1–10 subtasks, ~200-char summaries, labels)
 *   ─ checkpoint ─ measure sizes ─ 40 searches of each kind, varied ─ markdown table
 * `BENCH_RECORD_JOBS` (default 10000), `BENCH_RECORD_SEARCHES` per kind (default 40).
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createRecordStore, openRecordDb, type RecordDb, type RecordLocation, type ReportFilter } from '../record';
import { createDatabase, startPostgres } from '../scripts/postgres';
import { closedAtOf, JOB_AGENTS, JOB_FEATURES, JOB_PATTERNS, JOB_STATUSES, recordJob } from '../test/record-jobs';
import { machine, percentile as pct, root, round } from './lib';

const JOBS = Number(process.env.BENCH_RECORD_JOBS ?? 10_000);
const PER_KIND = Number(process.env.BENCH_RECORD_SEARCHES ?? 40);
const TENANT = 'bench';
const LIMIT = 20;

/** Searches of one kind: the i-th query of that kind (varied so no two are the same). */
const KINDS: Record<string, (i: number) => Omit<ReportFilter, 'limit'>> = {
  'filter (status + pattern)': (i) => ({ status: JOB_STATUSES[i % 5], pattern: JOB_PATTERNS[i % 3] }),
  'time range (1 week)': (i) => ({ from: closedAtOf((i * 211) % JOBS), to: closedAtOf((i * 211) % JOBS) + 7 * 24 * 3_600_000 }),
  label: (i) => ({ label: [`feature=${JOB_FEATURES[i % 3]}`] }),
  agent: (i) => ({ agent: JOB_AGENTS[i % 4] }),
  'text, rare word': (i) => ({ text: i % 2 ? 'zanzibar' : 'Zanzibar cafe' }),
  'text, common word': (i) => ({ text: ['payment', 'refund', 'ledger', 'settlement'][i % 4] }),
  'text prefix + label': (i) => ({ text: 'pay', label: [`team=${i % 2 ? 'payments' : 'growth'}`] }),
};
const SECOND_PAGE = 'second page (label + agent, cursor)';

/** Subtasks of job i: 1–10, skewed small like real fan-outs. */
const subtasksOf = (i: number) => 1 + ((i * 7919) % 100 < 50 ? i % 3 : i % 10);

async function benchStore(kind: string, loc: RecordLocation, dbSize: (r: RecordDb) => Promise<number>) {
  const db = await openRecordDb(loc);
  const store = createRecordStore(db);
  const emptyBytes = await dbSize(db);
  let bytes = 0;
  let subtasks = 0;
  const archiveMs: number[] = [];
  const started = performance.now();
  for (let i = 0; i < JOBS; i++) {
    const job = recordJob(TENANT, i, { subtasks: subtasksOf(i), summaryChars: 200 });
    const t = performance.now();
    const out = await store.archive(job);
    archiveMs.push(performance.now() - t);
    bytes += out.bytes;
    subtasks += job.result.results.length;
    if (i % 2000 === 1999) console.log(`  ${kind}: ${i + 1} archived`);
  }
  const archiveTotal = performance.now() - started;
  const size = (await dbSize(db)) - emptyBytes;
  // PostgreSQL plans from statistics, which autovacuum gathers within a minute of a bulk load:
  // gather them now (without, it scans whole tables: 7–15 ms a search here). SQLite keeps none
  // unless told, and Delegate never tells it: measured as it runs.
  if (db.dialect === 'postgres') await sql`ANALYZE`.execute(db.db);
  const searches: Record<string, number[]> = {};
  const hits: Record<string, number> = {};
  const time = async (name: string, f: ReportFilter) => {
    const t = performance.now();
    const r = await store.search(TENANT, f);
    (searches[name] ??= []).push(performance.now() - t);
    hits[name] = (hits[name] ?? 0) + r.reports.length;
    return r;
  };
  // warm-up: the first query pays for planning and cold pages
  for (const make of Object.values(KINDS)) await store.search(TENANT, { ...make(0), limit: LIMIT });
  for (let i = 0; i < PER_KIND; i++) {
    for (const [name, make] of Object.entries(KINDS)) await time(name, { ...make(i), limit: LIMIT });
    const first = await store.search(TENANT, { label: [`feature=${JOB_FEATURES[i % 3]}`], agent: JOB_AGENTS[i % 4], limit: LIMIT });
    await time(SECOND_PAGE, {
      label: [`feature=${JOB_FEATURES[i % 3]}`],
      agent: JOB_AGENTS[i % 4],
      limit: LIMIT,
      cursor: first.nextCursor ?? undefined,
    });
  }
  await db.close();
  return { kind, jobs: JOBS, subtasks, bytes, size, archiveTotal, archiveMs, searches, hits };
}

const dir = mkdtempSync(join(tmpdir(), 'delegate-bench-record-'));
const pg = await startPostgres();
try {
  console.log(`record bench: ${JOBS} jobs per store, ${PER_KIND} searches of each of ${Object.keys(KINDS).length + 1} kinds`);
  const sqliteFile = join(dir, 'record.sqlite');
  const sqliteSize = async (r: RecordDb) => {
    // the WAL folded back into the file: what the record occupies at rest
    await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(r.db);
    return statSync(sqliteFile).size + (existsSync(`${sqliteFile}-wal`) ? statSync(`${sqliteFile}-wal`).size : 0);
  };
  const pgSize = async (r: RecordDb) => {
    await sql`CHECKPOINT`.execute(r.db);
    return Number((await sql<{ n: string }>`SELECT pg_database_size(current_database()) AS n`.execute(r.db)).rows[0].n);
  };
  const results = [
    await benchStore('SQLite', { sqliteFile }, sqliteSize),
    await benchStore('PostgreSQL', { databaseUrl: await createDatabase(pg.url, 'bench_record'), sqliteFile }, pgSize),
  ];
  const kinds = [...Object.keys(KINDS), SECOND_PAGE];
  const lines = [
    `| | ${results.map((r) => r.kind).join(' | ')} |`,
    `|---|${results.map(() => '---').join('|')}|`,
    `| jobs / subtasks archived | ${results.map((r) => `${r.jobs} / ${r.subtasks}`).join(' | ')} |`,
    `| archive per job, mean (p50 / p99) | ${results.map((r) => `${round(r.archiveTotal / r.jobs, 2)} ms (${round(pct(r.archiveMs, 50), 2)} / ${round(pct(r.archiveMs, 99), 2)})`).join(' | ')} |`,
    `| record bytes per subtask (archive's \`bytes\`) | ${results.map((r) => Math.round(r.bytes / r.subtasks)).join(' | ')} |`,
    `| database growth per subtask (file or pg_database_size) | ${results.map((r) => Math.round(r.size / r.subtasks)).join(' | ')} |`,
    `| database growth, total | ${results.map((r) => `${round(r.size / 2 ** 20)} MiB`).join(' | ')} |`,
    ...kinds.map(
      (k) =>
        `| search p50 / p99: ${k} (hits/query) | ${results.map((r) => `${round(pct(r.searches[k], 50), 2)} / ${round(pct(r.searches[k], 99), 2)} ms (${round(r.hits[k] / r.searches[k].length)})`).join(' | ')} |`,
    ),
    `| search p50 / p99: all ${kinds.length * PER_KIND} | ${results
      .map((r) => {
        const all = Object.values(r.searches).flat();
        return `${round(pct(all, 50), 2)} / ${round(pct(all, 99), 2)} ms`;
      })
      .join(' | ')} |`,
  ];
  console.log(`\n${lines.join('\n')}`);
  const out = join(root, 'bench', 'results');
  mkdirSync(out, { recursive: true });
  writeFileSync(
    join(out, 'record.json'),
    `${JSON.stringify({ bench: 'record', machine: machine(), table: lines, results: results.map(({ archiveMs: _a, searches, ...r }) => ({ ...r, searches: Object.fromEntries(Object.entries(searches).map(([k, v]) => [k, { p50: pct(v, 50), p99: pct(v, 99), n: v.length }])) })) }, null, 2)}\n`,
  );
  console.log('\n(written to bench/results/record.json)');
} finally {
  await pg.stop();
  rmSync(dir, { recursive: true, force: true });
}
