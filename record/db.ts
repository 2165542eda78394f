/**
 * The record's database: one SQLite file by default, PostgreSQL when a URL is given.
 * Both speak through Kysely; only the schema's DDL and the free-text predicate differ.
 *
 *   DELEGATE_DATABASE_URL=postgres://…  → PostgreSQL (pg pool)
 *   unset                               → SQLite file (better-sqlite3, WAL: the API and the workers open it at once)
 */
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type Generated } from 'kysely';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import pg from 'pg';
import { migrate } from './migrations';

/** Which store a database is. */
export type Dialect = 'sqlite' | 'postgres';

/** One archived job (the whole result is its `result` plus its `job_subtasks` rows). */
export interface JobsTable {
  id: Generated<number>;
  tenant: string;
  job_id: string;
  workflow_id: string;
  spec_hash: string | null;
  pattern: string;
  status: string;
  /** Epoch ms. */
  started_at: number;
  closed_at: number;
  archived_at: number;
  objective: string | null;
  /** JSON object of the job's labels. */
  labels: string;
  subtasks: number;
  cost_micros: number;
  tokens: number;
  tool_calls: number;
  /** The first subtask summaries, shortened: what a search hit shows. */
  digest: string;
  /** JSON JobResult without its `results` (those are the job's `job_subtasks`). */
  result: string;
  /** Tokens of the objective, questions and summaries (see tokens.ts). */
  search_text: string;
}

/** A job's labels, one row each, for filters and top labels. */
export interface JobLabelsTable {
  job: number;
  tenant: string;
  key: string;
  value: string;
  closed_at: number;
}

/** A job's spend per agent, for the agent filter and spend by agent. */
export interface JobAgentsTable {
  job: number;
  tenant: string;
  agent_id: string;
  subtasks: number;
  cost_micros: number;
  tokens: number;
  closed_at: number;
}

/** Each subtask's TaskResult, in task order. */
export interface JobSubtasksTable {
  job: number;
  idx: number;
  task_id: string;
  agent_id: string;
  status: string;
  /** JSON TaskResult. */
  result: string;
}

/** The record's tables. */
export interface RecordTables {
  jobs: JobsTable;
  job_labels: JobLabelsTable;
  job_agents: JobAgentsTable;
  job_subtasks: JobSubtasksTable;
}

/** An open record database. */
export interface RecordDb {
  db: Kysely<RecordTables>;
  dialect: Dialect;
  /** Where it is, without credentials (for logs). */
  where: string;
  close(): Promise<void>;
}

/** Where the record lives: a PostgreSQL URL, else a SQLite file. */
export interface RecordLocation {
  databaseUrl?: string;
  sqliteFile: string;
}

/** The store a location names. */
export function dialectOf(loc: RecordLocation): Dialect {
  return loc.databaseUrl && /^postgres(ql)?:/i.test(loc.databaseUrl) ? 'postgres' : 'sqlite';
}

// int8 columns (ids, epoch ms, micro-dollars) come back as numbers: every value is below 2^53
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

/** Opens the record (creating the SQLite file's folder) and brings its schema up to date. */
export async function openRecordDb(loc: RecordLocation): Promise<RecordDb> {
  const dialect = dialectOf(loc);
  let db: Kysely<RecordTables>;
  let where: string;
  if (dialect === 'postgres') {
    const url = new URL(loc.databaseUrl!);
    where = `postgres://${url.host}${url.pathname}`;
    db = new Kysely<RecordTables>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: loc.databaseUrl, max: 10 }) }) });
  } else {
    if (loc.sqliteFile !== ':memory:') mkdirSync(dirname(loc.sqliteFile), { recursive: true });
    where = loc.sqliteFile;
    const file = new SQLite(loc.sqliteFile);
    // several processes (API, workers) share the file: readers never wait for the writer,
    // a writer waits its turn instead of failing at once
    file.pragma('journal_mode = WAL');
    file.pragma('busy_timeout = 10000');
    file.pragma('synchronous = NORMAL');
    file.pragma('foreign_keys = ON');
    db = new Kysely<RecordTables>({ dialect: new SqliteDialect({ database: file }) });
  }
  try {
    await migrate(db, dialect);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  return { db, dialect, where, close: () => db.destroy() };
}
