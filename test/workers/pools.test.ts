/**
 * Agent pools and capability routing by load, on a real server: two agents with one capability
 * in two pools, each pool hosted by its own worker. A busy pool (a backlog on its queue) loses
 * the task to the idle one, ties go round-robin, and neither worker runs the other pool's steps.
 */
import type { FastifyInstance, InjectOptions } from 'fastify';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinAgents, createAgentRegistry, createHttpAgent, describeWithClient } from '../../activities';
import { buildApp } from '../../api/app';
import type { TaskResult } from '../../schemas';
import { stepQueueFor } from '../../core/names';
import { loadTenants } from '../../config/tenants';
import { agentQueueFor } from '../../core/names';
import { startDedicatedWorker } from '../dedicated-worker';
import { pollUntil, testClient, testConfig, testRecord, uniqueId } from '../helpers';
import { authHeader } from '../tenants';

/** A real HTTP agent on loopback: answers a step at once, or holds one whose question says "hold" until released. */
function startPoolAgent() {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const step = JSON.parse(body) as { task: { question: string } };
      const answer = () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ done: true, summary: `answered by ${req.url}`, confidence: 0.9 }));
      };
      if (step.task.question.includes('hold')) void released.then(answer);
      else answer();
    });
  });
  return {
    server,
    listening: new Promise<string>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
    ),
    /** Lets every held step answer, and later ones at once. */
    release: () => release(),
  };
}

const agent = startPoolAgent();
const dir = mkdtempSync(join(tmpdir(), 'delegate-pools-'));
const logA = join(dir, 'steps-a.log');
const logB = join(dir, 'steps-b.log');
const taskQueue = uniqueId('pools');
const lane = agentQueueFor(taskQueue, 'default');
let app: FastifyInstance;
let workers: { stop(): Promise<void> }[] = [];

beforeAll(async () => {
  const url = await agent.listening;
  const pooled = (id: string, pool: string) =>
    createHttpAgent({
      id,
      url: `${url}/${id}`,
      description: `pooled agent in ${pool}`,
      capabilities: ['pooled'],
      pool,
      timeoutSeconds: 60,
      retry: { maxAttempts: 1 },
    });
  const registry = createAgentRegistry([...builtinAgents, pooled('pooled-a', 'pa'), pooled('pooled-b', 'pb')]);
  // worker A: the workflows, the lane and pool pa with one slot; worker B: nothing but pool pb
  workers = [
    await startDedicatedWorker({ taskQueue, lanes: ['default'], registry, pools: { pa: 1 }, stepLogPath: logA }),
    await startDedicatedWorker({ taskQueue, lanes: ['default'], registry, pools: { pb: 2 }, poolsOnly: true, stepLogPath: logB }),
  ];
  const config = testConfig({ DELEGATE_TASK_QUEUE: taskQueue });
  app = await buildApp({ config, client: await testClient(), registry, tenants: loadTenants(config), record: await testRecord() });
  await app.ready();
});

afterAll(async () => {
  agent.release();
  await app?.close();
  for (const w of workers) await w.stop();
  agent.server.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = (opts: InjectOptions) => app.inject({ ...opts, headers: { ...authHeader('default'), ...opts.headers } });

/** Submits a one-task fan-out and waits for its TaskResult (and the subtask's workflow id). */
async function runOne(task: object): Promise<TaskResult & { workflowId: string }> {
  const jobId = uniqueId('pooled');
  expect(
    (await call({ method: 'POST', url: '/v1/jobs', payload: { jobId, pattern: 'fanout', tasks: [{ id: 't', ...task }] } })).statusCode,
  ).toBe(201);
  const res = await call({ method: 'GET', url: `/v1/jobs/${jobId}/result?waitSeconds=60` });
  expect(res.statusCode).toBe(200);
  return { ...(res.json().results[0] as TaskResult), workflowId: `job/default/${jobId}/t` };
}

/** How long the subtask's resolveAgent activity took, scheduled to completed (ms). */
async function routingMs(workflowId: string): Promise<number> {
  const { events } = await (await testClient()).workflow.getHandle(workflowId).fetchHistory();
  const at = (i: number) => Number(events![i].eventTime!.seconds) * 1000 + Math.floor((events![i].eventTime!.nanos ?? 0) / 1e6);
  const scheduled = events!.findIndex((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'resolveAgent');
  const completed = events!.findIndex((e, i) => i > scheduled && e.activityTaskCompletedEventAttributes);
  return at(completed) - at(scheduled);
}

/** The backlog Temporal reports for a pool's queue on the lane. */
async function backlogOf(pool: string): Promise<number> {
  return (await describeWithClient(await testClient())(stepQueueFor(lane, pool))).backlog;
}

/** The subtask workflow ids whose steps a worker's step log lists. */
const subtasksIn = (log: string) =>
  new Set(
    readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.slice(0, l.lastIndexOf('#'))),
  );

describe('agent pools and capability routing by load', () => {
  it('sends a capability task to the idle pool while the other has a backlog, and says why', async () => {
    const busyJob = uniqueId('busy');
    // three held steps on pool pa, which has one slot: one runs, two wait in its queue
    const tasks = ['h1', 'h2', 'h3'].map((id) => ({ id, question: 'hold the slot', agent: 'pooled-a' }));
    expect((await call({ method: 'POST', url: '/v1/jobs', payload: { jobId: busyJob, pattern: 'fanout', tasks } })).statusCode).toBe(201);
    const began = Date.now();
    await pollUntil(async () => (await backlogOf('pa')) >= 2, 'pool pa never showed a backlog of 2', 60_000);
    console.log(`pool pa showed its backlog of 2 after ${Date.now() - began} ms`);

    const r = await runOne({ question: 'route me', agent: { capability: 'pooled' } });
    expect(r.status).toBe('success');
    expect(r.agentId).toBe('pooled-b');
    expect(r.routing?.agent).toBe('pooled-b');
    expect(r.routing?.reason).toMatch(/^load: pool pb backlog 0, 1 poller; cheaper than pool pa backlog [2-9]/);
    console.log(`routing while pa was busy: ${r.routing?.reason} (resolveAgent ${await routingMs(r.workflowId)} ms)`);

    agent.release();
    const busy = (await call({ method: 'GET', url: `/v1/jobs/${busyJob}/result?waitSeconds=60` })).json();
    expect(busy.status).toBe('success');
    // named agents resolved at submission say so
    expect(busy.results.map((x: TaskResult) => x.routing)).toEqual(tasks.map(() => ({ agent: 'pooled-a', reason: 'named' })));
  });

  it('breaks ties round-robin when both pools are idle', async () => {
    await pollUntil(async () => (await backlogOf('pa')) === 0, 'pool pa kept a backlog', 60_000);
    // the router reuses a queue's figures for 1 s: let the ones it read while pa was busy expire
    await new Promise((r) => setTimeout(r, 1100));
    const picks: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await runOne({ question: `route me ${i}`, agent: { capability: 'pooled' } });
      expect(r.status).toBe('success');
      expect(r.routing?.reason).toMatch(/tied with pool p[ab] backlog 0: round-robin/);
      picks.push(r.agentId);
    }
    // alternating, whichever came first
    expect(new Set(picks)).toEqual(new Set(['pooled-a', 'pooled-b']));
    expect(picks[1]).not.toBe(picks[0]);
    expect(picks[2]).toBe(picks[0]);
    expect(picks[3]).toBe(picks[1]);
  });

  it("a worker hosting one pool never runs the other pool's steps", async () => {
    const client = await testClient();
    const agentOf = async (workflowId: string) => ((await client.workflow.getHandle(workflowId).result()) as TaskResult).agentId;
    const ranOnA = [...subtasksIn(logA)];
    const ranOnB = [...subtasksIn(logB)];
    // both pools ran steps in this file: the check below compares something
    expect(ranOnA.length).toBeGreaterThanOrEqual(4);
    expect(ranOnB.length).toBeGreaterThanOrEqual(2);
    for (const id of ranOnA) expect(await agentOf(id), id).toBe('pooled-a');
    for (const id of ranOnB) expect(await agentOf(id), id).toBe('pooled-b');
  });
});
