/**
 * The record's database: one SQLite file by default, PostgreSQL when a URL is given.
 * Both speak through Kysely; only the schema's DDL and the free-text predicate differ.
 * The tables are tables.ts, SQLite's own handling sqlite.ts.
 *
 *   DELEGATE_DATABASE_URL=postgres://…  → PostgreSQL (pg pool)
 *   unset                               → SQLite file (better-sqlite3, WAL: the API and the workers open it at once)
 */
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { migrate } from './migrations';
import { openSqliteRecord } from './sqlite';
import type { Dialect, RecordDb, RecordTables } from './tables';

export type * from './tables';

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
  return openSqliteRecord(loc.sqliteFile, (db) => migrated(db, 'sqlite'));
}
