/**
 * Agent URLs, their query strings, header values and upstream bodies never reach results,
 * histories or logs: a worker of this file's own runs HTTP agents whose URL and headers carry
 * a secret against an upstream on loopback that echoes everything it is sent.
 */
import { Runtime } from '@temporalio/worker';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinAgents, createAgentRegistry, createHttpAgent } from '../../activities';
import { startDedicatedWorker } from '../dedicated-worker';
import { fastRetry, testClient, uniqueId } from '../helpers';
import { delegationJob } from '../../workflows/delegation-job';

const SECRET = 's3cret-7f1c2a';
// every line the worker logs (this file's process only), to check none carries the secret
const logged: string[] = [];
const capture = (level: string) => (message: string, meta?: unknown) =>
  void logged.push(`${level} ${message} ${JSON.stringify(meta ?? {})}`);
Runtime.install({
  logger: {
    log: (level: string, message: string, meta?: unknown) => capture(level)(message, meta),
    trace: capture('TRACE'),
    debug: capture('DEBUG'),
    info: capture('INFO'),
    warn: capture('WARN'),
    error: capture('ERROR'),
  } as never,
});

let upstream: Server;
let worker: Awaited<ReturnType<typeof startDedicatedWorker>>;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    // a careless upstream: it echoes the URL (with the token) and the key header in its answer
    const echo = `upstream error: url=${req.url} key=${String(req.headers['x-api-key'])}`;
    req.resume().on('end', () => {
      if (req.url?.startsWith('/fail')) res.writeHead(500, { 'content-type': 'text/plain' }).end(echo);
      else if (req.url?.startsWith('/deny'))
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: echo }));
      else res.writeHead(200, { 'content-type': 'text/html' }).end(`<html>${echo}</html>`);
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const closed = await new Promise<number>((r) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => r(p));
    });
  });
  const agent = (id: string, url: string) =>
    createHttpAgent(
      { id, url, headers: { 'x-api-key': '${LEAKY_KEY}' }, timeoutSeconds: 5, retry: { ...fastRetry, maxAttempts: 2 } },
      { LEAKY_KEY: `${SECRET}-hdr` },
    );
  const registry = createAgentRegistry([
    ...builtinAgents,
    agent('leaky', `${base}/fail?token=${SECRET}`),
    agent('leaky-deny', `${base}/deny?token=${SECRET}`),
    agent('leaky-html', `${base}/html?token=${SECRET}`),
    agent('leaky-down', `http://127.0.0.1:${closed}/x?token=${SECRET}`),
  ]);
  worker = await startDedicatedWorker({ registry });
});
afterAll(async () => {
  await worker?.stop();
  await new Promise((r) => upstream?.close(r));
});

describe('redaction of agent secrets', () => {
  it('keeps agent URLs, tokens, header values and upstream bodies out of results, histories and logs', async () => {
    const client = await testClient();
    const workflowId = `job/test/${uniqueId('redact')}`;
    const tasks = ['leaky', 'leaky-deny', 'leaky-html', 'leaky-down'].map((agent) => ({ id: agent, question: 'q', agent }));
    const result = await client.workflow.execute(delegationJob, {
      taskQueue: worker.taskQueue,
      workflowId,
      args: [{ spec: { jobId: workflowId.split('/')[2], pattern: 'fanout', tasks }, tenant: 'test', maxDepth: 1 }],
    });

    const byId = Object.fromEntries(result.results.map((r) => [r.id, r]));
    expect(byId.leaky).toMatchObject({ status: 'failure', failureReason: 'agent_error', metrics: { attempts: 2 } });
    expect(byId.leaky.errors.join()).toContain('agent leaky answered 500');
    expect(byId['leaky-deny'].errors.join()).toContain('agent leaky-deny answered 401');
    expect(byId['leaky-html'].errors.join()).toMatch(/agent leaky-html answered non-JSON \(text\/html, \d+ characters\)/);
    expect(byId['leaky-down'].errors.join()).toMatch(/agent leaky-down unreachable \(ECONNREFUSED\)/);

    const everything = [JSON.stringify(result), JSON.stringify(await client.workflow.getHandle(workflowId).fetchHistory())];
    for (const r of result.results)
      everything.push(JSON.stringify(await client.workflow.getHandle(`${workflowId}/${r.id}`).fetchHistory()));
    for (const text of everything) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain('upstream error');
      expect(text).not.toContain('127.0.0.1');
    }
    expect(logged.some((l) => l.includes('agent step failed'))).toBe(true);
    expect(logged.filter((l) => l.includes(SECRET) || l.includes('upstream error'))).toEqual([]);
  });
});
