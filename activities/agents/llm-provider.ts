/**
 * One model turn on the AI SDK (the agent's model is llm-model.ts's): the conversation (kept in the
 * chat-completions shape the step state has always had), the offered tools WITHOUT execute (a
 * tool call comes back to the host, which checks and runs it), and the usage read as it streams.
 *
 *   chat messages ──toModelMessages──> streamText(model, tools, maxOutputTokens, abortSignal)
 *     text-delta ──> onText            raw usage / deltas counted ──> onUsage (estimate so far)
 *     finish-step ──> the provider's usage ──> TurnResult { text, toolCalls, usage }
 */
import { jsonSchema, streamText, type LanguageModel, type ModelMessage, type ToolSet } from 'ai';
import type { LlmAgentConfig } from '../../schemas';
import { startModelCall, type ModelCall, type ModelCallStart } from '../../telemetry/genai';
import { AgentFatalError, AgentRetryableError, AgentThrottledError } from '../errors';
import { isThrottleStatus, retryAfterMs, retryDelayFromBody } from '../throttle';

/** How long a provider keeps a cached prompt prefix (an LLM agent's `promptCacheTtl`). */
type PromptCacheTtl = NonNullable<LlmAgentConfig['promptCacheTtl']>;

/** A chat message of the step state (the chat-completions shape; older states have it too). */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** A tool as offered to the model (the chat-completions function shape). */
export interface ToolDef {
  type: string;
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** Tokens of one turn: all input (cached included), the cached part of it, and output. */
export interface TurnTokens {
  input: number;
  cached: number;
  output: number;
}

/** What one turn answered. */
export interface TurnResult {
  text: string;
  toolCalls: { id: string; name: string; arguments: string }[];
  tokens: TurnTokens;
  /** The model that answered, as the provider named it. */
  responseModel?: string;
  /** Why the model stopped (`stop`, `tool-calls`, `length`, …). */
  finishReason?: string;
}

/**
 * The state's chat messages as the AI SDK's; `cacheBreakpoint`: the index of the message that ends a
 * cache-stable prefix (Anthropic cache control), kept for `cacheTtl` when the agent chose one.
 */
export function toModelMessages(messages: ChatMessage[], cacheBreakpoint?: number, cacheTtl?: PromptCacheTtl): ModelMessage[] {
  const names = new Map<string, string>();
  const cache = { anthropic: { cacheControl: { type: 'ephemeral', ...(cacheTtl ? { ttl: cacheTtl } : {}) } } } as const;
  return messages.map((m, i): ModelMessage => {
    const mark = i === cacheBreakpoint ? { providerOptions: cache } : {};
    if (m.role === 'system') return { role: 'system', content: m.content ?? '', ...mark };
    if (m.role === 'user') return { role: 'user', content: m.content ?? '', ...mark };
    if (m.role === 'tool') {
      const toolName = names.get(m.tool_call_id ?? '') ?? 'tool';
      return {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: m.tool_call_id ?? '', toolName, output: { type: 'text', value: m.content ?? '' } }],
      };
    }
    const parts: Exclude<Extract<ModelMessage, { role: 'assistant' }>['content'], string> = [];
    if (m.content) parts.push({ type: 'text', text: m.content });
    for (const c of m.tool_calls ?? []) {
      names.set(c.id, c.function.name);
      parts.push({ type: 'tool-call', toolCallId: c.id, toolName: c.function.name, input: parseArgs(c.function.arguments) });
    }
    return { role: 'assistant', content: parts, ...mark };
  });
}

/** A tool call's arguments as the host reads them: the JSON, or `{raw}` when the model wrote none. */
export function parseArgs(text: string | undefined): unknown {
  try {
    return JSON.parse(text || '{}');
  } catch {
    return { raw: text };
  }
}

/** The offered tools as the SDK's, without execute: every call the model makes comes back to the host. */
export function toolSet(defs: ToolDef[]): ToolSet {
  return Object.fromEntries(
    defs.map((d) => [
      d.function.name,
      { description: d.function.description ?? '', inputSchema: jsonSchema((d.function.parameters ?? { type: 'object' }) as never) },
    ]),
  );
}

/** A turn's cost by the agent's pricing: cached input at its own price where the agent has one. */
export function costOf(pricing: LlmAgentConfig['pricing'], t: TurnTokens): number {
  const cachedPrice = pricing.cachedInputPerMTok ?? pricing.inputPerMTok;
  return ((t.input - t.cached) * pricing.inputPerMTok + t.cached * cachedPrice + t.output * pricing.outputPerMTok) / 1e6;
}

/** What a provider's raw stream chunk says of usage (OpenAI's final chunk, Anthropic's message_start / message_delta, Gemini's usageMetadata on every chunk). */
function rawUsage(raw: unknown, t: TurnTokens): void {
  const r = raw as {
    type?: string;
    usageMetadata?: {
      promptTokenCount?: number;
      cachedContentTokenCount?: number;
      candidatesTokenCount?: number;
      thoughtsTokenCount?: number;
    };
    usage?: {
      prompt_tokens?: number;
      completion_tokens?: number;
      prompt_tokens_details?: { cached_tokens?: number };
      output_tokens?: number;
    };
    message?: { usage?: { input_tokens?: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number } };
  };
  const start = r?.type === 'message_start' ? r.message?.usage : undefined;
  if (start) {
    t.cached = start.cache_read_input_tokens ?? 0;
    t.input = (start.input_tokens ?? 0) + t.cached + (start.cache_creation_input_tokens ?? 0);
  }
  if (r?.type === 'message_delta' && typeof r.usage?.output_tokens === 'number') t.output = r.usage.output_tokens;
  const g = r?.usageMetadata;
  if (typeof g?.promptTokenCount === 'number') {
    t.input = g.promptTokenCount;
    t.cached = g.cachedContentTokenCount ?? 0;
    t.output = Math.max(t.output, (g.candidatesTokenCount ?? 0) + (g.thoughtsTokenCount ?? 0));
  }
  if (typeof r?.usage?.prompt_tokens === 'number') {
    t.input = r.usage.prompt_tokens;
    t.cached = r.usage.prompt_tokens_details?.cached_tokens ?? 0;
    t.output = r.usage.completion_tokens ?? t.output;
  }
}

/** Options of one turn. */
export interface TurnOptions {
  model: LanguageModel;
  messages: ChatMessage[];
  tools: ToolDef[];
  maxOutputTokens: number;
  signal: AbortSignal;
  what: string;
  /** The message ending the cache-stable prefix (roles' first request). */
  cacheBreakpoint?: number;
  /** How long the provider keeps that prefix (the agent's `promptCacheTtl`). @default the provider's (5m) */
  cacheTtl?: PromptCacheTtl;
  /** Each piece of text as it streams. */
  onText?: (delta: string) => void;
  /** The tokens so far: the provider's counts where it sent them, otherwise an estimate (prompt characters / 4 from the moment the request goes out, one output token per delta). */
  onTokens?: (t: TurnTokens) => void;
  /** The AI SDK's own tracing of the call (`tracedTurn` sets it). @default off */
  telemetry?: ModelCall['telemetry'];
}

/** The input tokens of a request as the host estimates them before the provider says: its characters / 4. */
export function promptTokens(messages: ChatMessage[]): number {
  const chars = messages.reduce((n, m) => n + (m.content?.length ?? 0) + (m.tool_calls ? JSON.stringify(m.tool_calls).length : 0), 0);
  return Math.ceil(chars / 4);
}

/** Runs one model turn, streaming; throws AgentRetryableError / AgentFatalError as the provider's answer says. */
export async function streamTurn(o: TurnOptions): Promise<TurnResult> {
  const t: TurnTokens = { input: promptTokens(o.messages), cached: 0, output: 0 };
  let deltas = 0;
  let failure: unknown;
  const result = streamText({
    model: o.model,
    messages: toModelMessages(o.messages, o.cacheBreakpoint, o.cacheTtl),
    allowSystemInMessages: true,
    ...(o.tools.length ? { tools: toolSet(o.tools) } : {}),
    maxOutputTokens: o.maxOutputTokens,
    // the step's retry policy is Temporal's
    maxRetries: 0,
    abortSignal: o.signal,
    includeRawChunks: true,
    ...(o.telemetry ? { experimental_telemetry: o.telemetry } : {}),
    onError: ({ error }) => void (failure ??= error),
  });
  let text = '';
  const toolCalls: TurnResult['toolCalls'] = [];
  let finished = false;
  let answer: Pick<TurnResult, 'responseModel' | 'finishReason'> = {};
  // the provider took the request once a chunk of its stream arrives: its input is spent from then
  // on, also if the turn is cut before any text; a request it refused (429, 529) or failed (5xx)
  // before answering costs nothing, so until then nothing is reported
  let answered = false;
  for await (const part of result.fullStream) {
    if (part.type === 'raw') {
      answered = true;
      rawUsage(part.rawValue, t);
    } else if (part.type === 'error') {
      failure ??= part.error;
      if (!answered) continue;
    } else if (part.type === 'text-delta') {
      text += part.text;
      if (part.text) deltas++;
      o.onText?.(part.text);
    } else if (part.type === 'tool-input-delta') deltas++;
    else if (part.type === 'tool-call')
      toolCalls.push({ id: part.toolCallId, name: part.toolName, arguments: JSON.stringify(part.input ?? {}) });
    else if (part.type === 'finish-step') {
      const u = part.usage;
      t.input = u.inputTokens ?? t.input;
      t.cached = u.inputTokenDetails?.cacheReadTokens ?? u.cachedInputTokens ?? t.cached;
      t.output = u.outputTokens ?? t.output;
      answer = { responseModel: part.response.modelId, finishReason: part.finishReason };
      finished = true;
    } else continue;
    if (!finished) t.output = Math.max(t.output, deltas);
    if (part.type !== 'tool-call') o.onTokens?.({ ...t });
  }
  if (o.signal.aborted) throw o.signal.reason ?? new Error('aborted');
  if (failure) throw providerError(failure, o.what);
  if (!finished) throw new AgentRetryableError(`${o.what} ended its stream before the turn finished`);
  return { text, toolCalls, tokens: t, ...answer };
}

/** One turn under its `chat <model>` span (telemetry/genai.ts), the AI SDK's spans inside it; `pricing` prices the span's cost. */
export async function tracedTurn(
  o: TurnOptions,
  call: Omit<ModelCallStart, 'maxOutputTokens'>,
  pricing: LlmAgentConfig['pricing'],
): Promise<TurnResult> {
  const span = startModelCall({ ...call, maxOutputTokens: o.maxOutputTokens });
  try {
    const r = await span.within(() => streamTurn({ ...o, telemetry: span.telemetry }));
    span.end({ responseModel: r.responseModel, finishReason: r.finishReason, tokens: r.tokens, costUsd: costOf(pricing, r.tokens) });
    return r;
  } catch (err) {
    span.end(undefined, err);
    throw err;
  }
}

/**
 * A provider error as the host's: throttling (429, Anthropic's 529, Gemini's RESOURCE_EXHAUSTED, a 503
 * with Retry-After) is back-pressure with the wait the provider asked for; 5xx and network errors
 * retryable; other statuses final. Never the body in a message (it may echo a key).
 */
function providerError(err: unknown, what: string): Error {
  const e = err as {
    statusCode?: number;
    name?: string;
    isRetryable?: boolean;
    responseHeaders?: Record<string, string>;
    responseBody?: string;
  };
  const status = e?.statusCode;
  if (status !== undefined) {
    const body = parseBody(e.responseBody);
    const wait = retryAfterMs(e.responseHeaders, Date.now()) ?? retryDelayFromBody(body);
    const throttle = isThrottleStatus(status, { body, hasRetryAfter: wait !== undefined });
    if (throttle) return new AgentThrottledError(`${what} answered ${status} (${throttle.reason})`, throttle.reason, wait);
  }
  if (status !== undefined && status < 500) return new AgentFatalError(`${what} answered ${status}`);
  if (status !== undefined) return new AgentRetryableError(`${what} answered ${status}`);
  return new AgentRetryableError(`${what} failed (${e?.name ?? 'error'})`);
}

/** A provider's error body as JSON, when it is (Gemini's says RESOURCE_EXHAUSTED and how long to wait there). */
function parseBody(text: string | undefined): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}
