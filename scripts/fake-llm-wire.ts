/**
 * The wire formats of the fake LLM provider (fake-llm.ts): an answer the script decided, written
 * as OpenAI chat completions (JSON, or SSE with `stream_options.include_usage`) or Anthropic
 * Messages SSE, chunk by chunk; and Anthropic requests read into the chat shape the scripts use.
 *
 *   answer { text | toolCalls } ──chunks (each one output token, charged as written)──> SSE events
 *   OpenAI:    data: {choices:[{delta}]} … data: {choices:[], usage:{…, prompt_tokens_details}} · data: [DONE]
 *   Anthropic: message_start(usage) · content_block_start/delta/stop … · message_delta(usage) · message_stop
 *   Gemini:    data: {candidates:[{content:{parts:[{text}]}}], usageMetadata:{…, cachedContentTokenCount}} … · last with finishReason
 */
import type { ServerResponse } from 'node:http';
import type { FakeMessage } from './fake-llm-roles';

/** What the script answers: text (in chunks), or tool calls. */
export interface FakeAnswer {
  text?: string;
  toolCalls?: { id: string; name: string; arguments: string }[];
  /** Characters per text chunk. @default the whole text in one chunk */
  chunkChars?: number;
  /** Wait before each chunk. @default 0 */
  chunkDelayMs?: number;
  /** Output tokens to report; absent: one per chunk sent. */
  outputTokens?: number;
}

/** Input tokens of a request as the fake counts them, and the cached part. */
export interface FakeInput {
  input: number;
  cached: number;
  /** Anthropic only: tokens written to the cache by this request. */
  cacheWrite?: number;
}

/** The fake's tally of what it charged for a model: grows as chunks are written, also on a stream the client cuts. */
export interface Charged {
  requests: number;
  input: number;
  cached: number;
  output: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function chunksOf(a: FakeAnswer): string[] {
  const text = a.text ?? '';
  if (!text) return [];
  const size = a.chunkChars ?? text.length;
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** Writes `chunks` one by one, charging each; stops when the client has gone. Returns the chunks written. */
async function drip(res: ServerResponse, chunks: string[], delay: number, write: (c: string, i: number) => void, charged: Charged) {
  let n = 0;
  for (const c of chunks) {
    if (delay) await sleep(delay);
    if (res.destroyed || res.writableEnded) break;
    write(c, n++);
    charged.output++;
  }
  return n;
}

/** An OpenAI chat-completions answer as SSE (`stream: true`), usage in the last chunk when asked for. */
export async function openAiStream(
  res: ServerResponse,
  model: string,
  a: FakeAnswer,
  inp: FakeInput,
  includeUsage: boolean,
  charged: Charged,
) {
  const id = `chatcmpl-${Date.now()}`;
  const frame = (choices: unknown[], extra: object = {}) =>
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model, choices, ...extra })}\n\n`);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  frame([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
  const sent = await drip(
    res,
    chunksOf(a),
    a.chunkDelayMs ?? 0,
    (c) => frame([{ index: 0, delta: { content: c }, finish_reason: null }]),
    charged,
  );
  if (res.destroyed) return;
  (a.toolCalls ?? []).forEach((c, index) =>
    frame([
      {
        index: 0,
        delta: { tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }] },
        finish_reason: null,
      },
    ]),
  );
  const output = finalOutput(a, sent, charged);
  frame([{ index: 0, delta: {}, finish_reason: a.toolCalls?.length ? 'tool_calls' : 'stop' }]);
  if (includeUsage)
    frame([], {
      usage: {
        prompt_tokens: inp.input,
        completion_tokens: output,
        total_tokens: inp.input + output,
        prompt_tokens_details: { cached_tokens: inp.cached },
      },
    });
  res.end('data: [DONE]\n\n');
}

/** An OpenAI chat-completions answer as one JSON body (`stream` absent). */
export function openAiJson(res: ServerResponse, model: string, a: FakeAnswer, inp: FakeInput, charged: Charged) {
  const output = finalOutput(a, chunksOf(a).length, charged);
  charged.output += chunksOf(a).length;
  const message = a.toolCalls?.length
    ? {
        role: 'assistant',
        content: null,
        tool_calls: a.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
      }
    : { role: 'assistant', content: a.text ?? '' };
  res.writeHead(200, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      id: `chatcmpl-${Date.now()}`,
      object: 'chat.completion',
      model,
      choices: [{ index: 0, message, finish_reason: 'stop' }],
      usage: {
        prompt_tokens: inp.input,
        completion_tokens: output,
        total_tokens: inp.input + output,
        prompt_tokens_details: { cached_tokens: inp.cached },
      },
    }),
  );
}

/** The output tokens a finished answer reports: the script's figure (charged in full) or one per chunk. */
function finalOutput(a: FakeAnswer, sent: number, charged: Charged): number {
  if (a.outputTokens === undefined) return sent;
  charged.output += a.outputTokens - sent;
  return a.outputTokens;
}

/** An Anthropic Messages answer as SSE. */
export async function anthropicStream(res: ServerResponse, model: string, a: FakeAnswer, inp: FakeInput, charged: Charged) {
  const event = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  event('message_start', {
    message: {
      id: `msg_${Date.now()}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: inp.input - inp.cached - (inp.cacheWrite ?? 0),
        cache_read_input_tokens: inp.cached,
        cache_creation_input_tokens: inp.cacheWrite ?? 0,
        output_tokens: 1,
      },
    },
  });
  let index = 0;
  const chunks = chunksOf(a);
  let sent = 0;
  if (chunks.length) {
    event('content_block_start', { index, content_block: { type: 'text', text: '' } });
    sent = await drip(
      res,
      chunks,
      a.chunkDelayMs ?? 0,
      (c) => event('content_block_delta', { index, delta: { type: 'text_delta', text: c } }),
      charged,
    );
    if (res.destroyed) return;
    event('content_block_stop', { index: index++ });
  }
  for (const c of a.toolCalls ?? []) {
    event('content_block_start', { index, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } });
    event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: c.arguments } });
    event('content_block_stop', { index: index++ });
  }
  const output = finalOutput(a, sent, charged);
  event('message_delta', {
    delta: { stop_reason: a.toolCalls?.length ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: output },
  });
  event('message_stop', {});
  res.end();
}

interface AnthropicBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: string | { type: string; text?: string }[];
  cache_control?: unknown;
}

/** An Anthropic Messages request in the chat shape the scripts read (system first, tool results as tool messages). */
export function fromAnthropic(body: {
  system?: string | AnthropicBlock[];
  messages?: { role: string; content: string | AnthropicBlock[] }[];
  tools?: { name: string }[];
}): { messages: FakeMessage[]; tools: { function: { name: string } }[] } {
  const out: FakeMessage[] = [];
  const system = typeof body.system === 'string' ? body.system : (body.system ?? []).map((b) => b.text ?? '').join('');
  if (system) out.push({ role: 'system', content: system });
  for (const m of body.messages ?? []) {
    const blocks: AnthropicBlock[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    const text = blocks
      .filter((b) => b.type === 'text')
      .map((b) => b.text ?? '')
      .join('');
    const uses = blocks.filter((b) => b.type === 'tool_use');
    for (const r of blocks.filter((b) => b.type === 'tool_result'))
      out.push({
        role: 'tool',
        tool_call_id: r.tool_use_id,
        content: typeof r.content === 'string' ? r.content : (r.content ?? []).map((c) => c.text ?? '').join(''),
      });
    if (m.role === 'assistant')
      out.push({
        role: 'assistant',
        content: text || null,
        ...(uses.length
          ? { tool_calls: uses.map((u) => ({ id: u.id!, function: { name: u.name!, arguments: JSON.stringify(u.input ?? {}) } })) }
          : {}),
      });
    else if (text) out.push({ role: 'user', content: text });
  }
  return { messages: out, tools: (body.tools ?? []).map((t) => ({ function: { name: t.name } })) };
}

/** The cache-stable prefix of an Anthropic request: everything up to its last cache_control mark (undefined: no mark). */
export function anthropicCachePrefix(body: { system?: unknown; messages?: { content: unknown }[]; tools?: unknown }): string | undefined {
  const raw = JSON.stringify({ tools: body.tools, system: body.system, messages: body.messages });
  const at = raw.lastIndexOf('"cache_control"');
  return at < 0 ? undefined : raw.slice(0, at);
}

/**
 * A Gemini `streamGenerateContent?alt=sse` answer: one `data:` chunk per piece of text, each with
 * the usage so far (`usageMetadata`: prompt, cached part, candidates written), as Gemini sends it;
 * function calls in the last chunk, which carries the finish reason.
 */
export async function geminiStream(res: ServerResponse, model: string, a: FakeAnswer, inp: FakeInput, charged: Charged) {
  const usage = (output: number) => ({
    promptTokenCount: inp.input,
    candidatesTokenCount: output,
    totalTokenCount: inp.input + output,
    ...(inp.cached ? { cachedContentTokenCount: inp.cached } : {}),
  });
  const chunk = (parts: unknown[], output: number, finishReason?: string) =>
    res.write(
      `data: ${JSON.stringify({
        candidates: [{ content: { role: 'model', parts }, index: 0, ...(finishReason ? { finishReason } : {}) }],
        usageMetadata: usage(output),
        modelVersion: model,
        responseId: `gem-${Date.now()}`,
      })}\r\n\r\n`,
    );
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const sent = await drip(res, chunksOf(a), a.chunkDelayMs ?? 0, (c, i) => chunk([{ text: c }], i + 1), charged);
  if (res.destroyed) return;
  const output = finalOutput(a, sent, charged);
  const calls = (a.toolCalls ?? []).map((c) => ({ functionCall: { name: c.name, args: JSON.parse(c.arguments || '{}') as unknown } }));
  chunk(calls.length ? calls : [{ text: '' }], output, 'STOP');
  res.end();
}

interface GeminiPart {
  text?: string;
  functionCall?: { name: string; args?: unknown };
  functionResponse?: { name: string; response?: { content?: unknown } };
}

/**
 * A Gemini request in the chat shape the scripts read. Gemini's calls carry no ids: the n-th
 * function call of the conversation is `gem_<n>`, and the n-th function response answers it.
 */
export function fromGemini(body: {
  systemInstruction?: { parts?: GeminiPart[] };
  contents?: { role: string; parts?: GeminiPart[] }[];
  tools?: { functionDeclarations?: { name: string }[] }[];
  generationConfig?: { maxOutputTokens?: number };
}): { messages: FakeMessage[]; tools: { function: { name: string } }[]; max_tokens?: number } {
  const out: FakeMessage[] = [];
  const system = (body.systemInstruction?.parts ?? []).map((p) => p.text ?? '').join('');
  if (system) out.push({ role: 'system', content: system });
  let calls = 0;
  let answers = 0;
  for (const m of body.contents ?? []) {
    const parts = m.parts ?? [];
    const text = parts.map((p) => p.text ?? '').join('');
    for (const p of parts.filter((x) => x.functionResponse)) {
      const content = p.functionResponse!.response?.content;
      out.push({
        role: 'tool',
        tool_call_id: `gem_${++answers}`,
        content: typeof content === 'string' ? content : JSON.stringify(content),
      });
    }
    const uses = parts.filter((p) => p.functionCall);
    if (m.role === 'model')
      out.push({
        role: 'assistant',
        content: text || null,
        ...(uses.length
          ? {
              tool_calls: uses.map((u) => ({
                id: `gem_${++calls}`,
                function: { name: u.functionCall!.name, arguments: JSON.stringify(u.functionCall!.args ?? {}) },
              })),
            }
          : {}),
      });
    else if (text) out.push({ role: 'user', content: text });
  }
  return {
    messages: out,
    tools: (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []).map((t) => ({ function: { name: t.name } })),
    ...(body.generationConfig?.maxOutputTokens !== undefined ? { max_tokens: body.generationConfig.maxOutputTokens } : {}),
  };
}
