/**
 * The record's stores for tests that must hold on both: a fresh, empty record per call
 * (a temp SQLite file, or a new database on the PostgreSQL server test/setup/postgres.ts
 * provides), deleted after the test file.
 *
 *   describe.each(RECORD_STORES)('%s', (kind) => {
 *     const record = openFreshRecord(kind);          // opened before the block's tests, closed after
 *     it('…', async () => { await record.store.archive(…) });
 *   });
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';
import { createRecordStore, openRecordDb, type Dialect, type RecordDb, type RecordLocation, type RecordStore } from '../record';
import { createDatabase, dropDatabase } from '../scripts/postgres';

/** Every store the record runs on. */
export const RECORD_STORES = ['sqlite', 'postgres'] as const satisfies readonly Dialect[];

/** What this file created, deleted once the test file is done. */
const created: (() => Promise<void>)[] = [];
// a helper module's top-level hook belongs to the importing test file (vitest isolates files)
afterAll(async () => {
  for (const drop of created.splice(0)) await drop();
});

/** A location no record has used yet; dropped after the test file. */
export async function freshRecordLocation(kind: Dialect): Promise<RecordLocation> {
  const name = `r_${randomBytes(6).toString('hex')}`;
  const dir = mkdtempSync(join(tmpdir(), 'delegate-record-'));
  created.push(async () => rmSync(dir, { recursive: true, force: true }));
  const sqliteFile = join(dir, 'record.sqlite');
  if (kind === 'sqlite') return { sqliteFile };
  const adminUrl = inject('pgUrl');
  const databaseUrl = await createDatabase(adminUrl, name);
  created.push(() => dropDatabase(adminUrl, name));
  return { databaseUrl, sqliteFile };
}

/** A record opened before the enclosing block's tests and closed after them. */
export interface FreshRecord {
  readonly kind: Dialect;
  /** Where it is: give it to a worker or an API as DELEGATE_DATABASE_URL / DELEGATE_RECORD_FILE. */
  readonly location: RecordLocation;
  readonly store: RecordStore;
  /** The database under the store, for checks the store's API does not offer (row counts). */
  readonly db: RecordDb;
}

/** Call in a describe block: opens a fresh record of `kind` in beforeAll, closes it in afterAll. */
export function openFreshRecord(kind: Dialect): FreshRecord {
  let open: { location: RecordLocation; db: RecordDb; store: RecordStore } | undefined;
  beforeAll(async () => {
    const location = await freshRecordLocation(kind);
    const db = await openRecordDb(location);
    open = { location, db, store: createRecordStore(db) };
  });
  afterAll(async () => {
    await open?.db.close();
    open = undefined;
  });
  const get = () => {
    if (!open) throw new Error('openFreshRecord: the record is open only inside the tests of the block that called it');
    return open;
  };
  return {
    kind,
    get location() {
      return get().location;
    },
    get store() {
      return get().store;
    },
    get db() {
      return get().db;
    },
  };
}
