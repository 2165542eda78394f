/**
 * GenAI spans as a backend receives them: a worker of its own, traced with the real OTLP/HTTP
 * exporter into a loopback receiver, runs a job of two Gemini subtasks on the fake provider. The
 * receiver must get each model call as a `chat <model>` span in the GenAI conventions' terms
 * (with the AI SDK's own spans under it), each tool call as `execute_tool`, the subtask and job
 * spans as `invoke_agent` / `invoke_workflow` carrying the cost tree, and no prompt or completion.
 */
import { Client, Connection } from '@temporalio/client';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadRegistry } from '../../activities';
import { startTracing, type Tracing } from '../../telemetry/tracing';
import { delegationJob } from '../../workflows';
import { startDedicatedWorker } from '../dedicated-worker';
import { uniqueId } from '../helpers';

/** A span as OTLP/JSON carries it, attributes flattened. */
interface ReceivedSpan {
  name: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
}
type OtlpValue = {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
};

const plain = (v: OtlpValue): unknown =>
  v.arrayValue
    ? (v.arrayValue.values ?? []).map(plain)
    : v.intValue !== undefined
      ? Number(v.intValue)
      : (v.stringValue ?? v.doubleValue ?? v.boolValue);

/** Every span of every OTLP/JSON request the receiver got. */
const received: ReceivedSpan[] = [];
const contentTypes = new Set<string>();
let receiver: Server;
let tracing: Tracing;
let worker: Awaited<ReturnType<typeof startDedicatedWorker>>;
let connection: Connection;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      contentTypes.add(String(req.headers['content-type']));
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: {
          scopeSpans: { spans: (Omit<ReceivedSpan, 'attributes'> & { attributes?: { key: string; value: OtlpValue }[] })[] }[];
        }[];
      };
      for (const rs of body.resourceSpans)
        for (const ss of rs.scopeSpans)
          for (const s of ss.spans)
            received.push({ ...s, attributes: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, plain(a.value)])) });
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`;
  // the environment's exporter, as a deployment configures it: OTLP/HTTP, batched
  tracing = startTracing({ serviceName: 'delegate-genai-test', env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url }, genAi: { cost: true } })!;
  worker = await startDedicatedWorker({ registry: loadRegistry(inject('agentsFile')), tracing, lanes: ['default'] });
  connection = await Connection.connect({ address: inject('temporalAddress') });
});

afterAll(async () => {
  await worker?.stop();
  await connection?.close();
  await tracing?.shutdown();
  receiver?.close();
});

/** Flushes the exporter until `found` holds for what the receiver got (workflow spans come through the worker's sink, after their task). */
async function receivedUntil(found: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    await tracing.flush();
    if (found(received)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return received;
}

describe('GenAI spans over OTLP', () => {
  it('exports model calls, tool calls, agents and the job in the GenAI conventions, with the cost tree and without content', async () => {
    const jobId = uniqueId('genai');
    const model = uniqueId('scripted~genai');
    const client = new Client({ connection, interceptors: tracing.clientInterceptors });
    const tasks = ['Chile', 'Peru'].map((c) => ({ id: c, question: `capital of ${c}`, agent: 'gemini-researcher', scope: ['search'] }));
    const result = await client.workflow.execute(delegationJob, {
      taskQueue: worker.taskQueue,
      workflowId: `job/default/${jobId}`,
      args: [{ spec: { jobId, pattern: 'fanout', model, tasks }, tenant: 'default', maxDepth: 3 }],
    });
    expect(result.status).toBe('success');
    const isJob = (s: ReceivedSpan) => s.name === 'RunWorkflow:delegationJob' && s.attributes['delegate.job_id'] === jobId;
    const spans = await receivedUntil((all) => all.some(isJob) && all.filter((s) => s.name === `chat ${model}`).length === 4);
    expect([...contentTypes]).toEqual(['application/json']);

    // each model call: two turns per subtask (a tool call, then the answer)
    const chats = spans.filter((s) => s.name === `chat ${model}`);
    expect(chats).toHaveLength(4);
    for (const c of chats) {
      expect(c.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'gcp.gemini',
        'gen_ai.request.model': model,
        'gen_ai.response.model': expect.any(String),
        'gen_ai.usage.input_tokens': expect.any(Number),
        'gen_ai.usage.output_tokens': expect.any(Number),
        'gen_ai.usage.cache_read.input_tokens': expect.any(Number),
        'gen_ai.usage.cost.currency': 'USD',
        'gen_ai.usage.cost.source': 'local',
      });
      expect(c.attributes['gen_ai.response.finish_reasons']).toEqual([expect.stringMatching(/^(stop|tool-calls)$/)]);
    }
    // the second turn's prefix came from the provider's cache
    expect(chats.some((c) => (c.attributes['gen_ai.usage.cache_read.input_tokens'] as number) > 0)).toBe(true);
    // the AI SDK's own spans are the call's children, the provider's HTTP call under them
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const doStream = spans.filter(
      (s) => s.name === 'ai.streamText.doStream' && chats.some((c) => c.spanId === byId.get(s.parentSpanId!)?.parentSpanId),
    );
    expect(doStream).toHaveLength(4);
    expect(
      spans.filter((s) => s.name === 'POST agent gemini-researcher' && doStream.some((d) => d.spanId === s.parentSpanId)),
    ).toHaveLength(4);
    // tool calls the host ran for the model
    const tools = spans.filter((s) => s.name === 'execute_tool search');
    expect(tools).toHaveLength(2);
    expect(tools[0].attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'search',
      'gen_ai.tool.type': 'function',
    });

    // the cost tree: each subtask its booked spend, the job the sum
    const job = spans.find(isJob)!;
    const subtasks = spans.filter((s) => s.name === 'RunWorkflow:subtask' && s.attributes['delegate.job_id'] === jobId);
    expect(subtasks).toHaveLength(2);
    for (const r of result.results) {
      const span = subtasks.find((s) => s.attributes['delegate.task_id'] === r.id)!;
      expect(span.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'gemini-researcher',
        'delegate.cost_usd': r.metrics.costUsd,
        'delegate.input_tokens': r.metrics.inputTokens,
        'delegate.output_tokens': r.metrics.outputTokens,
      });
    }
    expect(job.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_workflow',
      'delegate.cost_usd': result.metrics.costUsd,
      'delegate.input_tokens': result.metrics.inputTokens,
      'delegate.cached_input_tokens': result.metrics.cachedInputTokens,
    });
    expect(result.metrics.costUsd).toBeCloseTo(result.results[0].metrics.costUsd + result.results[1].metrics.costUsd, 9);
    // what the model calls spent is what the job booked
    const sum = (k: string) => chats.reduce((n, c) => n + (c.attributes[k] as number), 0);
    expect(sum('gen_ai.usage.input_tokens')).toBe(result.metrics.inputTokens);
    expect(sum('gen_ai.usage.cost.amount')).toBeCloseTo(result.metrics.costUsd, 9);

    // content capture is off: no prompt, message or completion in any span
    const content = spans
      .flatMap((s) => Object.keys(s.attributes))
      .filter((k) => /^ai\.(prompt|response\.text|response\.toolCalls)|^gen_ai\.(input|output)\.messages/.test(k));
    expect(content).toEqual([]);
    console.log(
      `GenAI spans received over OTLP/JSON: ${spans.length} spans; a chat span: ${JSON.stringify(chats.find((c) => (c.attributes['gen_ai.usage.cache_read.input_tokens'] as number) > 0)?.attributes)}`,
    );
  });
});
