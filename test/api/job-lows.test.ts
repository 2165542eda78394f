/**
 * Low findings of the re-audit, from the caller's side: a finished job frees its running-jobs
 * place at once (it held it ~15 s), `status=running` leaves out a job an operator terminated,
 * and a top-up too small for the ledger to book is refused at its field instead of answering 200.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinAgents, createAgentRegistry } from '../../activities';
import { buildApp } from '../../api/app';
import { loadTenants } from '../../config/tenants';
import { startDedicatedWorker } from '../dedicated-worker';
import { pollUntil, testClient, testConfig, testRecord, uniqueId } from '../helpers';

// a tenant of this file only, with one running job allowed: no other file's jobs count against it
const TENANT = `lows${Date.now().toString(36)}`;
const KEY = `key-${TENANT}-0123456789abcdef`;
const headers = { authorization: `Bearer ${KEY}` };
let worker: Awaited<ReturnType<typeof startDedicatedWorker>>;
let app: FastifyInstance;

beforeAll(async () => {
  const registry = createAgentRegistry(builtinAgents);
  worker = await startDedicatedWorker({ registry, lanes: [TENANT] });
  const config = testConfig({
    DELEGATE_TASK_QUEUE: worker.taskQueue,
    DELEGATE_API_KEYS: `${TENANT}=${KEY}`,
    DELEGATE_API_KEYS_FILE: undefined,
    DELEGATE_QUOTA_RUNNING_JOBS: '1',
  });
  app = await buildApp({ config, client: await testClient(), registry, tenants: loadTenants(config), record: await testRecord() });
});
afterAll(async () => {
  await app?.close();
  await worker?.stop();
});

const submit = (jobId: string, params: Record<string, unknown> = {}, budget?: Record<string, number>) =>
  app.inject({
    method: 'POST',
    url: '/v1/jobs',
    headers,
    payload: { jobId, pattern: 'fanout', ...(budget ? { budget } : {}), tasks: [{ id: 't', question: 'q', agent: 'sim', params }] },
  });
async function result(jobId: string) {
  let r = await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}/result?waitSeconds=60`, headers });
  while (r.statusCode === 202) r = await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}/result?waitSeconds=60`, headers });
  return r;
}

describe('job quotas, listing and top-ups', () => {
  it('a finished job no longer counts as running: the next submission of a one-job tenant starts at once', async () => {
    for (let i = 0; i < 3; i++) {
      const jobId = uniqueId('instant');
      const started = await submit(jobId);
      expect(started.statusCode, started.body).toBe(201);
      expect((await result(jobId)).statusCode).toBe(200);
    }
  });

  it('a running job still holds the place; a terminated one is not listed as running', async () => {
    const slow = uniqueId('slow');
    // a cost limit to top up (a top-up of an axis the job leaves open is a 409: top-up-bounds.test.ts)
    expect((await submit(slow, { latencyMs: 60_000 }, { costUsd: 1 })).statusCode).toBe(201);
    expect((await submit(uniqueId('refused'))).statusCode).toBe(429);
    const listed = async () =>
      ((await app.inject({ method: 'GET', url: '/v1/jobs?status=running', headers })).json() as { jobs: { jobId: string }[] }).jobs.map(
        (j) => j.jobId,
      );
    await pollUntil(async () => (await listed()).includes(slow), 'the running job was never listed as running');

    // a sub-micro-dollar top-up would book nothing: refused at its field, not answered 200
    const tiny = await app.inject({ method: 'POST', url: `/v1/jobs/${slow}/budget`, headers, payload: { add: { costUsd: 0.0000004 } } });
    expect(tiny.statusCode, tiny.body).toBe(400);
    expect(tiny.headers['content-type']).toContain('application/problem+json');
    expect(tiny.json().errors).toEqual([{ path: 'body.add.costUsd', message: expect.stringContaining('micro-dollar') }]);
    const tinySubtask = await app.inject({
      method: 'POST',
      url: `/v1/jobs/${slow}/subtasks/t/budget`,
      headers,
      payload: { add: { costUsd: 1e-7, tokens: 5 } },
    });
    expect(tinySubtask.statusCode).toBe(400);
    expect(
      (await app.inject({ method: 'POST', url: `/v1/jobs/${slow}/budget`, headers, payload: { add: { costUsd: 0.000001 } } })).statusCode,
    ).toBe(200);

    // an operator terminates it (no outcome is ever written): not running, in the list or the quota
    await (await testClient()).workflow.getHandle(`job/${TENANT}/${slow}`).terminate('operator');
    // visibility shows the termination within moments; before the fix the job stayed listed for good
    await pollUntil(async () => !(await listed()).includes(slow), 'the terminated job is still listed as running', 15_000);
    const all = (
      (await app.inject({ method: 'GET', url: '/v1/jobs', headers })).json() as {
        jobs: { jobId: string; state: string; status?: string }[];
      }
    ).jobs;
    expect(all.find((j) => j.jobId === slow)).toMatchObject({ state: 'terminated' });
    expect(all.find((j) => j.jobId === slow)?.status).toBeUndefined();
  });
});
