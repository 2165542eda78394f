/**
 * `npm run cluster` as a user runs it: from nothing (databases that do not exist yet; the
 * machine's PostgreSQL, started if it is down), the API answers and runs a job on the real
 * Temporal server; Ctrl-C stops every process (and the PostgreSQL it started); a second start
 * finds the job again. An offset whose port fetch refuses stops it at once, before anything starts.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../scripts/dev-server';
import { dropDatabase, isRoot } from '../../scripts/postgres';
import { clusterPorts, freePortOffset } from '../../scripts/temporal-server';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const KEY = 'cluster-test-key-0123456789abcdef';
const AUTH = { authorization: `Bearer ${KEY}` };

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `npm run cluster` with this test's ports and databases; resolves once it says it runs. */
async function startCluster(env: Record<string, string>): Promise<Started> {
  const child = spawn('npm', ['run', '--silent', 'cluster'], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // its own process group, as a terminal's foreground job: Ctrl-C reaches the whole group
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const deadline = Date.now() + 900_000; // a cold machine builds the server first
  while (!out.includes('Delegate is running on the production shape')) {
    if (child.exitCode !== null) throw new Error(`npm run cluster exited (${child.exitCode}):\n${out.slice(-3000)}`);
    if (Date.now() > deadline) throw new Error(`npm run cluster did not come up:\n${out.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return { child, output: () => out, exited };
}

/** Root, no DELEGATE_PG_ADMIN_URL: the cluster runs on the machine's (Debian) PostgreSQL. */
const machinePg = () => isRoot() && !process.env.DELEGATE_PG_ADMIN_URL;

/** The newest Debian cluster's version/name and whether it is online. */
async function debianPg(): Promise<{ id: [string, string]; online: boolean }> {
  const { stdout } = await run('pg_lsclusters', ['--no-header']);
  const [version, name, , status] = stdout
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .sort((a, b) => Number(b[0]) - Number(a[0]))[0];
  return { id: [version, name], online: status === 'online' };
}

/** True when something accepts connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/**
 * Ctrl-C: SIGINT to the whole process group, as a terminal sends it. npm then ends by the
 * signal, as it does in a terminal; the launcher must have stopped everything first.
 */
async function interrupt(started: Started, ports: number[]): Promise<void> {
  process.kill(-started.child.pid!, 'SIGINT');
  const { code, signal } = await started.exited;
  expect(code === 0 || signal === 'SIGINT', `exit ${code} ${signal}`).toBe(true);
  expect(started.output()).toContain('Stopped.');
  for (const port of ports) expect(await listening(port), `port ${port} still open`).toBe(false);
}

describe('npm run cluster', () => {
  const suffix = `${process.pid}`;
  const database = `temporal_clustertest_${suffix}`;
  let offset = 0;
  let apiPort = 0;
  let env: Record<string, string> = {};

  afterAll(async () => {
    // the test's databases go; the cluster's role stays, and the machine's PostgreSQL as it was
    const pg = machinePg() ? await debianPg() : undefined;
    if (pg && !pg.online) await run('pg_ctlcluster', [...pg.id, 'start']);
    for (const db of [database, `${database}_vis`]) {
      // as root the machine's cluster, administered by its `postgres` user (no URL: peer auth); else the test PostgreSQL
      if (pg) {
        await run('runuser', ['-u', 'postgres', '--', 'psql', '-tAc', `DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`]).catch(
          () => undefined,
        );
      } else await dropDatabase(inject('pgUrl'), db).catch(() => undefined);
    }
    if (pg && !pg.online) await run('pg_ctlcluster', [...pg.id, 'stop']);
  });

  it('refuses at once, before starting anything, an offset that puts the UI on a port fetch refuses', async () => {
    const began = Date.now();
    const child = spawn('npm', ['run', '--silent', 'cluster'], {
      cwd: root,
      env: { ...process.env, DELEGATE_CLUSTER_PORT_OFFSET: '2000', DELEGATE_LOG_FORMAT: 'json' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(out).toContain('Could not start the cluster: DELEGATE_CLUSTER_PORT_OFFSET=2000 cannot be used:');
    expect(out).toContain('the Temporal UI would be on :10080: fetch and browsers refuse port 10080');
    expect(out).not.toContain('Starting PostgreSQL');
    // the time to load the launcher, not the UI probe's 60 s
    expect(Date.now() - began).toBeLessThan(30_000);
  });

  it('comes up from nothing, runs a job, stops on Ctrl-C, and finds the job on a second start', async () => {
    offset = await freePortOffset();
    apiPort = await freePort();
    env = {
      DELEGATE_CLUSTER_PORT_OFFSET: String(offset),
      PORT: String(apiPort),
      DBNAME: database,
      VISIBILITY_DBNAME: `${database}_vis`,
      DELEGATE_API_KEYS: `default=${KEY}`,
      DELEGATE_WORKER_METRICS_PORT: '0',
      DELEGATE_TASK_QUEUE: `cluster-test-${suffix}`,
      DELEGATE_LOG_FORMAT: 'json',
      // not root: the test PostgreSQL stands in for the machine's
      ...(isRoot() ? {} : { DELEGATE_PG_ADMIN_URL: inject('pgUrl') }),
    };
    const api = `http://127.0.0.1:${apiPort}`;
    // the machine's PostgreSQL as it was before: a start that starts it stops it again
    const pgBefore = machinePg() ? await debianPg() : undefined;

    const first = await startCluster(env);
    expect(first.output()).toContain(`127.0.0.1:${clusterPorts(offset).FRONTEND_GRPC_PORT}`);
    const ready = await fetch(`${api}/readyz`);
    expect(ready.status).toBe(200);
    // the UI server on the same frontend
    expect(first.output()).toContain(`Temporal UI  http://127.0.0.1:${8080 + offset}`);
    const namespaces = (await (await fetch(`http://127.0.0.1:${8080 + offset}/api/v1/namespaces`)).json()) as {
      namespaces: { namespaceInfo: { name: string } }[];
    };
    expect(namespaces.namespaces.map((n) => n.namespaceInfo.name)).toContain('default');

    const jobId = `cluster-${suffix}`;
    const submit = await fetch(`${api}/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...AUTH },
      body: JSON.stringify({
        jobId,
        pattern: 'fanout',
        tasks: [
          { id: 'a', question: 'on the cluster', agent: 'echo' },
          { id: 'b', question: 'and again', agent: 'echo' },
        ],
      }),
    });
    expect(submit.status).toBe(201);
    const result = (await (await fetch(`${api}/v1/jobs/${jobId}/result?waitSeconds=60`, { headers: AUTH })).json()) as {
      status: string;
      output: Record<string, unknown>;
    };
    expect(result.status).toBe('success');
    expect(result.output).toEqual({ a: 'on the cluster', b: 'and again' });

    // Ctrl-C: a clean stop, and nothing of the stack left listening
    const ports = [apiPort, 8080 + offset, ...Object.values(clusterPorts(offset)).map(Number)];
    await interrupt(first, ports);
    if (pgBefore && !pgBefore.online) {
      const id = pgBefore.id.join('/');
      expect(first.output()).toContain(`Stopping PostgreSQL ${id} (it was not running before npm run cluster)`);
      // stopped, unless another stack on the machine connected to it meanwhile
      if (!first.output().includes(`left PostgreSQL ${id} running`)) {
        expect(first.output()).toContain(`stopped PostgreSQL ${id}`);
        expect((await debianPg()).online, 'PostgreSQL stopped with the cluster').toBe(false);
      }
    }

    // the data is in PostgreSQL: a second start shows the finished job
    const second = await startCluster(env);
    try {
      expect(second.output()).not.toContain('Could not');
      const status = (await (await fetch(`${api}/v1/jobs/${jobId}`, { headers: AUTH })).json()) as { status: string; state: string };
      expect(status).toMatchObject({ state: 'completed', status: 'success' });
    } finally {
      await interrupt(second, ports);
    }
  });
});
