/**
 * 100 subtasks waiting for approval hold no worker slot (the figure is measured from the
 * worker's own slot metrics and printed), and the waits survive a SIGKILLed worker: a new
 * worker takes the decisions and every subtask runs.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CHAOS_AUTH, ChaosStack } from './harness';

let stack: ChaosStack;
beforeAll(async () => {
  stack = await ChaosStack.start({ name: 'approval-wait', workers: 0 });
});
afterAll(async () => {
  await stack?.stop();
});

const TASKS = 100;

/** A free loopback port. */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/** The worker's slot gauges by worker type (`used` and `available`), and its sticky cache. */
async function slots(port: number): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = /^temporal_(worker_task_slots_(?:used|available)|sticky_cache_size)\{([^}]*)\} (\S+)$/.exec(line);
    if (!m) continue;
    const type = /worker_type="([^"]+)"/.exec(m[2])?.[1] ?? 'all';
    // a worker polls several task queues (the workflow queue, the tenant's lane): sum them
    out[`${m[1]}:${type}`] = (out[`${m[1]}:${type}`] ?? 0) + Number(m[3]);
  }
  return out;
}

it('100 subtasks waiting for approval hold no worker slot, and their waits survive a killed worker', async () => {
  const port = await freePort();
  await stack.startWorker(0, { DELEGATE_WORKER_METRICS_PORT: String(port) });
  const jobId = 'approval-wait-1';
  const tasks = Array.from({ length: TASKS }, (_, i) => ({
    id: `t${i}`,
    question: `question ${i}`,
    agent: 'sim',
    params: { answer: { n: i } },
    approval: { beforeStart: true, timeoutSeconds: 3600 },
  }));
  expect((await stack.submit({ jobId, pattern: 'fanout', maxParallel: TASKS, tasks })).status).toBe(201);

  let pending: { id: string }[] = [];
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    pending = (await stack.get(`/v1/approvals?jobId=${jobId}&limit=500`)).body.items as { id: string }[];
    if (pending.length === TASKS) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  expect(pending).toHaveLength(TASKS);
  // settle: the last workflow tasks and the inbox writes (local activities) finish
  await new Promise((r) => setTimeout(r, 3000));
  const waiting = await slots(port);
  console.log(`worker slots with ${TASKS} subtasks waiting for approval: ${JSON.stringify(waiting)}`);
  expect(waiting['worker_task_slots_used:ActivityWorker'] ?? 0).toBe(0);
  expect(waiting['worker_task_slots_used:WorkflowWorker'] ?? 0).toBe(0);
  expect(waiting['worker_task_slots_used:LocalActivityWorker'] ?? 0).toBe(0);

  await stack.killWorker(0, 'SIGKILL');
  await stack.startWorker(0);
  for (const item of pending) {
    const res = await fetch(`${stack.apiUrl}/v1/approvals/${item.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...CHAOS_AUTH },
      body: JSON.stringify({ decision: 'approve', note: 'after the kill' }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
  }
  const result = await stack.waitResult(jobId, 180_000);
  expect(result.results.filter((r) => r.status === 'success')).toHaveLength(TASKS);
  expect(result.results[0].notes?.join('\n')).toMatch(/approved by key:default: after the kill/);
}, 400_000);
