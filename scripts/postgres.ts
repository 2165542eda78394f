/**
 * A throwaway PostgreSQL cluster from Debian's packages, for the tests and the benches (and
 * developers: `tsx scripts/postgres.ts` prints a URL for DELEGATE_DATABASE_URL). No systemd,
 * no /etc/postgresql: its own data dir, port and socket dir, deleted when it stops.
 *
 *   initdb (trust, --no-sync) ─ pg_ctl start (127.0.0.1:free port, fsync off) ─ … ─ pg_ctl stop ─ rm -rf
 *   as the `postgres` user when run as root (initdb refuses root), else as the current user
 */
import pRetry from 'p-retry';
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './dev-server';

const run = promisify(execFile);

/** Where Debian installs PostgreSQL's server binaries, one folder per major version. */
const DEBIAN_ROOT = '/usr/lib/postgresql';

/** A running throwaway cluster. */
export interface Postgres {
  /** Superuser URL of its `postgres` database (trust auth: no password). */
  url: string;
  stop(): Promise<void>;
}

/** The newest installed server's bin folder; throws saying how to install one. */
export function postgresBin(): string {
  const versions = existsSync(DEBIAN_ROOT)
    ? readdirSync(DEBIAN_ROOT)
        .filter((v) => existsSync(join(DEBIAN_ROOT, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions.length) {
    throw new Error(
      `PostgreSQL is not installed (no ${DEBIAN_ROOT}/*/bin/initdb): apt-get install postgresql, or set DELEGATE_TEST_PG_URL to a server of yours`,
    );
  }
  return join(DEBIAN_ROOT, versions[0], 'bin');
}

/** Root may not run initdb or the server: it administers PostgreSQL as Debian's `postgres` user. */
export const isRoot = () => process.getuid?.() === 0;
/** initdb and the server refuse to run as root: as root, run them as Debian's `postgres` user. */
const asOwner = (cmd: string, args: string[]): [string, string[]] =>
  isRoot() ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];

/** Starts a cluster on a free port of 127.0.0.1; `stop()` (or this process exiting) stops it and deletes its files. */
export async function startPostgres(): Promise<Postgres> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'delegate-pg-'));
  if (isRoot()) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  const pgCtl = (...args: string[]) => asOwner(join(bin, 'pg_ctl'), ['-D', data, ...args]);
  const stopNow = () => {
    // immediate: a process on its way out cannot wait for a clean checkpoint, and the files go anyway
    const [cmd, args] = pgCtl('-m', 'immediate', '-w', 'stop');
    try {
      execFileSync(cmd, args, { stdio: 'ignore' });
    } catch {
      /* not running */
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stopNow);
  try {
    await run(...asOwner(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']));
    let port = 0;
    // the free port may be taken between the probe and the server's bind: try another
    await pRetry(
      async () => {
        port = await freePort();
        const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
        await run(...pgCtl('-l', log, '-w', '-t', '60', '-o', opts, 'start'));
      },
      { retries: 2, minTimeout: 0 },
    );
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      async stop() {
        process.removeListener('exit', stopNow);
        await run(...pgCtl('-m', 'fast', '-w', 'stop')).catch(() => undefined);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    const tail = existsSync(log) ? readFileSync(log, 'utf8').split('\n').slice(-15).join('\n') : '';
    process.removeListener('exit', stopNow);
    stopNow();
    throw new Error(
      `could not start PostgreSQL from ${bin}: ${err instanceof Error ? err.message : String(err)}${tail ? `\nserver log:\n${tail}` : ''}`,
    );
  }
}

/** Database names this module creates and drops: plain identifiers, so quoting them is enough. */
const DB_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Runs one statement on the server as the admin URL's user. */
async function admin(adminUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Creates database `name` on the server of `adminUrl`; returns its URL (same user and host). */
export async function createDatabase(adminUrl: string, name: string): Promise<string> {
  if (!DB_NAME.test(name)) throw new Error(`not a database name: ${name}`);
  await admin(adminUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops database `name` (closing its other connections first); nothing when it does not exist. */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  if (!DB_NAME.test(name)) throw new Error(`not a database name: ${name}`);
  await admin(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const server = await startPostgres();
  console.log(`PostgreSQL at ${server.url} (throwaway: deleted on Ctrl-C)`);
  console.log(`  DELEGATE_DATABASE_URL=${server.url} npm start`);
  // the server runs detached: keep this process (and so the cluster) alive until asked to stop
  const alive = setInterval(() => undefined, 1 << 30);
  const quit = () =>
    void server.stop().then(() => {
      clearInterval(alive);
      process.exit(0);
    });
  process.once('SIGINT', quit);
  process.once('SIGTERM', quit);
}
