/**
 * An HTTP agent asks its parent a question (`ask` in its step reply): the subtask waits in the
 * inbox, the answer given through the API is checked against the question's schema, the agent's
 * next step receives it as `answer`, and the task succeeds. Before, the reply schema dropped
 * `ask`, so the agent was called until maxSteps and the task ended `agent_error`.
 */
import type { FastifyInstance } from 'fastify';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinAgents, createAgentRegistry, createHttpAgent } from '../../activities';
import { buildApp } from '../../api/app';
import { loadTenants } from '../../config/tenants';
import type { InboxItem, JobResult } from '../../schemas';
import { startDedicatedWorker } from '../dedicated-worker';
import { pollUntil, testClient, testConfig, testRecord, uniqueId } from '../helpers';
import { authHeader } from '../tenants';

const answerSchema = { type: 'object', properties: { year: { type: 'integer' } }, required: ['year'] };
/** The step requests the agent got, in order. */
const requests: { step: number; answer?: unknown }[] = [];
let agent: Server;
let worker: Awaited<ReturnType<typeof startDedicatedWorker>>;
let app: FastifyInstance;

beforeAll(async () => {
  // asks once, then answers with what it was told
  agent = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const { step, answer } = JSON.parse(raw) as { step: number; answer?: { answer: unknown } };
      requests.push({ step, answer });
      const reply = answer
        ? { done: true, summary: 'the year as told', data: { told: answer.answer }, confidence: 0.9, usage: { costUsd: 0.01 } }
        : { done: false, summary: 'needs the year', usage: { costUsd: 0.01 }, ask: { question: 'Which year?', answerSchema } };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((r) => agent.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(agent.address() as AddressInfo).port}/ask`;
  const registry = createAgentRegistry([...builtinAgents, createHttpAgent({ id: 'asking-http', url, timeoutSeconds: 5 })]);
  worker = await startDedicatedWorker({ registry, lanes: ['default'] });
  const config = testConfig({ DELEGATE_TASK_QUEUE: worker.taskQueue });
  app = await buildApp({ config, client: await testClient(), registry, tenants: loadTenants(config), record: await testRecord() });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await worker?.stop();
  agent?.close();
});

const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
  app.inject({ method, url, headers: authHeader('default'), ...(payload ? { payload } : {}) });

describe('an HTTP agent asks its parent', () => {
  it('the task waits for the answer given through the API; the next step receives it and the task succeeds', async () => {
    const jobId = uniqueId('http-ask');
    const submitted = await call('POST', '/v1/jobs', {
      jobId,
      pattern: 'fanout',
      tasks: [{ id: 't', question: 'report on the year', agent: 'asking-http', budget: { costUsd: 1 } }],
    });
    expect(submitted.statusCode, submitted.body).toBe(201);
    let item: InboxItem | undefined;
    await pollUntil(async () => {
      item = ((await call('GET', `/v1/approvals?jobId=${jobId}`)).json() as { items: InboxItem[] }).items[0];
      return item !== undefined;
    }, `job ${jobId} never asked`);
    expect(item).toMatchObject({ kind: 'question', taskId: 't', detail: { question: 'Which year?', answerSchema } });
    // the task waits: one call so far, not a loop until maxSteps
    expect(requests).toEqual([{ step: 0 }]);
    const refused = await call('POST', `/v1/approvals/${item!.id}`, { answer: { year: 'soon' } });
    expect(refused.statusCode, refused.body).toBe(422);
    const answered = await call('POST', `/v1/approvals/${item!.id}`, { answer: { year: 2024 } });
    expect(answered.statusCode, answered.body).toBe(200);
    const done = await call('GET', `/v1/jobs/${jobId}/result?waitSeconds=30`);
    expect(done.statusCode, done.body).toBe(200);
    expect((done.json() as JobResult).results[0]).toMatchObject({
      status: 'success',
      failureReason: null,
      data: { told: { year: 2024 } },
      metrics: { steps: 2 },
    });
    expect(requests).toEqual([
      { step: 0 },
      { step: 1, answer: expect.objectContaining({ question: 'Which year?', answer: { year: 2024 } }) },
    ]);
  });
});
