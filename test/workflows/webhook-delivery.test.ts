/**
 * Completion webhooks are delivered by a workflow of their own, started once the job's
 * result is final: the job never waits for the receiver. A worker of this file's own maps
 * test host names to addresses through a stub resolver; all traffic stays on loopback.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { Runtime } from '@temporalio/worker';
import { createServer, type IncomingHttpHeaders, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResolvedAddress } from '../../activities';
import type { JobResult } from '../../schemas';
import { startDedicatedWorker } from '../dedicated-worker';
import { pollUntil, testClient, uniqueId } from '../helpers';
import { verifyForTenant, verifyWithLibrary } from '../webhook-secret';
import { delegationJob } from '../../workflows/delegation-job';

// this file's worker logs errors only (the refusals below are expected warnings)
const quiet = () => {};
Runtime.install({
  logger: { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: quiet, error: (m: string) => console.error(m) } as never,
});

const MASTER = 'delivery-test-master-0123456789';
let receiver: Server;
let port: number;
let worker: Awaited<ReturnType<typeof startDedicatedWorker>>;
const received: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];
/** Requests held open (the receiver "hangs") until `release`. */
const held: ServerResponse[] = [];
let hanging = true;
const asked: string[] = [];
const table: Record<string, string[]> = {
  'hooks.test': ['127.0.0.1'],
  // the loopback address first: a check of only the first address would reach our receiver
  'meta.test': ['127.0.0.1', '169.254.169.254'],
};

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      if (hanging && req.url?.startsWith('/hang')) held.push(res);
      else res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  port = (receiver.address() as AddressInfo).port;
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    asked.push(hostname);
    return (table[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  worker = await startDedicatedWorker({ webhookSecret: MASTER, webhook: { policy: { allowLoopback: true }, resolve, timeoutMs: 3000 } });
});
afterAll(async () => {
  for (const res of held) res.destroy();
  await worker?.stop();
  await new Promise((r) => receiver?.close(r));
});

async function runJob(jobId: string, tenant: string, callbackUrl: string): Promise<{ workflowId: string; result: JobResult }> {
  const client = await testClient();
  const workflowId = `job/${tenant}/${jobId}`;
  const result = await client.workflow.execute(delegationJob, {
    taskQueue: worker.taskQueue,
    workflowId,
    args: [{ spec: { jobId, pattern: 'fanout', callbackUrl, tasks: [{ id: 'a', question: 'ping', agent: 'echo' }] }, tenant, maxDepth: 1 }],
  });
  return { workflowId, result };
}

describe('webhook delivery off the result path', () => {
  it("returns the job's result while its webhook is still being delivered, then delivers it signed for the tenant", async () => {
    const client = await testClient();
    const jobId = uniqueId('offpath');
    const path = `/hang/${jobId}`;
    const { workflowId, result } = await runJob(jobId, 'tenant-a', `http://hooks.test:${port}${path}?token=abc`);
    // the result is in hand: the receiver has not answered (it hangs), so delivery must still be running
    expect(result).toMatchObject({ jobId, status: 'success', output: { a: 'ping' } });
    const delivery = client.workflow.getHandle(`${workflowId}/~webhook`);
    expect((await delivery.describe()).status.name).toBe('RUNNING');
    expect((await client.workflow.getHandle(workflowId).describe()).status.name).toBe('COMPLETED');

    await pollUntil(async () => received.some((r) => r.path.startsWith(path)), 'the receiver never saw the webhook');
    hanging = false;
    for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(200).end();
    expect(await delivery.result()).toEqual({ delivered: true, status: 200 });

    const hit = received.filter((r) => r.path.startsWith(path)).at(-1)!;
    const payload = JSON.parse(hit.body);
    expect(payload).toMatchObject({ type: 'job.completed', tenant: 'tenant-a', jobId, workflowId, status: 'success', result: { jobId } });
    expect(hit.headers['delegate-tenant']).toBe('tenant-a');
    // a Standard Webhooks receiver verifies it with the tenant's secret; neither another tenant's secret nor the master key does
    expect(verifyForTenant(MASTER, 'tenant-a', hit)).toEqual(payload);
    expect(() => verifyForTenant(MASTER, 'tenant-b', hit)).toThrow(/signature/i);
    expect(() => verifyWithLibrary(`whsec_${Buffer.from(MASTER).toString('base64')}`, hit)).toThrow(/signature/i);
  });

  it("refuses a host that resolves to a metadata address when connecting, without touching the job's result", async () => {
    const client = await testClient();
    const jobId = uniqueId('meta');
    const before = received.length;
    const { workflowId, result } = await runJob(jobId, 'tenant-b', `http://meta.test:${port}/m/${jobId}`);
    expect(result).toMatchObject({ jobId, status: 'success' });
    const delivery = client.workflow.getHandle(`${workflowId}/~webhook`);
    const err = await delivery.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect(String((err as WorkflowFailedError).cause?.message)).toMatch(/refused: a cloud metadata address/);
    expect(asked).toContain('meta.test');
    expect(received.slice(before).filter((r) => r.path.includes(jobId))).toEqual([]);
    // a refusal is final: one attempt, no retries
    const history = await delivery.fetchHistory();
    expect(
      history.events?.filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes?.attempt),
    ).toEqual([1]);
  });
});
