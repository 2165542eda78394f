/**
 * `npm start` as a user runs it (its own process group, free ports, a temporary data folder),
 * then `kill -9` of each child in turn — the worker, the API, the Temporal dev server (and its
 * Web UI): each comes back, the others keep their processes, /readyz names what is down
 * meanwhile, and a job submitted after the restart finishes. Ctrl-C still stops everything.
 * A worker that dies at every start is given up on, by name, with its last log lines.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/dev-server';
import type { StackStatus } from '../../scripts/supervisor';

const root = fileURLToPath(new URL('../..', import.meta.url));
const KEY = 'supervisor-test-key-0123456789abcdef';
const AUTH = { authorization: `Bearer ${KEY}` };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  dir: string;
  ports: { api: number; temporal: number; ui: number };
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** `npm start` on free ports and a temporary data folder; resolves once the stack is spawned (not yet ready). */
async function npmStart(extra: Record<string, string> = {}): Promise<Started> {
  const dir = mkdtempSync(join(tmpdir(), 'delegate-supervisor-'));
  dirs.push(dir);
  const ports = { api: await freePort(), temporal: await freePort(), ui: await freePort() };
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DELEGATE_DATA_DIR: dir,
    DELEGATE_TEMPORAL_PORT: String(ports.temporal),
    DELEGATE_TEMPORAL_UI_PORT: String(ports.ui),
    PORT: String(ports.api),
    DELEGATE_API_KEYS: `default=${KEY}`,
    DELEGATE_RECORD_FILE: join(dir, 'record.db'),
    DELEGATE_WORKER_METRICS_PORT: '0',
    DELEGATE_TASK_QUEUE: `supervisor-test-${process.pid}`,
    DELEGATE_LOG_FORMAT: 'json',
    ...extra,
  };
  // npm start runs its own dev server: nothing of the caller's Temporal
  delete env.TEMPORAL_ADDRESS;
  delete env.TEMPORAL_UI_URL;
  const child = spawn('npm', ['run', '--silent', 'start'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => out, exited, dir, ports };
}

async function until<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  started: Started,
  timeoutMs = 90_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (started.child.exitCode !== null) throw new Error(`npm start exited while waiting for ${what}:\n${started.output().slice(-3000)}`);
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms:\n${started.output().slice(-3000)}`);
    await sleep(everyMs);
  }
}

const statusOf = (s: Started): StackStatus => JSON.parse(readFileSync(join(s.dir, 'stack.json'), 'utf8')) as StackStatus;
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const readyz = async (s: Started) => {
  const res = await fetch(`http://127.0.0.1:${s.ports.api}/readyz`, { signal: AbortSignal.timeout(5000) }).catch(() => undefined);
  return res ? { status: res.status, body: (await res.json()) as { down?: string[]; title?: string; detail?: string } } : undefined;
};

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** Submits an echo job and waits for its result. */
async function runJob(s: Started, jobId: string): Promise<{ status: string; output: unknown }> {
  const api = `http://127.0.0.1:${s.ports.api}`;
  const submit = await fetch(`${api}/v1/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...AUTH },
    body: JSON.stringify({ jobId, pattern: 'fanout', tasks: [{ id: 'a', question: jobId, agent: 'echo' }] }),
  });
  expect(submit.status, await submit.clone().text()).toBe(201);
  for (;;) {
    const res = await fetch(`${api}/v1/jobs/${jobId}/result?waitSeconds=30`, { headers: AUTH });
    if (res.status === 200) return (await res.json()) as { status: string; output: unknown };
    expect(res.status).toBe(202);
  }
}

describe('npm start supervises its children', () => {
  it('restarts each child after kill -9 while the rest stay up; /readyz names what is down; Ctrl-C stops all', async () => {
    const s = await npmStart();
    try {
      await until('Delegate is running', () => (s.output().includes('Delegate is running.') ? true : undefined), s, 120_000, 250);
      expect((await runJob(s, 'before')).status).toBe('success');

      for (const name of ['worker', 'api', 'temporal'] as const) {
        const before = statusOf(s).children;
        const pid = before[name]!.pid!;
        process.kill(pid, 'SIGKILL');
        const seenDown: string[] = [];
        if (name !== 'api') {
          // the API keeps answering, naming what is down
          const notReady = await until(
            `/readyz 503 naming ${name}`,
            async () => {
              const r = await readyz(s);
              return r?.status === 503 && r.body.down?.some((d) => d.startsWith(`${name} (restarting after SIGKILL`)) ? r : undefined;
            },
            s,
            30_000,
          );
          seenDown.push(...notReady.body.down!);
          // Temporal itself: unreachable, or answering again a moment before the supervisor saw it up
          if (name === 'temporal') expect(['Temporal unavailable', 'Delegate degraded']).toContain(notReady.body.title);
          else expect(notReady.body).toMatchObject({ title: 'Delegate degraded', detail: expect.stringContaining(`down: ${name}`) });
        }
        // back, as a new process; /readyz says all is well again
        const back = await until(
          `${name} up again`,
          () => {
            const c = statusOf(s).children[name]!;
            return c.state === 'up' && c.pid !== pid ? c : undefined;
          },
          s,
        );
        expect(back.restarts).toBe(1);
        await until('/readyz 200', async () => ((await readyz(s))?.status === 200 ? true : undefined), s, 90_000, 250);
        // nobody else was restarted
        for (const [other, c] of Object.entries(before)) {
          if (other === name) continue;
          expect(statusOf(s).children[other]!.pid, other).toBe(c.pid);
          expect(alive(c.pid!), `${other} alive`).toBe(true);
        }
        expect(s.output()).toContain(`${name} exited (SIGKILL)`);
        // a job submitted after the restart finishes
        const result = await runJob(s, `after-${name}`);
        expect(result).toMatchObject({ status: 'success', output: { a: `after-${name}` } });
        if (name === 'temporal') expect((await fetch(`http://127.0.0.1:${s.ports.ui}/`)).status).toBe(200);
        if (name !== 'api') expect(seenDown.length).toBeGreaterThan(0);
      }
      // the job before the kills is still there: the dev server restarted on its own file
      const earlier = await fetch(`http://127.0.0.1:${s.ports.api}/v1/jobs/before`, { headers: AUTH });
      expect(((await earlier.json()) as { status: string }).status).toBe('success');
    } finally {
      // Ctrl-C: SIGINT to the whole group, as a terminal sends it
      if (s.child.exitCode === null) process.kill(-s.child.pid!, 'SIGINT');
      const { code, signal } = await s.exited;
      expect(code === 0 || signal === 'SIGINT', `exit ${code} ${signal}:\n${s.output().slice(-3000)}`).toBe(true);
    }
    expect(s.output()).toContain('Stopped.');
    for (const port of Object.values(s.ports)) expect(await listening(port), `port ${port} still open`).toBe(false);
    expect(existsSync(join(s.dir, 'stack.json'))).toBe(false);
  });

  it('gives up on a worker that dies at every start, naming it with its last log lines', async () => {
    const s = await npmStart({
      // the worker refuses to start (the API does not read this)
      DELEGATE_JUDGE_AGENT: 'no-such-judge',
      DELEGATE_RESTART_INITIAL_MS: '100',
      DELEGATE_RESTART_MAX_QUICK_FAILURES: '3',
    });
    const { code } = await s.exited;
    expect(code).toBe(1);
    const out = s.output();
    expect(out).toMatch(/worker exited \(code 1\) 3 times in a row within 15 s of its start; giving up/);
    expect(out).toContain('Its last lines');
    expect(out).toContain('DELEGATE_JUDGE_AGENT: no agent "no-such-judge"');
    expect(out).toContain('Stopped.');
    for (const port of Object.values(s.ports)) expect(await listening(port), `port ${port} still open`).toBe(false);
  });
});
