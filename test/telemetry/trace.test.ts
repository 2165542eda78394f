/**
 * One trace from the API request to the agent: an in-process API app and a worker of its
 * own, both traced into an in-memory exporter, and an HTTP agent on loopback that records
 * the headers it got. A job submitted through the API must come back as one trace holding
 * the request, the job, its subtask, the step and the agent call, whose traceparent the
 * agent received.
 */
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { Client, Connection } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { builtinAgents, createAgentRegistry, createHttpAgent } from '../../activities';
import { buildApp } from '../../api/app';
import { startTracing, type Tracing } from '../../telemetry/tracing';
import { loadTenants } from '../../config/tenants';
import { sharedWorkflowBundle, startDedicatedWorker } from '../dedicated-worker';
import { testConfig, testRecord, uniqueId } from '../helpers';
import { authHeader } from '../tenants';

const exporter = new InMemorySpanExporter();
/** Headers of every request the agent got. */
const received: IncomingHttpHeaders[] = [];
let tracing: Tracing;
let agent: Server;
let worker: Awaited<ReturnType<typeof startDedicatedWorker>>;
let connection: Connection;
let app: FastifyInstance;
let client: Client;
/** The traced job's workflow id, once the first test ran it. */
let tracedJob: string | undefined;

beforeAll(async () => {
  tracing = startTracing({ serviceName: 'delegate-test', exporter })!;
  agent = createServer((req, res) => {
    received.push(req.headers);
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          done: true,
          summary: 'three words',
          data: { words: 3 },
          confidence: 0.9,
          usage: { costUsd: 0.002, tokens: 42, toolCalls: 1 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => agent.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(agent.address() as AddressInfo).port}/count`;
  const registry = createAgentRegistry([...builtinAgents, createHttpAgent({ id: 'traced-http', url, timeoutSeconds: 5 })]);
  worker = await startDedicatedWorker({ registry, tracing, lanes: ['default'] });
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection, interceptors: tracing.clientInterceptors });
  const config = testConfig({ DELEGATE_TASK_QUEUE: worker.taskQueue });
  app = await buildApp({ config, client, registry, tenants: loadTenants(config), record: await testRecord(), tracing: true });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await worker?.stop();
  await connection?.close();
  agent?.close();
  await tracing?.shutdown();
});

/** The spans of one trace as an indented tree of names, children in start order. */
function tree(spans: ReadableSpan[]): string {
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  const childrenOf = (parent: string | undefined) =>
    spans
      .filter((s) => (parent === undefined ? !s.parentSpanId || !ids.has(s.parentSpanId) : s.parentSpanId === parent))
      .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
  const lines: string[] = [];
  const walk = (s: ReadableSpan, depth: number) => {
    lines.push(`${'  '.repeat(depth)}${s.name}`);
    for (const c of childrenOf(s.spanContext().spanId)) walk(c, depth + 1);
  };
  for (const root of childrenOf(undefined)) walk(root, 0);
  return lines.join('\n');
}

/** Waits until `found` holds for the exported spans (workflow spans arrive through the worker's sink, after their task). */
async function spansUntil(found: (spans: ReadableSpan[]) => boolean): Promise<ReadableSpan[]> {
  const until = Date.now() + 30_000;
  while (!found(exporter.getFinishedSpans()) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  return exporter.getFinishedSpans();
}

describe('traces', () => {
  it('one trace holds the API request, the job, a subtask, a step and the HTTP agent call, whose traceparent the agent received', async () => {
    const jobId = uniqueId('traced');
    const submitted = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: authHeader('default'),
      payload: { jobId, pattern: 'fanout', tasks: [{ id: 'count', question: 'how many words here', agent: 'traced-http' }] },
    });
    expect(submitted.statusCode).toBe(201);
    tracedJob = submitted.json<{ workflowId: string }>().workflowId;
    const done = await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}/result?waitSeconds=60`, headers: authHeader('default') });
    expect(done.statusCode).toBe(200);
    expect(done.json<{ status: string }>().status).toBe('success');

    const ofJob = (spans: ReadableSpan[]) =>
      spans.find((s) => s.name === 'RunWorkflow:delegationJob' && s.attributes['delegate.job_id'] === jobId);
    const spans = await spansUntil((all) => ofJob(all) !== undefined);
    const api = spans.find((s) => s.name === 'POST /v1/jobs' && s.attributes['delegate.job_id'] === jobId);
    expect(api, 'the API request span').toBeDefined();
    const traceId = api!.spanContext().traceId;
    const trace = spans.filter((s) => s.spanContext().traceId === traceId);
    const named = (name: string) => trace.filter((s) => s.name === name);

    expect(api!.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/jobs',
      'http.response.status_code': 201,
      'delegate.tenant': 'default',
    });
    expect(named('RunWorkflow:delegationJob')[0]?.attributes).toMatchObject({
      'delegate.job_id': jobId,
      'delegate.tenant': 'default',
      'delegate.status': 'success',
    });
    expect(named('RunWorkflow:subtask')[0]?.attributes).toMatchObject({
      'delegate.job_id': jobId,
      'delegate.task_id': 'count',
      'delegate.agent_id': 'traced-http',
      'delegate.cost_usd': 0.002,
      'delegate.tokens': 42,
    });
    const [step] = named('RunActivity:agentStep');
    expect(step?.attributes).toMatchObject({
      'delegate.job_id': jobId,
      'delegate.task_id': 'count',
      'delegate.agent_id': 'traced-http',
      'delegate.attempt': 1,
      'delegate.cost_usd': 0.002,
      'delegate.tokens': 42,
      'delegate.tool_calls': 1,
    });
    const [call] = named('POST agent traced-http');
    expect(call?.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.response.status_code': 200,
      'server.address': '127.0.0.1',
    });
    // the call is the step's child, and the agent got the call's own context
    expect(call.parentSpanId).toBe(step.spanContext().spanId);
    expect(received).toHaveLength(1);
    expect(received[0].traceparent).toBe(`00-${traceId}-${call.spanContext().spanId}-01`);

    // and the links in between: request ─> job ─> subtask ─> step, one parent chain
    const parentOf = (s: ReadableSpan) => trace.find((p) => p.spanContext().spanId === s.parentSpanId);
    const chain: string[] = [];
    for (let s: ReadableSpan | undefined = call; s; s = parentOf(s)) chain.unshift(s.name);
    expect(chain[0]).toBe('POST /v1/jobs');
    expect(chain).toEqual(
      expect.arrayContaining(['RunWorkflow:delegationJob', 'RunWorkflow:subtask', 'RunActivity:agentStep', 'POST agent traced-http']),
    );

    console.log(`trace ${traceId}\n${tree(trace)}`);
  });

  it('a traced job and its subtask replay on an untraced worker: tracing can be turned off during a deploy', async () => {
    expect(tracedJob, 'the traced job of the first test').toBeDefined();
    const workflowBundle = sharedWorkflowBundle();
    for (const workflowId of [tracedJob!, `${tracedJob}/count`]) {
      const history = await client.workflow.getHandle(workflowId).fetchHistory();
      // the trace context rides in headers, which replay does not compare: the same commands come out
      expect(JSON.stringify(history)).toContain('_tracer-data');
      await expect(
        Worker.runReplayHistory({ workflowBundle, replayName: 'delegate-untraced-replay' }, history, workflowId),
      ).resolves.toBeUndefined();
    }
  });
});
