/**
 * Versions side by side, through the API: an agents file with four versions of one HTTP agent
 * (1.4.0 deprecated with a reason, 2.0.0, 2.3.0, 3.0.0 deprecated), each answering with its own
 * version. `agent@^2` runs the newest 2.x, a bare id the newest not deprecated, a deprecated
 * version still serves with a warning in its TaskResult, and a range no version matches is a 422
 * at the task's agent listing the versions.
 */
import type { FastifyInstance } from 'fastify';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRegistry } from '../../activities';
import type { AgentManifest, JobResult, TaskResult } from '../../schemas';
import { startDedicatedWorker } from '../dedicated-worker';
import { finalResult, testApp, uniqueId } from '../helpers';

const dir = mkdtempSync(join(tmpdir(), 'delegate-versions-'));
let agent: Server;
let worker: Awaited<ReturnType<typeof startDedicatedWorker>>;
let app: FastifyInstance;

beforeAll(async () => {
  // every version is the same service at its own path, answering with its version
  agent = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const version = req.url!.split('/').at(-1);
      const reply = { done: true, summary: `summarized by ${version}`, data: { version }, confidence: 0.9, usage: { costUsd: 0.01 } };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((r) => agent.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(agent.address() as AddressInfo).port}/v`;
  const entry = (version: string, deprecated?: boolean | string) => ({
    id: 'summarizer',
    version,
    ...(deprecated !== undefined ? { deprecated } : {}),
    url: `${base}/${version}`,
    capabilities: ['summarize'],
    timeoutSeconds: 5,
  });
  const file = join(dir, 'agents.json');
  writeFileSync(file, JSON.stringify({ agents: [entry('2.0.0'), entry('1.4.0', 'use ^2'), entry('3.0.0', true), entry('2.3.0')] }));
  const registry = loadRegistry(file);
  worker = await startDedicatedWorker({ registry, lanes: ['default'] });
  // every request as tenant "default" (finalResult too)
  app = await testApp({ DELEGATE_TASK_QUEUE: worker.taskQueue }, 'default', undefined, registry);
});

afterAll(async () => {
  await app?.close();
  await worker?.stop();
  agent?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs one task per agent reference in one job; the results by task id. */
async function runRefs(refs: Record<string, string>): Promise<Record<string, TaskResult>> {
  const jobId = uniqueId('versions');
  const tasks = Object.entries(refs).map(([id, agent]) => ({ id, question: 'summarize the release notes', agent }));
  const res = await app.inject({ method: 'POST', url: '/v1/jobs', payload: { jobId, pattern: 'fanout', tasks } });
  expect(res.statusCode, res.body).toBe(201);
  const done = await finalResult(app, jobId);
  expect(done.statusCode, done.body).toBe(200);
  const result = done.json() as JobResult;
  return Object.fromEntries(result.results.map((r) => [r.id, r]));
}

describe('several versions of one agent id', () => {
  it('agent@^2 runs the newest 2.x; a bare id the newest not deprecated; neither warns', async () => {
    const r = await runRefs({ caret: 'summarizer@^2', bare: 'summarizer', exact: 'summarizer@2.0.0' });
    expect(r.caret).toMatchObject({ status: 'success', agentId: 'summarizer@2.3.0', data: { version: '2.3.0' } });
    expect(r.bare).toMatchObject({ status: 'success', agentId: 'summarizer@2.3.0', data: { version: '2.3.0' } });
    expect(r.exact).toMatchObject({ status: 'success', agentId: 'summarizer@2.0.0', data: { version: '2.0.0' } });
    for (const t of Object.values(r)) expect(t.warnings).toBeUndefined();
  });

  it('a deprecated version still serves, with a warning in its TaskResult', async () => {
    const r = await runRefs({ pinned: 'summarizer@1.4.0', onlyDeprecated: 'summarizer@^1', three: 'summarizer@3' });
    expect(r.pinned).toMatchObject({ status: 'success', agentId: 'summarizer@1.4.0', data: { version: '1.4.0' } });
    expect(r.pinned!.warnings).toEqual(['agent "summarizer" version 1.4.0 is deprecated: use ^2']);
    expect(r.onlyDeprecated).toMatchObject({ agentId: 'summarizer@1.4.0', warnings: r.pinned!.warnings });
    expect(r.three).toMatchObject({
      status: 'success',
      data: { version: '3.0.0' },
      warnings: ['agent "summarizer" version 3.0.0 is deprecated'],
    });
  });

  it('a range no version matches: 422 at the task agent, listing the versions', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: { jobId: uniqueId('versions'), pattern: 'fanout', tasks: [{ id: 't', question: 'q', agent: 'summarizer@^9' }] },
    });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().errors).toEqual([
      {
        path: 'body.tasks[0].agent',
        message:
          'agent "summarizer" has no version matching "^9"; its versions: 1.4.0 (deprecated), 2.0.0, 2.3.0, 3.0.0 (deprecated); GET /v1/agents lists them',
      },
    ]);
  });

  it('GET /v1/agents lists every version under the id, newest first', async () => {
    const res = await app.inject({ url: '/v1/agents' });
    expect(res.statusCode, res.body).toBe(200);
    const mine = (res.json().agents as AgentManifest[]).filter((a) => a.id === 'summarizer');
    expect(mine.map((a) => [a.version, a.deprecated ?? false])).toEqual([
      ['3.0.0', true],
      ['2.3.0', false],
      ['2.0.0', false],
      ['1.4.0', 'use ^2'],
    ]);
  });
});
