/** A model call's spans without a server: the AI SDK on a mock model, traced into memory, content captured only when asked. */
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { tracedTurn } from '../../activities/agents/llm-provider';
import { startTracing, type GenAiSettings, type Tracing } from '../../telemetry/tracing';

const usage = {
  inputTokens: { total: 30, noCache: 10, cacheRead: 20, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
const model = () =>
  new MockLanguageModelV3({
    provider: 'mock.chat',
    modelId: 'mock-1',
    doStream: async () => ({
      stream: simulateReadableStream({
        chunks: [
          { type: 'stream-start', warnings: [] },
          { type: 'response-metadata', id: 'r1', modelId: 'mock-1-2026', timestamp: new Date(0) },
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'the secret answer' },
          { type: 'text-end', id: 't' },
          { type: 'finish', usage, finishReason: { unified: 'stop', raw: 'stop' } },
        ],
      }),
    }),
  });

let tracing: Tracing | undefined;
afterEach(async () => {
  await tracing?.shutdown();
  tracing = undefined;
});

/** One turn traced with `genAi`: every finished span, by name. */
async function turn(genAi: Partial<GenAiSettings>) {
  const exporter = new InMemorySpanExporter();
  tracing = startTracing({ serviceName: 'genai-unit', exporter, genAi })!;
  const pricing = { inputPerMTok: 1e6, outputPerMTok: 2e6, cachedInputPerMTok: 1e5 };
  const r = await tracedTurn(
    {
      model: model(),
      messages: [{ role: 'user', content: 'the secret question' }],
      tools: [],
      maxOutputTokens: 64,
      signal: new AbortController().signal,
      what: 'agent a',
    },
    { provider: 'anthropic', model: 'mock-1', agentId: 'a' },
    pricing,
  );
  const spans = exporter.getFinishedSpans();
  return { r, spans, named: (n: string) => spans.find((s) => s.name === n) };
}

describe('model-call spans', () => {
  it('puts the GenAI attributes on the chat span, the AI SDK spans under it, and no content by default', async () => {
    const { r, spans, named } = await turn({});
    expect(r.tokens).toEqual({ input: 30, cached: 20, output: 5 });
    const chat = named('chat mock-1')!;
    expect(chat.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'mock-1',
      'gen_ai.request.max_tokens': 64,
      'gen_ai.response.model': 'mock-1-2026',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 30,
      'gen_ai.usage.output_tokens': 5,
      'gen_ai.usage.cache_read.input_tokens': 20,
    });
    expect(Object.keys(chat.attributes).filter((k) => k.startsWith('gen_ai.usage.cost'))).toEqual([]);
    expect(named('ai.streamText')!.parentSpanId).toBe(chat.spanContext().spanId);
    const text = JSON.stringify(spans.map((s) => s.attributes));
    expect(text).not.toContain('secret');
  });

  it('captures prompts and completions, and prices the call, only when the operator turns them on', async () => {
    const { spans, named } = await turn({ captureContent: true, cost: true });
    const text = JSON.stringify(spans.map((s) => s.attributes));
    expect(text).toContain('the secret question');
    expect(text).toContain('the secret answer');
    // 10 uncached input at $1/token, 20 cached at $0.1, 5 output at $2
    expect(named('chat mock-1')!.attributes).toMatchObject({
      'gen_ai.usage.cost.amount': 22,
      'gen_ai.usage.cost.currency': 'USD',
      'gen_ai.usage.cost.source': 'local',
    });
  });
});
