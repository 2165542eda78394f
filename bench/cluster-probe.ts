/**
 * What one bench window cost, read from the operating system and PostgreSQL: CPU-seconds of
 * processes (/proc/<pid>/stat), a process's write syscalls and bytes (/proc/<pid>/io), and
 * for a PostgreSQL instance the CPU of every process of it plus pg_stat_database's commits
 * and changed tuples of the databases under test.
 *
 *   snapshot ─ run ─ snapshot ─ delta
 */
import { execSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import pg from 'pg';

const TICKS = Number(execSync('getconf CLK_TCK', { encoding: 'utf8' }).trim()) || 100;

/** /proc/<pid>/stat's ppid and CPU ticks (utime, stime, and those of reaped children); undefined when gone. */
function stat(pid: number): { ppid: number; comm: string; own: number; children: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = text.lastIndexOf(')');
    const comm = text.slice(text.indexOf('(') + 1, close);
    // fields after "(comm)": state ppid … utime(14) stime(15) cutime(16) cstime(17), 1-based over the whole line
    const f = text.slice(close + 2).split(' ');
    const n = (i: number) => Number(f[i - 3]);
    return { ppid: n(4), comm, own: (n(14) + n(15)) / TICKS, children: (n(16) + n(17)) / TICKS };
  } catch {
    return undefined;
  }
}

/** CPU-seconds a live process used so far, its reaped children's included. */
export function cpuSeconds(pid: number): number {
  const s = stat(pid);
  return s ? s.own + s.children : NaN;
}

/** Subtracts each numeric field. */
export const minus = <T extends Record<string, number>>(a: T, b: T): T =>
  Object.fromEntries(Object.keys(a).map((k) => [k, a[k]! - b[k]!])) as T;

/** One reading of a PostgreSQL instance. */
export interface PgSnapshot {
  /** CPU-seconds of every live child of the postmaster, by pid. */
  byPid: Map<number, number>;
  /** The whole instance: postmaster + reaped children + live children. */
  instance: number;
  /** Which database each backend serves (null: background processes). */
  datname: Map<number, string | null>;
  /** pg_stat_database of the databases under test: commits and inserted+updated+deleted tuples. */
  commits: number;
  tuples: number;
  /** WAL position (whole instance), in bytes. */
  walBytes: number;
}

/** The CPU and write counters of one PostgreSQL instance, for the databases `dbs`. */
export class PgProbe {
  private constructor(
    private readonly client: pg.Client,
    private readonly postmaster: number,
    private readonly dbs: string[],
  ) {}

  /** Connects (one connection for the probe's whole life, so its backend is one of "other databases"). */
  static async open(url: string, dbs: string[]): Promise<PgProbe> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const postmaster = stat(rows[0]!.pid)?.ppid;
    if (!postmaster) throw new Error('cannot find the PostgreSQL postmaster in /proc (is PostgreSQL on this machine?)');
    return new PgProbe(client, postmaster, dbs);
  }

  /** Reads every counter now. */
  async snapshot(): Promise<PgSnapshot> {
    const byPid = new Map<number, number>();
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      const s = stat(Number(name));
      if (s?.ppid === this.postmaster) byPid.set(Number(name), s.own);
    }
    const pm = stat(this.postmaster);
    const instance = (pm ? pm.own + pm.children : NaN) + [...byPid.values()].reduce((a, b) => a + b, 0);
    const activity = await this.client.query<{ pid: number; datname: string | null }>('SELECT pid, datname FROM pg_stat_activity');
    const db = await this.client.query<{ commits: string; tuples: string }>(
      'SELECT coalesce(sum(xact_commit), 0) AS commits, coalesce(sum(tup_inserted + tup_updated + tup_deleted), 0) AS tuples FROM pg_stat_database WHERE datname = ANY($1)',
      [this.dbs],
    );
    const wal = await this.client.query<{ b: string }>("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') AS b");
    return {
      byPid,
      instance,
      datname: new Map(activity.rows.map((r) => [r.pid, r.datname])),
      commits: Number(db.rows[0]!.commits),
      tuples: Number(db.rows[0]!.tuples),
      walBytes: Number(wal.rows[0]!.b),
    };
  }

  /**
   * CPU between two snapshots: `instance` (every process of the instance), `ours` (backends
   * connected to the databases under test, as listed at `after`) and `attributed` (the instance
   * minus backends of other databases: our backends plus the shared background processes).
   */
  cpu(before: PgSnapshot, after: PgSnapshot): { instance: number; ours: number; attributed: number } {
    let ours = 0;
    let others = 0;
    for (const [pid, cpu] of after.byPid) {
      const db = after.datname.get(pid);
      const used = cpu - (before.byPid.get(pid) ?? 0);
      if (db && this.dbs.includes(db)) ours += used;
      else if (db) others += used;
    }
    const instance = after.instance - before.instance;
    return { instance, ours, attributed: instance - others };
  }

  /** The server's version and the settings that decide a commit's cost. */
  async settings(): Promise<Record<string, string>> {
    const { rows } = await this.client.query<{ name: string; setting: string }>(
      "SELECT name, setting FROM pg_settings WHERE name IN ('server_version', 'fsync', 'synchronous_commit', 'full_page_writes', 'shared_buffers', 'max_connections')",
    );
    return Object.fromEntries(rows.map((r) => [r.name, r.setting]));
  }

  /** Closes the probe's connection. */
  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }
}
