/**
 * The record's migrator, on both stores: processes that open a fresh record at the same
 * moment apply each migration once between them, and a failing migration leaves nothing.
 */
import SQLite from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openRecordDb, type Dialect, type RecordLocation } from '../../record';
import { MIGRATIONS, migrate } from '../../record/migrations';
import { freshRecordLocation, RECORD_STORES } from '../record-stores';

const dbModule = new URL('../../record/db.ts', import.meta.url).pathname;

/** A process that opens the record at `loc` when told to (stdin), then closes it. */
function opener(loc: RecordLocation) {
  const code = `import { openRecordDb } from ${JSON.stringify(dbModule)};
console.log('ready');
process.stdin.once('data', async () => { const r = await openRecordDb(JSON.parse(process.env.LOC)); await r.close(); console.log('opened'); process.exit(0); });`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    env: { ...process.env, LOC: JSON.stringify(loc) },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const ready = new Promise<void>((resolve, reject) => {
    const check = () => (out.includes('ready') ? resolve() : undefined);
    child.stdout.on('data', check);
    child.once('exit', () => reject(new Error(`opener exited before ready: ${err}`)));
  });
  const done = new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, out, err })),
  );
  return { ready, go: () => child.stdin.end('go\n'), done };
}

/** A bare connection to the location, no migration run. */
function bare(kind: Dialect, loc: RecordLocation): Kysely<unknown> {
  return kind === 'sqlite'
    ? new Kysely({ dialect: new SqliteDialect({ database: new SQLite(loc.sqliteFile) }) })
    : new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: loc.databaseUrl, max: 2 }) }) });
}

/** The tables of the database (the record's schema only: SQLite's FTS shadow tables aside). */
async function tables(kind: Dialect, db: Kysely<unknown>): Promise<string[]> {
  const q =
    kind === 'sqlite'
      ? sql<{
          name: string;
        }>`SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger') AND name NOT LIKE 'jobs_fts_%' ORDER BY name`
      : sql<{ name: string }>`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`;
  return (await q.execute(db)).rows.map((r) => r.name);
}

const applied = async (db: Kysely<unknown>) =>
  (await sql<{ name: string }>`SELECT name FROM schema_migrations ORDER BY name`.execute(db)).rows.map((r) => r.name);

/** A migration that creates a table, then fails on its second statement. */
const failing = {
  name: '0099_fails',
  sqlite: ['CREATE TABLE half_done (x INTEGER)', 'SELECT * FROM no_such_table'],
  postgres: ['CREATE TABLE half_done (x INTEGER)', 'SELECT * FROM no_such_table'],
};
const extra = { name: '0098_extra', sqlite: ['CREATE TABLE extra (x INTEGER)'], postgres: ['CREATE TABLE extra (x INTEGER)'] };

describe.each(RECORD_STORES)('record migrations on %s', (kind) => {
  it('three processes opening a fresh record at once apply each migration once', async () => {
    const loc = await freshRecordLocation(kind);
    // like the API, a worker and a prune run started together on a new machine
    const openers = [opener(loc), opener(loc), opener(loc)];
    await Promise.all(openers.map((o) => o.ready));
    for (const o of openers) o.go();
    const outcomes = await Promise.all(openers.map((o) => o.done));
    for (const o of outcomes) expect(o, o.err).toMatchObject({ code: 0, out: expect.stringContaining('opened') });
    const db = bare(kind, loc);
    try {
      expect(await applied(db)).toEqual(MIGRATIONS.map((m) => m.name));
      expect(await tables(kind, db)).toEqual(expect.arrayContaining(['jobs', 'job_events', 'scouts']));
    } finally {
      await db.destroy();
    }
  });

  it('two opens in one process at once share the schema work', async () => {
    const loc = await freshRecordLocation(kind);
    const [a, b] = await Promise.all([openRecordDb(loc), openRecordDb(loc)]);
    // each works on its own after the other closed
    await a.close();
    expect((await sql<{ name: string }>`SELECT name FROM schema_migrations`.execute(b.db)).rows.map((r) => r.name)).toEqual(
      MIGRATIONS.map((m) => m.name),
    );
    await b.close();
    const c = await openRecordDb(loc);
    expect(await migrate(c.db, kind)).toEqual([]);
    await c.close();
  });

  it('a failing migration leaves nothing behind, on a fresh database and on an up-to-date one', async () => {
    const loc = await freshRecordLocation(kind);
    const db = bare(kind, loc);
    try {
      // fresh: the whole run rolls back, the record's own tables and schema_migrations included
      await expect(migrate(db, kind, [...MIGRATIONS, extra, failing])).rejects.toThrow(/no_such_table/);
      expect(await tables(kind, db)).toEqual([]);
      // up to date, then a run whose second migration fails: its first is rolled back too
      expect(await migrate(db, kind)).toEqual(MIGRATIONS.map((m) => m.name));
      const before = await tables(kind, db);
      await expect(migrate(db, kind, [...MIGRATIONS, extra, failing])).rejects.toThrow(/no_such_table/);
      expect(await tables(kind, db)).toEqual(before);
      expect(await applied(db)).toEqual(MIGRATIONS.map((m) => m.name));
      // and the next good run applies what is pending, once
      expect(await migrate(db, kind, [...MIGRATIONS, extra])).toEqual(['0098_extra']);
      expect(await migrate(db, kind, [...MIGRATIONS, extra])).toEqual([]);
      expect(await tables(kind, db)).toEqual([...before, 'extra'].sort());
    } finally {
      await db.destroy();
    }
  });
});
