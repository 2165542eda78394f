/**
 * A job's `traceparent`, made once at submission and carried in the job's input to every
 * subtask, agent, result, event and log line, with or without OpenTelemetry:
 *
 *   traced request (OTel on) ──> the request span's context: the job joins the OTel trace
 *   caller's valid `traceparent` ──> its trace id kept, a span id of ours (the caller's trace)
 *   neither ──> a new trace id and span id (crypto random, as W3C asks)
 */
import { randomBytes } from 'node:crypto';
import {
  defaultTextMapGetter,
  defaultTextMapSetter,
  isSpanContextValid,
  ROOT_CONTEXT,
  trace,
  TraceFlags,
  type SpanContext,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

const w3c = new W3CTraceContextPropagator();

/** A span context as a `traceparent` header value. */
function format(sc: SpanContext): string {
  const carrier: Record<string, string> = {};
  w3c.inject(trace.setSpanContext(ROOT_CONTEXT, sc), carrier, defaultTextMapSetter);
  return carrier.traceparent!;
}

/** The caller's `traceparent`, if it is one W3C accepts. */
function incomingContext(traceparent: string | string[] | undefined): SpanContext | undefined {
  if (traceparent === undefined) return undefined;
  const sc = trace.getSpanContext(w3c.extract(ROOT_CONTEXT, { traceparent }, defaultTextMapGetter));
  return sc && isSpanContextValid(sc) ? sc : undefined;
}

/**
 * The `traceparent` of a job submitted now: the active OTel span's when the API is traced
 * (its request span, which already continues the caller's), else the caller's trace with a
 * span id of ours, else a new trace.
 */
export function jobTraceparent(incoming?: string | string[]): string {
  const active = trace.getActiveSpan()?.spanContext();
  if (active && isSpanContextValid(active)) return format(active);
  const caller = incomingContext(incoming);
  return format({
    traceId: caller?.traceId ?? randomBytes(16).toString('hex'),
    spanId: randomBytes(8).toString('hex'),
    traceFlags: caller?.traceFlags ?? TraceFlags.SAMPLED,
  });
}
