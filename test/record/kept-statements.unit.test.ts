import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { keptStatements } from '../../record/sqlite';

describe("the record's kept statements", () => {
  it('prepares a query once and gives the same statement back, with the answers of a fresh one', () => {
    const handle = new SQLite(':memory:');
    const db = keptStatements(handle);
    db.prepare('create table t (k text primary key, v int)').run([]);
    const insert = db.prepare('insert into t (k, v) values (?, ?)');
    insert.run(['a', 1]);
    expect(db.prepare('insert into t (k, v) values (?, ?)')).toBe(insert);
    db.prepare('insert into t (k, v) values (?, ?)').run(['b', 2]);
    expect(db.prepare('select k, v from t order by k').all([])).toEqual([
      { k: 'a', v: 1 },
      { k: 'b', v: 2 },
    ]);
    db.close();
    expect(handle.open).toBe(false);
  });

  it('keeps at most `size` statements, dropping the least recently used', () => {
    const handle = new SQLite(':memory:');
    const db = keptStatements(handle, 2);
    const one = db.prepare('select 1');
    const two = db.prepare('select 2');
    expect(db.prepare('select 1')).toBe(one); // now "select 2" is the least recently used
    db.prepare('select 3');
    expect(db.prepare('select 1')).toBe(one);
    expect(db.prepare('select 2')).not.toBe(two);
    handle.close();
  });
});
