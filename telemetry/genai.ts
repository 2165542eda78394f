/**
 * Model and tool calls in the terms of the OpenTelemetry GenAI semantic conventions. The AI SDK
 * traces its own call (its `experimental_telemetry`: `ai.streamText` > `ai.streamText.doStream`,
 * with the `gen_ai.*` attributes it knows); Delegate's `chat <model>` span around it adds what
 * the SDK leaves out (operation, provider name, cached input tokens) and what only the host
 * knows (the booked cost, behind a flag while the conventions review it).
 *
 *   RunActivity:agentStep
 *     └─ chat <model>  (gen_ai.operation.name=chat, provider, models, usage, finish reasons)
 *          └─ ai.streamText └─ ai.streamText.doStream └─ POST agent <id>
 *     └─ execute_tool <name>  (a tool call the host ran for the model)
 *
 * Prompts and completions stay out of spans unless DELEGATE_OTEL_CAPTURE_CONTENT is on.
 * Nothing is made while the process is untraced.
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import type { LlmAgentConfig } from '../schemas';
import { definedOnly, genAiSettings } from './tracing';

/** `gen_ai.provider.name` of each wire format: the conventions' well-known values; an OpenAI-compatible server is none of them. */
export const GEN_AI_PROVIDER: Record<LlmAgentConfig['provider'], string> = {
  openai: 'openai',
  anthropic: 'anthropic',
  google: 'gcp.gemini',
  'openai-compatible': 'openai_compatible',
};

/** What a model call is, before it starts. */
export interface ModelCallStart {
  provider: LlmAgentConfig['provider'];
  /** The model asked for. */
  model: string;
  /** The agent making the call (the AI SDK's `functionId`). */
  agentId: string;
  maxOutputTokens: number;
}

/** How a model call ended. */
export interface ModelCallEnd {
  /** The model that answered, as the provider named it. */
  responseModel?: string;
  finishReason?: string;
  /** All input (cached included), the cached part, output. */
  tokens: { input: number; cached: number; output: number };
  /** What the host booked for the call, in US dollars. */
  costUsd: number;
}

/** One model call's telemetry: the AI SDK's settings for it, and its span's end. */
export interface ModelCall {
  /** Pass as the AI SDK's `experimental_telemetry`. */
  telemetry: { isEnabled: boolean; recordInputs?: boolean; recordOutputs?: boolean; functionId?: string };
  /** Runs `fn` with the call's span active, so the SDK's spans (and the HTTP call) are its children. */
  within<T>(fn: () => T): T;
  /** Ends the span with the answer, or with the error in its way. */
  end(result?: ModelCallEnd, error?: unknown): void;
}

const untraced: ModelCall = { telemetry: { isEnabled: false }, within: (fn) => fn(), end() {} };

/** Starts the `chat <model>` span of one model call under the active span (the step's); a no-op while untraced. */
export function startModelCall(o: ModelCallStart): ModelCall {
  const settings = genAiSettings();
  if (!settings) return untraced;
  const span: Span = trace.getTracer('delegate').startSpan(`chat ${o.model}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': GEN_AI_PROVIDER[o.provider],
      'gen_ai.request.model': o.model,
      'gen_ai.request.max_tokens': o.maxOutputTokens,
      'gen_ai.agent.name': o.agentId,
    },
  });
  const active = trace.setSpan(context.active(), span);
  return {
    telemetry: {
      isEnabled: true,
      recordInputs: settings.captureContent,
      recordOutputs: settings.captureContent,
      functionId: o.agentId,
    },
    within: (fn) => context.with(active, fn),
    end(result, error) {
      if (result) span.setAttributes(definedOnly(endAttributes(result, settings.cost)));
      if (error !== undefined) {
        span.setAttribute(ATTR_ERROR_TYPE, (error as Error)?.name ?? 'Error');
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    },
  };
}

/** The conventions' attributes of a finished call; `cost`: with `gen_ai.usage.cost.*`. */
function endAttributes(r: ModelCallEnd, cost: boolean): Attributes {
  return {
    'gen_ai.response.model': r.responseModel,
    'gen_ai.response.finish_reasons': r.finishReason ? [r.finishReason] : undefined,
    'gen_ai.usage.input_tokens': r.tokens.input,
    'gen_ai.usage.output_tokens': r.tokens.output,
    'gen_ai.usage.cache_read.input_tokens': r.tokens.cached,
    ...(cost ? { 'gen_ai.usage.cost.amount': r.costUsd, 'gen_ai.usage.cost.currency': 'USD', 'gen_ai.usage.cost.source': 'local' } : {}),
  };
}

/** `gen_ai.tool.type`: a tool the agent's config or the host defines (function), or one of an MCP server (extension). */
export type ToolType = 'function' | 'extension';

/** Runs one tool call under its `execute_tool <name>` span (INTERNAL); `run` alone while untraced. */
export async function executeTool<T>(name: string, callId: string, type: ToolType, run: () => Promise<T>): Promise<T> {
  if (!genAiSettings()) return run();
  const span = trace.getTracer('delegate').startSpan(`execute_tool ${name}`, {
    kind: SpanKind.INTERNAL,
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': name,
      'gen_ai.tool.call.id': callId,
      'gen_ai.tool.type': type,
    },
  });
  try {
    return await context.with(trace.setSpan(context.active(), span), run);
  } catch (err) {
    span.setAttribute(ATTR_ERROR_TYPE, (err as Error)?.name ?? 'Error');
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw err;
  } finally {
    span.end();
  }
}
