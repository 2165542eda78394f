/**
 * A deployment is its record: its workers carry the record's deployment id in their Temporal
 * identity. A worker process on another record, pointed at the same queue, refuses to start
 * (it would take part of every job: the job's events in one record, its steps in the other),
 * and the /readyz of an API on that other record says why.
 */
import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { findOtherDeployments, workerIdentity } from '../../config/deployment';
import { openRecordDb, createRecordStore, type RecordDb, type RecordLocation } from '../../record';
import { startDedicatedWorker } from '../dedicated-worker';
import { appForTest, pollUntil, testClient, uniqueId } from '../helpers';
import { freshRecordLocation } from '../record-stores';

const mainTs = fileURLToPath(new URL('../../workers/main.ts', import.meta.url));
const queue = uniqueId('deployment-queue');
let a: { loc: RecordLocation; db: RecordDb; id: string };
let b: { loc: RecordLocation; db: RecordDb; id: string };
let worker: Awaited<ReturnType<typeof startDedicatedWorker>>;

const open = async () => {
  const loc = await freshRecordLocation('sqlite');
  const db = await openRecordDb(loc);
  return { loc, db, id: await createRecordStore(db).deploymentId() };
};
const othersSeenBy = async (deploymentId: string) =>
  findOtherDeployments({ connection: (await testClient()).connection, namespace: 'default', queues: [queue], deploymentId });

beforeAll(async () => {
  a = await open();
  b = await open();
  worker = await startDedicatedWorker({
    taskQueue: queue,
    record: createRecordStore(a.db),
    identity: workerIdentity(a.id, process.pid, hostname()),
    lanes: ['default'],
  });
  await pollUntil(async () => (await othersSeenBy(b.id)).length > 0, "the first deployment's worker never polled its queue");
});
afterAll(async () => {
  await worker?.stop();
  await a?.db.close();
  await b?.db.close();
});

/** Runs workers/main.ts on the shared server and `queue` with the record at `loc`; resolves when it exits (or is stopped). */
function workerProcess(loc: RecordLocation, timeoutMs = 90_000): Promise<{ code: number | null; err: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', mainTs], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      DELEGATE_TASK_QUEUE: queue,
      DELEGATE_RECORD_FILE: loc.sqliteFile,
      DELEGATE_API_KEYS_FILE: inject('keysFile'),
      DELEGATE_AGENTS_FILE: inject('agentsFile'),
      DELEGATE_WORKER_METRICS_PORT: '0',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stdout.on('data', (d: Buffer) => (err += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, err });
    }),
  );
}

describe('deployment identity', () => {
  it("a worker on another record refuses to start on the queue, naming the other deployment and the queue; the first deployment's own workers see no other", async () => {
    expect(a.id).not.toBe(b.id);
    const { code, err } = await workerProcess(b.loc);
    expect(code, err).not.toBe(0);
    expect(err).toContain(`refusing to start: task queue "${queue}" is polled by another deployment (${a.id}, worker delegate:${a.id}:`);
    expect(err).toContain(`than this one (${b.id})`);
    expect(await othersSeenBy(a.id)).toEqual([]);
  });

  it('/readyz of an API on the other record is not ready and says why; on the same record it is ready', async () => {
    const other = await appForTest({ DELEGATE_TASK_QUEUE: queue }, null, createRecordStore(b.db));
    const res = await other.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({
      title: 'Another deployment on the task queue',
      detail: expect.stringContaining(`task queue "${queue}" is polled by another deployment (${a.id}) than this one (${b.id})`),
    });
    // no host names on an unauthenticated probe
    expect(res.body).not.toContain(hostname());
    const same = await appForTest({ DELEGATE_TASK_QUEUE: queue }, null, createRecordStore(a.db));
    const ok = await same.inject({ method: 'GET', url: '/readyz' });
    expect(ok.statusCode, ok.body).toBe(200);
  });
});
