/**
 * Traces: one OpenTelemetry trace from the API request through the job and subtask
 * workflows and the step activities to the agents' HTTP calls.
 *
 *   POST /v1/jobs (api) ──client interceptor, `_tracer-data` header──> RunWorkflow:delegationJob
 *     ──> StartChildWorkflowExecution:subtask ──> RunWorkflow:subtask ──> StartActivity:agentStep
 *     ──> RunActivity:agentStep ──> POST agent <id> ──`traceparent`──> the agent
 *
 * Configured with the standard `OTEL_*` variables and off when none says where spans go:
 * then no provider is registered, no interceptor is installed and nothing is measured.
 * The worker's half (interceptors, the workflow span sink) is in `worker-tracing.ts`.
 */
import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { CompositePropagator, ExportResultCode, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_SERVICE_NAME,
  ATTR_URL_FULL,
} from '@opentelemetry/semantic-conventions';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import type { ClientInterceptors } from '@temporalio/client';
import type { TokenSplit } from '../core/token-split';

/** Where spans go, as the environment says. */
export interface TracingSettings {
  exporter: 'otlp' | 'console';
  /** OTLP/HTTP traces URL (`otlp` only). */
  url?: string;
  serviceName: string;
  /** From `OTEL_RESOURCE_ATTRIBUTES`. */
  resourceAttributes: Record<string, string>;
}

/** `k=v,k2=v2`, values percent-encoded (the spec's format); a malformed pair is skipped. */
function parseResourceAttributes(raw: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (raw ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    try {
      out[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      /* a bad escape: skip the pair, as the SDK's own env detector does */
    }
  }
  return out;
}

/** The `OTEL_*` variables `tracingSettings` reads: with schemas/config.ts, every variable a process reads. */
export const TRACING_ENV_KEYS = [
  'OTEL_SDK_DISABLED',
  'OTEL_TRACES_EXPORTER',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_SERVICE_NAME',
  'OTEL_RESOURCE_ATTRIBUTES',
] as const;

/**
 * Reads the standard variables: `OTEL_SDK_DISABLED`, `OTEL_TRACES_EXPORTER` (otlp | console |
 * none), `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_SERVICE_NAME`,
 * `OTEL_RESOURCE_ATTRIBUTES`. Undefined (tracing off) when none of the first four asks for spans:
 * unlike the SDK's default, no variable means no export, not an export to localhost.
 */
export function tracingSettings(env: NodeJS.ProcessEnv, defaultServiceName: string): TracingSettings | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const tracesEndpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const named = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (named.includes('none')) return undefined;
  const unknown = named.filter((n) => n !== 'otlp' && n !== 'console');
  if (unknown.length > 0)
    throw new Error(`OTEL_TRACES_EXPORTER=${env.OTEL_TRACES_EXPORTER}: this service exports traces with otlp (HTTP), console or none`);
  const exporter = (named[0] as 'otlp' | 'console' | undefined) ?? (tracesEndpoint || endpoint ? 'otlp' : undefined);
  if (!exporter) return undefined;
  const resourceAttributes = parseResourceAttributes(env.OTEL_RESOURCE_ATTRIBUTES);
  const serviceName = env.OTEL_SERVICE_NAME?.trim() || resourceAttributes[ATTR_SERVICE_NAME] || defaultServiceName;
  const url = exporter !== 'otlp' ? undefined : tracesEndpoint || `${(endpoint || 'http://localhost:4318').replace(/\/+$/, '')}/v1/traces`;
  return { exporter, url, serviceName, resourceAttributes };
}

/** Options of `startTracing`. */
export interface TracingOptions {
  /** `service.name` unless `OTEL_SERVICE_NAME` or `OTEL_RESOURCE_ATTRIBUTES` say otherwise. */
  serviceName: string;
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Export here whatever the environment says (tests: an `InMemorySpanExporter`; the bench: a sink). */
  exporter?: SpanExporter;
  /** Batch spans before export. @default true for the environment's exporter, false for `exporter` (tests read spans at once) */
  batch?: boolean;
  /** What model-call spans carry besides the GenAI conventions' stable attributes (DELEGATE_OTEL_*). @default neither */
  genAi?: Partial<GenAiSettings>;
}

/** Opt-ins of model-call spans (telemetry/genai.ts). */
export interface GenAiSettings {
  /** Prompts and completions in spans (the AI SDK's recordInputs / recordOutputs). @default false */
  captureContent: boolean;
  /** The cost attributes under review (`gen_ai.usage.cost.*`) on model-call spans. @default false */
  cost: boolean;
}

/** Tracing of this process: what the worker's sink and interceptors need, and how to stop it. */
export interface Tracing {
  readonly resource: Resource;
  /** Takes every span of the process, the workflows' too (the worker's sink hands them here). */
  readonly processor: SpanProcessor;
  /** For a Temporal `Client`: starts, signals, queries and updates carry the active span to the workflow. */
  readonly clientInterceptors: ClientInterceptors;
  /** Exports what is buffered. */
  flush(): Promise<void>;
  /** Flushes, then unregisters the provider: the process is untraced again. */
  shutdown(): Promise<void>;
  /** What model-call spans carry. */
  readonly genAi: GenAiSettings;
}

let current: Tracing | undefined;

/** True while `startTracing` is in effect: instrumentation in hot paths does nothing otherwise. */
export function tracingActive(): boolean {
  return current !== undefined;
}

/** The process's model-call span opt-ins; undefined while untraced. */
export function genAiSettings(): GenAiSettings | undefined {
  return current?.genAi;
}

/**
 * Registers a global tracer provider (AsyncLocalStorage context, W3C trace context and baggage)
 * and returns its handle, or undefined when the environment leaves tracing off. One per process.
 */
export function startTracing({ serviceName, env = process.env, exporter, batch, genAi }: TracingOptions): Tracing | undefined {
  const settings = tracingSettings(env, serviceName);
  if (!settings && !exporter) return undefined;
  if (current) throw new Error('tracing is already started in this process');
  const sink = exporter ?? (settings?.exporter === 'console' ? new ConsoleSpanExporter() : new OTLPTraceExporter({ url: settings?.url }));
  const processor = (batch ?? !exporter) ? new BatchSpanProcessor(sink) : new SimpleSpanProcessor(sink);
  const resource = Resource.default().merge(
    new Resource({ ...settings?.resourceAttributes, [ATTR_SERVICE_NAME]: settings?.serviceName ?? serviceName }),
  );
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register({
    propagator: new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  });
  const handle: Tracing = {
    resource,
    processor,
    clientInterceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
    genAi: { captureContent: genAi?.captureContent ?? false, cost: genAi?.cost ?? false },
    flush: () => provider.forceFlush(),
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
      if (current === handle) current = undefined;
    },
  };
  current = handle;
  return handle;
}

/** An exporter that counts spans and drops them: the bench measures tracing's cost in the worker, not a backend's. */
export function countingSpanExporter(): SpanExporter & { readonly count: number } {
  let count = 0;
  return {
    get count() {
      return count;
    },
    export(spans, done) {
      count += spans.length;
      done({ code: ExportResultCode.SUCCESS });
    },
    shutdown: async () => {},
  };
}

/** Sets attributes on the active span (the step activity's, the request's); nothing when untraced. */
export function tagActiveSpan(attributes: Attributes): void {
  if (current) trace.getActiveSpan()?.setAttributes(definedOnly(attributes));
}

/** Attributes without the unset ones (the SDK warns about each undefined value). */
export function definedOnly(attributes: Attributes): Attributes {
  return Object.fromEntries(Object.entries(attributes).filter(([, v]) => v !== undefined && v !== null));
}

/** A step's or a run's spend as span attributes (`delegate.cost_usd`, `delegate.tokens`, `delegate.input_tokens`, …, `delegate.tool_calls`). */
export function spendAttributes(usage: { costUsd?: number; tokens?: number; toolCalls?: number } & TokenSplit): Attributes {
  return {
    'delegate.cost_usd': usage.costUsd,
    'delegate.tokens': usage.tokens,
    'delegate.input_tokens': usage.inputTokens,
    'delegate.output_tokens': usage.outputTokens,
    'delegate.cached_input_tokens': usage.cachedInputTokens,
    'delegate.tool_calls': usage.toolCalls,
  };
}

/** An outgoing HTTP call's client span: the headers that carry it, and how to end it. */
export interface HttpCallSpan {
  /** `traceparent` (and `tracestate`) of the client span; empty when untraced. */
  headers: Record<string, string>;
  /** Ends the span with the response status, or with the error that stood in its way. */
  end(status?: number, error?: unknown): void;
}

const untraced: HttpCallSpan = { headers: {}, end() {} };

/**
 * Starts a client span for `method url` under the active span (an agent's POST under its step):
 * the callee receives its `traceparent`. The URL is recorded without query or credentials,
 * which may hold keys. `what` names the callee (`agent wordcount`), for the span name.
 */
export function startHttpCall(method: string, url: string, what: string): HttpCallSpan {
  if (!current) return untraced;
  const u = new URL(url);
  const span: Span = trace.getTracer('delegate').startSpan(`${method} ${what}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      [ATTR_HTTP_REQUEST_METHOD]: method,
      [ATTR_URL_FULL]: `${u.protocol}//${u.host}${u.pathname}`,
      [ATTR_SERVER_ADDRESS]: u.hostname,
      [ATTR_SERVER_PORT]: Number(u.port) || (u.protocol === 'https:' ? 443 : 80),
    },
  });
  const headers: Record<string, string> = {};
  propagation.inject(trace.setSpan(context.active(), span), headers);
  return {
    headers,
    end(status, error) {
      if (status !== undefined) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
      if (error !== undefined || (status ?? 0) >= 400) {
        span.setAttribute(ATTR_ERROR_TYPE, error === undefined ? String(status) : ((error as Error).name ?? 'Error'));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    },
  };
}
