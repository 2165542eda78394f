/**
 * A tenant no worker serves, from the attacker's side: a second API whose keys file knows
 * tenant `orphan`, next to the shared test worker, which does not. The API refuses its job
 * (503 naming the lane) instead of accepting it to wait forever; /readyz lists the lane; the
 * same job started straight through Temporal ends `agent_unavailable` within its bound.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { JobSpec, TaskResult } from '../../schemas';
import { hashKey } from '../../config/tenants';
import { agentQueueFor } from '../../core/names';
import { delegationJob } from '../../workflows/delegation-job';
import { appForTest, testClient, uniqueId } from '../helpers';
import { authHeader, writeKeysFile } from '../tenants';

const ORPHAN_KEY = 'test-key-orphan-0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'delegate-orphan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The run's keys file plus tenant `orphan`, which the shared worker never loaded. */
function keysWithOrphan(): string {
  const path = writeKeysFile(join(dir, 'keys.json'));
  const file = JSON.parse(readFileSync(path, 'utf8')) as { tenants: object[] };
  file.tenants.push({ tenant: 'orphan', keySha256: [hashKey(ORPHAN_KEY)] });
  writeFileSync(path, JSON.stringify(file));
  return path;
}

const orphanLane = () => agentQueueFor(inject('taskQueue'), 'orphan');
const job = (jobId: string): JobSpec & { jobId: string } => ({
  jobId,
  pattern: 'fanout',
  tasks: [{ id: 't', question: 'is anyone there?', agent: 'echo' }],
});

describe('a tenant no worker serves', () => {
  it('is refused by the API with a 503 naming its lane, while a served tenant is accepted', async () => {
    const app = await appForTest({ DELEGATE_API_KEYS_FILE: keysWithOrphan() }, null);
    const jobId = uniqueId('orphan');
    /** The orphan tenant submits a job. */
    const submitOrphan = (id: string) =>
      app.inject({ method: 'POST', url: '/v1/jobs', headers: { authorization: `Bearer ${ORPHAN_KEY}` }, payload: job(id) });
    const began = performance.now();
    const res = await submitOrphan(jobId);
    const refusedMs = performance.now() - began;
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.headers['retry-after']).toBe('5');
    const body = res.json();
    expect(body).toMatchObject({ status: 503, title: 'No worker serves the lane', lanes: [orphanLane()] });
    expect(body.detail).toContain(`"${orphanLane()}"`);
    expect(body.detail).toContain('tenant "orphan"');
    // nothing started: no workflow waits on the lane
    await expect((await testClient()).workflow.getHandle(`job/orphan/${jobId}`).describe()).rejects.toThrow(/not found/i);

    // a second refusal is answered from the cache (misses are kept 1 s)
    const again = performance.now();
    expect((await submitOrphan(uniqueId('orphan'))).statusCode).toBe(503);
    const cachedMs = performance.now() - again;
    // and once the miss has expired, on a warm app: one DescribeTaskQueue of the lane
    await new Promise((r) => setTimeout(r, 1100));
    const warm = performance.now();
    expect((await submitOrphan(uniqueId('orphan'))).statusCode).toBe(503);
    const lookedUpMs = performance.now() - warm;

    // the same API accepts a tenant whose lane the shared worker polls
    const startServed = performance.now();
    const served = await app.inject({ method: 'POST', url: '/v1/jobs', headers: authHeader('default'), payload: job(uniqueId('served')) });
    const servedMs = performance.now() - startServed;
    expect(served.statusCode).toBe(201);
    console.log(
      `orphan tenant: submission to 503 in ${refusedMs.toFixed(1)} ms (first request of the app), ${lookedUpMs.toFixed(1)} ms (warm app, lane looked up), ` +
        `${cachedMs.toFixed(1)} ms (cached); a served tenant's 201 took ${servedMs.toFixed(1)} ms`,
    );
  });

  it('is accepted while no worker polls at all (workers starting or down): the job waits for them as any Temporal job does', async () => {
    const queue = uniqueId('no-workers');
    const app = await appForTest({ DELEGATE_API_KEYS_FILE: keysWithOrphan(), DELEGATE_TASK_QUEUE: queue }, null);
    const jobId = uniqueId('orphan-outage');
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: { authorization: `Bearer ${ORPHAN_KEY}` },
      payload: job(jobId),
    });
    expect(res.statusCode, res.body).toBe(201);
    expect((await app.inject({ method: 'GET', url: '/readyz' })).json().lanesWithoutWorker).toEqual(
      expect.arrayContaining([queue, agentQueueFor(queue, 'orphan')]),
    );
    await (await testClient()).workflow.getHandle(`job/orphan/${jobId}`).terminate('test over');
  });

  it('is listed in /readyz among the lanes without a worker', async () => {
    const app = await appForTest({ DELEGATE_API_KEYS_FILE: keysWithOrphan() }, null);
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(200);
    const { lanesWithoutWorker } = res.json() as { lanesWithoutWorker: string[] };
    expect(lanesWithoutWorker).toContain(orphanLane());
    // the lanes of the tenants the shared worker serves are not listed
    expect(lanesWithoutWorker).not.toContain(agentQueueFor(inject('taskQueue'), 'default'));
    expect(lanesWithoutWorker).not.toContain(agentQueueFor(inject('taskQueue'), 'alpha'));
  });

  it('started straight through Temporal, ends agent_unavailable within its schedule-to-start bound', async () => {
    const jobId = uniqueId('orphan-direct');
    const began = Date.now();
    const result = await (
      await testClient()
    ).workflow.execute(delegationJob, {
      taskQueue: inject('taskQueue'),
      workflowId: `job/orphan/${jobId}`,
      args: [{ spec: job(jobId), tenant: 'orphan', agentQueue: orphanLane(), limits: { stepScheduleToStartSeconds: 3 } }],
    });
    const elapsedMs = Date.now() - began;
    console.log(`orphan tenant started directly: agent_unavailable after ${elapsedMs} ms (bound 3 s)`);
    const r = result.results[0] as TaskResult;
    expect(r).toMatchObject({ status: 'failure', failureReason: 'agent_unavailable' });
    expect(r.errors.at(-1)).toContain(`no worker started the step within 3s on task queue "${orphanLane()}"`);
    expect(result.status).toBe('failure');
    expect(elapsedMs).toBeGreaterThanOrEqual(3000);
    expect(elapsedMs).toBeLessThan(15_000);
  });
});
