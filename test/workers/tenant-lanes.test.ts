/**
 * A tenant added to the keys file is served without a restart: a dedicated worker follows its
 * own keys file (as workers/main.ts does); the file gains tenant `newcomer` (written as a
 * deploy tool writes it: a temporary file renamed over the old one), and a job the API
 * submits for it runs on the lane the worker started for it.
 */
import { NativeConnection } from '@temporalio/worker';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../config/config';
import { createFleet, followTenantLanes, type WorkerFleet } from '../../workers/tenant-lanes';
import { hashKey, loadTenants } from '../../config/tenants';
import { agentQueueFor } from '../../core/names';
import { createWorkerSet } from '../../workers/worker';
import { sharedWorkflowBundle } from '../dedicated-worker';
import { appForTest, testRecord, uniqueId } from '../helpers';
import { TEST_TENANTS } from '../tenants';

const NEWCOMER_KEY = 'test-key-newcomer-0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'delegate-tenant-lanes-'));
const keysFile = join(dir, 'keys.json');
const taskQueue = uniqueId('tenant-lanes');
const tenantsOf = (names: string[]) => ({
  tenants: names.map((tenant) => ({ tenant, keySha256: [hashKey(tenant === 'newcomer' ? NEWCOMER_KEY : TEST_TENANTS.default.key)] })),
});
/** Writes the keys file whole, then renames it into place (never a half-written file). */
function writeKeys(names: string[]): void {
  const tmp = `${keysFile}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(tenantsOf(names)));
  renameSync(tmp, keysFile);
}

let fleet: WorkerFleet;
let following: { close(): void };
let connection: NativeConnection;
const logged: string[] = [];
const log = {
  info: (_f: object, msg: string) => void logged.push(msg),
  error: (f: object, msg: string) => void logged.push(`${msg} ${JSON.stringify(f)}`),
};

beforeAll(async () => {
  writeKeys(['default']);
  const config = loadConfig({ DELEGATE_API_KEYS_FILE: keysFile, DELEGATE_TASK_QUEUE: taskQueue });
  const tenants = loadTenants(config);
  connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  const set = await createWorkerSet(
    // breaker workflows run on the shared test worker's queue: it outlives this worker
    {
      connection,
      namespace: 'default',
      taskQueue,
      workflowBundle: sharedWorkflowBundle(),
      record: await testRecord(),
      breaker: { taskQueue: inject('taskQueue') },
    },
    tenants.list().map((t) => ({ taskQueue: agentQueueFor(taskQueue, t.tenant), slots: 5 })),
  );
  fleet = createFleet(set.workers);
  following = followTenantLanes({ config, set, fleet, served: tenants.list().map((t) => t.tenant), log });
});

afterAll(async () => {
  following?.close();
  fleet?.shutdown();
  await fleet?.done;
  await connection?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a tenant added to the keys file', () => {
  it('is served by the running worker, without a restart', async () => {
    // the API knows the newcomer from the start; the worker does not yet: refused, not left waiting
    writeKeys(['default']);
    const job = (jobId: string) => ({ jobId, pattern: 'fanout', tasks: [{ id: 't', question: 'hello from a new tenant', agent: 'echo' }] });
    const withNewcomer = join(dir, 'api-keys.json');
    writeFileSync(withNewcomer, JSON.stringify(tenantsOf(['default', 'newcomer'])));
    const app = await appForTest({ DELEGATE_API_KEYS_FILE: withNewcomer, DELEGATE_TASK_QUEUE: taskQueue }, null);
    const submit = (jobId: string) =>
      app.inject({ method: 'POST', url: '/v1/jobs', headers: { authorization: `Bearer ${NEWCOMER_KEY}` }, payload: job(jobId) });
    const before = await submit(uniqueId('newcomer-early'));
    expect(before.statusCode).toBe(503);
    expect(before.json().lanes).toEqual([agentQueueFor(taskQueue, 'newcomer')]);

    const changed = Date.now();
    writeKeys(['default', 'newcomer']);
    const jobId = uniqueId('newcomer');
    let res = await submit(jobId);
    // the lane's first poll reaches Temporal a moment after the change; misses are kept 1 s
    while (res.statusCode === 503 && Date.now() - changed < 20_000) {
      await new Promise((r) => setTimeout(r, 250));
      res = await submit(jobId);
    }
    const servedMs = Date.now() - changed;
    expect(res.statusCode, res.body).toBe(201);
    console.log(`a tenant added to the keys file was accepted ${servedMs} ms after the change`);
    expect(logged).toContain('keys file changed: serving new tenants');

    const result = await app.inject({
      method: 'GET',
      url: `/v1/jobs/${jobId}/result?waitSeconds=60`,
      headers: { authorization: `Bearer ${NEWCOMER_KEY}` },
    });
    expect(result.json()).toMatchObject({ status: 'success', results: [{ id: 't', status: 'success', agentId: 'echo' }] });
  });

  it('keeps the tenants it has when the file changes to something that does not load', async () => {
    const before = logged.length;
    writeFileSync(keysFile, '{"tenants": [ {"tenant": "Bad Name"');
    const deadline = Date.now() + 10_000;
    while (!logged.slice(before).some((l) => l.startsWith('keys file changed but does not load')) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(logged.slice(before).join('\n')).toMatch(/keys file changed but does not load.*DELEGATE_API_KEYS_FILE/);
  });
});
