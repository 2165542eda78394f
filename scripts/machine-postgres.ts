/**
 * The machine's own PostgreSQL (Debian's `postgresql` package), for `npm run cluster`:
 * started with pg_ctlcluster if it is down (created with pg_createcluster if there is none),
 * and given the roles and databases the cluster needs. Data stays in the Debian cluster, so a
 * second start finds it. As root, administration runs as the `postgres` user (peer auth).
 *
 * DELEGATE_PG_ADMIN_URL instead names any PostgreSQL and a superuser (not Debian, not root).
 */
import { execFile } from 'node:child_process';
import { basename, dirname } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { isRoot, postgresBin } from './postgres';

const run = promisify(execFile);

/** A login role to have, and optionally a database it owns. */
export interface PostgresRole {
  user: string;
  password: string;
  /** May create databases (Temporal's SQL tool creates its own). */
  createdb?: boolean;
  /** A database owned by this role, created if missing. */
  database?: string;
}

/** Where the cluster listens (TCP, password auth for the roles). */
export interface PostgresEndpoint {
  host: string;
  port: number;
  /**
   * Set when `machinePostgres` started the Debian cluster (it was down): stops it again
   * (pg_ctlcluster stop), unless other clients are connected to it by then (another stack that
   * found it running); resolves to what it did.
   */
  stop?: () => Promise<string>;
  /** e.g. "15/main", with `stop`. */
  started?: string;
}

/** One line of `pg_lsclusters`. */
interface DebianCluster {
  version: string;
  name: string;
  port: number;
  status: string;
}

async function debianClusters(): Promise<DebianCluster[]> {
  const { stdout } = await run('pg_lsclusters', ['--no-header']);
  return stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [version, name, port, status] = line.trim().split(/\s+/);
      return { version, name, port: Number(port), status };
    });
}

const quoteIdent = (s: string) => `"${s.replace(/"/g, '""')}"`;
const quoteLiteral = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** Runs SQL as the `postgres` superuser over the Debian cluster's socket. */
async function asPostgres(port: number, sql: string): Promise<string> {
  const args = ['-u', 'postgres', '--', 'psql', '-p', String(port), '-v', 'ON_ERROR_STOP=1', '-tAc', sql];
  const { stdout } = await run('runuser', args);
  return stdout.trim();
}

/** The statements that give each role (and its database), idempotent: checks first. */
async function ensureRoles(query: (sql: string) => Promise<string>, roles: PostgresRole[]): Promise<void> {
  for (const role of roles) {
    const exists = await query(`SELECT 1 FROM pg_roles WHERE rolname = ${quoteLiteral(role.user)}`);
    const verb = exists ? 'ALTER' : 'CREATE';
    await query(
      `${verb} ROLE ${quoteIdent(role.user)} LOGIN ${role.createdb ? 'CREATEDB' : 'NOCREATEDB'} PASSWORD ${quoteLiteral(role.password)}`,
    );
    if (role.database) {
      const has = await query(`SELECT 1 FROM pg_database WHERE datname = ${quoteLiteral(role.database)}`);
      if (!has) await query(`CREATE DATABASE ${quoteIdent(role.database)} OWNER ${quoteIdent(role.user)}`);
    }
  }
}

/** Options of `machinePostgres`. */
export interface MachinePostgresOptions {
  /** A superuser URL of the PostgreSQL to use. @default $DELEGATE_PG_ADMIN_URL, else the newest Debian cluster */
  adminUrl?: string;
  log?: (line: string) => void;
}

/** Makes sure PostgreSQL runs and has `roles`; returns where it listens. */
export async function machinePostgres(roles: PostgresRole[], opts: MachinePostgresOptions = {}): Promise<PostgresEndpoint> {
  const log = opts.log ?? (() => {});
  const adminUrl = opts.adminUrl ?? process.env.DELEGATE_PG_ADMIN_URL;
  if (adminUrl) {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await ensureRoles(async (sql) => {
        const res = await client.query(sql);
        return res.rows.length ? '1' : '';
      }, roles);
    } finally {
      await client.end();
    }
    const url = new URL(adminUrl);
    return { host: url.hostname || '127.0.0.1', port: Number(url.port || 5432) };
  }
  if (!isRoot()) {
    throw new Error(
      "Starting the machine's PostgreSQL needs root (pg_ctlcluster); or set DELEGATE_PG_ADMIN_URL=postgres://superuser:password@host:port/postgres",
    );
  }
  let clusters: DebianCluster[];
  try {
    clusters = await debianClusters();
  } catch {
    throw new Error('PostgreSQL is not installed (no pg_lsclusters): apt-get install postgresql, or set DELEGATE_PG_ADMIN_URL');
  }
  let cluster = clusters.sort((a, b) => Number(b.version) - Number(a.version))[0];
  if (!cluster) {
    // the newest installed server's version: its bin folder is /usr/lib/postgresql/<version>/bin
    const version = basename(dirname(postgresBin()));
    log(`Creating the PostgreSQL ${version} cluster "main" (pg_createcluster)...`);
    await run('pg_createcluster', [version, 'main']);
    cluster = (await debianClusters())[0];
  }
  const endpoint: PostgresEndpoint = { host: '127.0.0.1', port: cluster.port };
  if (cluster.status !== 'online') {
    log(`Starting PostgreSQL ${cluster.version}/${cluster.name} on :${cluster.port} (pg_ctlcluster)...`);
    await run('pg_ctlcluster', [cluster.version, cluster.name, 'start']);
    const { version, name } = cluster;
    endpoint.started = `${version}/${name}`;
    endpoint.stop = async () => {
      const others = Number(
        await asPostgres(
          cluster.port,
          "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
        ),
      );
      if (others > 0) return `left PostgreSQL ${version}/${name} running: ${others} other connection${others > 1 ? 's' : ''} use it`;
      await run('pg_ctlcluster', [version, name, 'stop']);
      return `stopped PostgreSQL ${version}/${name}`;
    };
  }
  try {
    await ensureRoles((sql) => asPostgres(cluster.port, sql), roles);
  } catch (err) {
    await endpoint.stop?.().catch(() => undefined);
    throw err;
  }
  return endpoint;
}
