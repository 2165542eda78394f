/**
 * The record on SQLite: one file that the API and the workers open at once (WAL), one shared
 * connection per file in a process, transactions that take the write lock when they begin, and
 * the statements kept prepared.
 *
 *   openSqliteRecord(file) ── shared in this process? ── no: open, WAL, busy_timeout, migrate ── Kysely (one connection)
 *                                                     └─ yes: the same Kysely, one more user (closed by the last)
 */
import pRetry from 'p-retry';
import { LRUCache } from 'lru-cache';
import SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type SqliteDatabase,
  type SqliteDialectConfig,
} from 'kysely';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { RecordDb } from './tables';
import type { RecordTables } from './tables';

/** What brings a new connection's schema up to date (db.ts: the migrations), closing it when they fail. */
type Prepare = (db: Kysely<RecordTables>) => Promise<Kysely<RecordTables>>;

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

/** A new connection to `file`, set up for several processes, its schema brought up to date by `prepare`. */
async function openSqlite(file: string, prepare: Prepare): Promise<Kysely<RecordTables>> {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const handle = new SQLite(file);
  // several processes (API, workers) share the file: readers never wait for the writer,
  // a writer waits its turn instead of failing at once (busy_timeout first: WAL needs a lock)
  handle.pragma('busy_timeout = 10000');
  await untilUnlocked(() => handle.pragma('journal_mode = WAL'));
  handle.pragma('synchronous = NORMAL');
  handle.pragma('foreign_keys = ON');
  return prepare(new Kysely<RecordTables>({ dialect: new ImmediateSqliteDialect({ database: keptStatements(handle) }) }));
}

/** Opens the SQLite record `file` (creating its folder), or shares this process's open one; `prepare` migrates a new one. */
export async function openSqliteRecord(file: string, prepare: Prepare): Promise<RecordDb> {
  // ':memory:' is a new database each time: never shared
  const key = file === ':memory:' ? undefined : resolve(file);
  let open = key ? sqliteFiles.get(key) : undefined;
  if (!open) {
    open = { db: openSqlite(file, prepare), users: 0 };
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
