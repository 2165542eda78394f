/**
 * A job's trace id without OpenTelemetry: the API makes a W3C `traceparent` at submission (or
 * keeps the caller's trace), and the job's HTTP and A2A agents receive it, its TaskResults,
 * its events and its log lines carry its trace id. Untraced API and worker; a loopback HTTP
 * agent and a loopback A2A agent (the SDK's server) record what they got.
 */
import { TaskState } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor } from '@a2a-js/sdk/server';
import { DefaultLogger, Runtime, type LogEntry } from '@temporalio/worker';
import type { RequestHandler } from 'express';
import type { FastifyInstance } from 'fastify';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinAgents, createAgentRegistry, createHttpAgent } from '../../activities';
import { createA2aAgent } from '../../activities/agents/a2a';
import type { JobEvent, JobResult } from '../../schemas';
import { a2aCard, agentMessage, startA2aRemote, statusUpdate, type A2aRemote } from '../a2a-remote';
import { startDedicatedWorker } from '../dedicated-worker';
import { fastRetry, testApp, uniqueId } from '../helpers';
import { authHeader } from '../tenants';

/** Every line the SDK, the workflows and the activities logged in this file. */
const lines: LogEntry[] = [];
/** Headers of every request the HTTP agent got. */
const httpHeaders: IncomingHttpHeaders[] = [];
/** Headers and message metadata of every message the A2A agent got. */
const a2aSeen: { traceparent?: string; metadata?: Record<string, unknown> }[] = [];
let a2aHeader: string | undefined;

let httpAgent: Server;
let a2aRemote: A2aRemote;
let worker: Awaited<ReturnType<typeof startDedicatedWorker>>;
let app: FastifyInstance;

const W3C = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

/** The A2A agent: completes each task with a text answer. */
const executor: AgentExecutor = {
  async execute(ctx, bus) {
    a2aSeen.push({ traceparent: a2aHeader, metadata: ctx.userMessage.metadata });
    const { taskId, contextId } = ctx;
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
        artifacts: [],
        history: [ctx.userMessage],
        metadata: undefined,
      }),
    );
    bus.publish(
      statusUpdate(taskId, contextId, TaskState.TASK_STATE_COMPLETED, agentMessage(`${taskId}-answer`, taskId, contextId, 'done')),
    );
    bus.finished();
  },
  async cancelTask() {},
};

beforeAll(async () => {
  // this file's own runtime: its log lines are read back below
  Runtime.install({ logger: new DefaultLogger('INFO', (e) => lines.push(e)) });
  httpAgent = createServer((req, res) => {
    httpHeaders.push(req.headers);
    req.resume();
    req.on('end', () => {
      // the very first call fails (retried): its step logs a line
      if (httpHeaders.length === 1) return void res.writeHead(500).end();
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ done: true, summary: 'three words', confidence: 0.9, usage: { costUsd: 0.001 } }));
    });
  });
  await new Promise<void>((resolve) => httpAgent.listen(0, '127.0.0.1', resolve));
  const seeHeader: RequestHandler = (req, _res, next) => {
    const header = req.headers.traceparent;
    a2aHeader = Array.isArray(header) ? header[0] : header;
    next();
  };
  a2aRemote = await startA2aRemote(executor, { '': (base) => a2aCard(base, false) }, [seeHeader]);
  const registry = createAgentRegistry([
    ...builtinAgents,
    createHttpAgent({
      id: 'trace-http',
      url: `http://127.0.0.1:${(httpAgent.address() as AddressInfo).port}/`,
      timeoutSeconds: 5,
      retry: fastRetry,
    }),
    createA2aAgent(
      { kind: 'a2a', id: 'trace-a2a', cardUrl: `${a2aRemote.base}/.well-known/agent-card.json`, retry: fastRetry, timeoutSeconds: 30 },
      { policy: { allowLoopback: true } },
    ),
  ]);
  worker = await startDedicatedWorker({ registry, lanes: ['default'] });
  app = await testApp({ DELEGATE_TASK_QUEUE: worker.taskQueue }, 'default', undefined, registry);
});

afterAll(async () => {
  await app?.close();
  await worker?.stop();
  httpAgent?.close();
  await a2aRemote?.close();
});

/** Submits a fan-out over both agents (with `headers`), waits for its result and reads its events. */
async function runJob(headers: Record<string, string> = {}) {
  const jobId = uniqueId('trace');
  const submitted = await app.inject({
    method: 'POST',
    url: '/v1/jobs',
    headers: { ...authHeader('default'), ...headers },
    payload: {
      jobId,
      pattern: 'fanout',
      tasks: [
        { id: 'http', question: 'how many words here', agent: 'trace-http' },
        { id: 'a2a', question: 'answer this', agent: 'trace-a2a' },
      ],
    },
  });
  expect(submitted.statusCode).toBe(201);
  const done = await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}/result?waitSeconds=60`, headers: authHeader('default') });
  expect(done.statusCode).toBe(200);
  const result = done.json<JobResult>();
  const events = await app.inject({
    method: 'GET',
    url: `/v1/jobs/${jobId}/events`,
    headers: { ...authHeader('default'), accept: 'text/event-stream' },
  });
  const parsed = events.body
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as JobEvent);
  return { jobId, result, events: parsed };
}

describe('trace id without OpenTelemetry', () => {
  it('a job gets a trace id that its HTTP and A2A agents receive and its results, events and log lines carry', async () => {
    const { jobId, result, events } = await runJob();
    expect(result.status, JSON.stringify(result.results.map((r) => r.errors))).toBe('success');
    const traceId = result.traceId!;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(result.results.map((r) => [r.id, r.traceId])).toEqual([
      ['http', traceId],
      ['a2a', traceId],
    ]);

    const http = httpHeaders.at(-1)!;
    expect(W3C.exec(String(http.traceparent))?.[1]).toBe(traceId);
    const a2a = a2aSeen.at(-1)!;
    expect(W3C.exec(String(a2a.traceparent))?.[1], 'the A2A request header').toBe(traceId);
    expect(W3C.exec(String(a2a.metadata?.traceparent))?.[1], 'the A2A message metadata').toBe(traceId);

    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['job.started', 'subtask.finished', 'job.finished']));
    expect(events.every((e) => e.traceId === traceId)).toBe(true);

    const ofJob = lines.filter((l) => l.meta?.workflowId && String(l.meta.workflowId).startsWith(`job/default/${jobId}`));
    // the job's own lines (DELEGATE, RESULT), and the step's line of its first, failed attempt
    expect(ofJob.filter((l) => l.message === 'DELEGATE' || l.message === 'RESULT').map((l) => l.meta?.traceId)).toEqual(
      Array(4).fill(traceId),
    );
    expect(ofJob.find((l) => l.message === 'agent step failed')?.meta).toMatchObject({ traceId, taskId: 'http' });
  });

  it("keeps the caller's trace id from its traceparent header", async () => {
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const { result, events } = await runJob({ traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` });
    expect(result.traceId).toBe(callerTrace);
    expect(result.results.every((r) => r.traceId === callerTrace)).toBe(true);
    expect(W3C.exec(String(httpHeaders.at(-1)!.traceparent))?.slice(1)).toEqual([
      callerTrace,
      expect.not.stringMatching('00f067aa0ba902b7'),
    ]);
    expect(events.every((e) => e.traceId === callerTrace)).toBe(true);
  });

  it('a malformed traceparent starts a trace of its own', async () => {
    const { result } = await runJob({ traceparent: 'not-a-trace' });
    expect(result.traceId).toMatch(/^[0-9a-f]{32}$/);
  });
});
