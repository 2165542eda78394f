/**
 * The record's database: one SQLite file by default, PostgreSQL when a URL is given.
 * Both speak through Kysely; only the schema's DDL and the free-text predicate differ.
 *
 *   DELEGATE_DATABASE_URL=postgres://…  → PostgreSQL (pg pool)
 *   unset                               → SQLite file (better-sqlite3, WAL: the API and the workers open it at once)
 */
import pRetry from 'p-retry';
import { LRUCache } from 'lru-cache';
import SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type Generated,
  type SqliteDatabase,
  type SqliteDialectConfig,
} from 'kysely';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
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

/** A job's live events, numbered per job from 1 in the order they were written. */
export interface JobEventsTable {
  tenant: string;
  job_id: string;
  seq: number;
  /** What makes the event unique in its job (a retried write of it is skipped). */
  key: string;
  type: string;
  /** JSON of the event's data. */
  data: string;
  /** Epoch ms. */
  at: number;
}

/** One code scout: reserved against its caps when dispatched, its report once committed (see scouts.ts). */
export interface ScoutsTable {
  tenant: string;
  /** `scout-{slug}-{date}-{rand6}`. */
  id: string;
  parent_agent: string;
  parent_session_id: string;
  feature_slug: string | null;
  question: string;
  /** The normalised scope paths, sorted, joined by newlines: what the per-scope cap counts. */
  scope_key: string;
  /** JSON array of the scope paths as given. */
  scope: string;
  excerpt: string;
  job_id: string | null;
  /** `dispatched` | `prepped` (a harness runs it) | `committed` | `error`. */
  state: string;
  /** JSON of the report. */
  report: string | null;
  report_status: string | null;
  tokens: number | null;
  /** Epoch ms. */
  created_at: number;
  committed_at: number | null;
  failed_at: number | null;
  /** Invalid reports a harness sent for a prepped scout (the second is final). */
  report_attempts: Generated<number>;
}

/** Task statistics: how many subtasks of an agent in a pattern's jobs fell in a metric's bin on one day (see task-stats.ts). */
export interface TaskStatsTable {
  tenant: string;
  agent_id: string;
  pattern: string;
  /** Epoch ms of the day's start (UTC). */
  bucket: number;
  /** A StatMetric (core/forecast-sketch.ts). */
  metric: string;
  bin: number;
  n: number;
}

/** One inbox item: an approval, a question or a budget wait a subtask (or job) opened (see inbox.ts). */
export interface InboxTable {
  tenant: string;
  id: string;
  kind: string;
  reason: string;
  /** `pending` until decided, answered, timed out or cancelled. */
  state: string;
  job_id: string;
  task_id: string | null;
  workflow_id: string;
  /** JSON objects. */
  labels: string;
  detail: string;
  on_timeout: string;
  /** Epoch ms. */
  requested_at: number;
  expires_at: number;
  decided_at: number | null;
  decided_by: string | null;
  note: string | null;
  /** JSON of a question's answer. */
  answer: string | null;
}

/** The deployment's identity: one row, made with the record (see deployment.ts). */
export interface DeploymentTable {
  /** Always 1: the table holds one row. */
  one: number;
  /** Random hex: what the deployment's workers carry in their Temporal identity. */
  id: string;
  /** Epoch ms. */
  created_at: number;
}

/** A job's completion webhook: its URL and A2A token, named in the workflow input by `ref` only (see callbacks.ts). */
export interface JobCallbacksTable {
  /** Random: the opaque reference the job's input carries. */
  ref: string;
  tenant: string;
  job_id: string;
  url: string;
  /** `delegate` | `a2a`. */
  format: string;
  token: string | null;
  /** Epoch ms. */
  created_at: number;
}

/** Where a root job came from (see parent-sessions.ts). */
export interface JobOriginsTable {
  tenant: string;
  job_id: string;
  /** The job's W3C trace id (32 hex). */
  trace_id: string;
  /** The parent session that submitted it, if one said so. */
  parent_session: string | null;
  /** Epoch ms. */
  created_at: number;
}

/** A parent session's current model and output cap (see parent-sessions.ts). */
export interface ParentSessionsTable {
  tenant: string;
  session_id: string;
  model: string | null;
  max_output_tokens: number | null;
  /** Epoch ms of its latest request that named them. */
  updated_at: number;
}

/** The record's tables. */
export interface RecordTables {
  job_origins: JobOriginsTable;
  parent_sessions: ParentSessionsTable;
  deployment: DeploymentTable;
  job_callbacks: JobCallbacksTable;
  inbox: InboxTable;
  jobs: JobsTable;
  job_labels: JobLabelsTable;
  job_agents: JobAgentsTable;
  job_subtasks: JobSubtasksTable;
  job_events: JobEventsTable;
  scouts: ScoutsTable;
  feature_dossiers: FeatureDossiersTable;
  task_stats: TaskStatsTable;
}

/** A closed feature's dossier: one entry per scout filed (JSON array). */
export interface FeatureDossiersTable {
  tenant: string;
  feature_slug: string;
  /** Epoch ms of the first close. */
  closed_at: number;
  /** JSON array of the dossier's entries, in the order filed. */
  entries: string;
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

/**
 * SQLite files this process has open, one Kysely (one connection) each, shared by every
 * `openRecordDb` of the file until the last closes it. better-sqlite3 waits for a lock by
 * blocking the thread: two connections of one process deadlock while one holds a write
 * transaction across an await (10 s, then "database is locked"). One shared connection
 * queues its transactions instead (Kysely's SQLite driver runs one at a time).
 */
const sqliteFiles = new Map<string, { db: Promise<Kysely<RecordTables>>; users: number }>();

/** better-sqlite3's "database is locked" family: SQLITE_BUSY and its extended codes (SQLITE_BUSY_SNAPSHOT, …). */
function isSqliteBusy(err: unknown): boolean {
  return /^SQLITE_BUSY/.test(String((err as { code?: unknown } | null)?.code ?? ''));
}

/**
 * Runs `step` again while SQLite answers "database is locked", until `forMs` have passed on the
 * clock. Switching a file to WAL while another process opens it fails at once: SQLite calls no
 * busy handler there. A `BEGIN IMMEDIATE` answers busy only after busy_timeout, so counting the
 * pauses alone would let it wait busy_timeout for each of forMs / 50 tries.
 */
async function untilUnlocked<T>(step: () => T | Promise<T>, forMs = 10_000): Promise<T> {
  return pRetry(step, {
    retries: Number.POSITIVE_INFINITY,
    minTimeout: 50,
    factor: 1,
    maxRetryTime: forMs,
    shouldRetry: ({ error }) => isSqliteBusy(error),
  });
}

/**
 * Every transaction of the record writes, so it takes the write lock when it begins
 * (`BEGIN IMMEDIATE`), where SQLite waits busy_timeout for another process's writer. A plain
 * `BEGIN` reads first and asks for the lock at its first write: when another process
 * committed in between, SQLite answers "database is locked" (SQLITE_BUSY_SNAPSHOT) at once,
 * without waiting, and the write is lost unless the caller retries it (job events were).
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await untilUnlocked(() => connection.executeQuery(CompiledQuery.raw('begin immediate')), 30_000);
  }
}

/** Kysely's SQLite dialect with `ImmediateSqliteDriver`. */
class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.settings);
  }
}

/** Statements the record keeps prepared (the distinct queries it runs, with room for `in (…)` lists of several lengths). */
const KEPT_STATEMENTS = 256;

/**
 * The handle as Kysely sees it, keeping its prepared statements: Kysely prepares every query it
 * runs, and on the record's small writes preparing cost as much as running (a job's step event
 * is five statements). Kysely runs one query at a time on its one connection, so a kept
 * statement is never in use twice; the least recently used one goes past KEPT_STATEMENTS.
 */
export function keptStatements(handle: SQLite.Database, size = KEPT_STATEMENTS): SqliteDatabase {
  const kept = new LRUCache<string, SQLite.Statement>({ max: size });
  return {
    close: () => void handle.close(),
    prepare(sql: string) {
      let stmt = kept.get(sql);
      if (!stmt) kept.set(sql, (stmt = handle.prepare(sql)));
      return stmt;
    },
  };
}

async function openSqlite(file: string): Promise<Kysely<RecordTables>> {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const handle = new SQLite(file);
  // several processes (API, workers) share the file: readers never wait for the writer,
  // a writer waits its turn instead of failing at once (busy_timeout first: WAL needs a lock)
  handle.pragma('busy_timeout = 10000');
  await untilUnlocked(() => handle.pragma('journal_mode = WAL'));
  handle.pragma('synchronous = NORMAL');
  handle.pragma('foreign_keys = ON');
  return migrated(new Kysely<RecordTables>({ dialect: new ImmediateSqliteDialect({ database: keptStatements(handle) }) }), 'sqlite');
}

/** `db` with its schema up to date; closed when a migration fails. */
async function migrated(db: Kysely<RecordTables>, dialect: Dialect): Promise<Kysely<RecordTables>> {
  try {
    await migrate(db, dialect);
    return db;
  } catch (err) {
    await db.destroy();
    throw err;
  }
}

/** Opens the record (creating the SQLite file's folder) and brings its schema up to date. */
export async function openRecordDb(loc: RecordLocation): Promise<RecordDb> {
  if (dialectOf(loc) === 'postgres') {
    const url = new URL(loc.databaseUrl!);
    const pool = new pg.Pool({ connectionString: loc.databaseUrl, max: 10 });
    // an idle connection the server ends (a restart, an operator's terminate) is dropped and
    // replaced on the next query; unheard, its error would end the whole process
    pool.on('error', (err) =>
      console.warn(`record: an idle PostgreSQL connection ended (${err.message}); it is replaced on the next query`),
    );
    const db = await migrated(new Kysely<RecordTables>({ dialect: new PostgresDialect({ pool }) }), 'postgres');
    return { db, dialect: 'postgres', where: `postgres://${url.host}${url.pathname}`, close: () => db.destroy() };
  }
  const file = loc.sqliteFile;
  // ':memory:' is a new database each time: never shared
  const key = file === ':memory:' ? undefined : resolve(file);
  let open = key ? sqliteFiles.get(key) : undefined;
  if (!open) {
    open = { db: openSqlite(file), users: 0 };
    if (key) sqliteFiles.set(key, open);
  }
  const entry = open;
  entry.users++;
  let db: Kysely<RecordTables>;
  try {
    db = await entry.db;
  } catch (err) {
    // a failed open is not kept: the next one tries again
    if (key && sqliteFiles.get(key) === entry) sqliteFiles.delete(key);
    throw err;
  }
  let closed = false;
  return {
    db,
    dialect: 'sqlite',
    where: file,
    async close() {
      if (closed) return;
      closed = true;
      if (--entry.users > 0) return;
      if (key && sqliteFiles.get(key) === entry) sqliteFiles.delete(key);
      await db.destroy();
    },
  };
}
