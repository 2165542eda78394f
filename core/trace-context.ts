/**
 * A job's W3C trace context, read in workflow code: the API generates the `traceparent` at
 * submission (api/trace-context.ts) and every part of the job reads its trace id from it.
 * Pure, no Node imports: workflow code imports it.
 *
 *   traceparent  00-<trace id: 32 hex>-<parent id: 16 hex>-<flags: 2 hex>
 */

// version ff is invalid (W3C)
const TRACEPARENT = /^(?!ff)[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

/** The trace id of a `traceparent`; undefined for none or one that is malformed (version ff, or an all-zero trace or parent id, which W3C forbids). */
export function traceIdOf(traceparent: string | undefined): string | undefined {
  const m = traceparent ? TRACEPARENT.exec(traceparent) : undefined;
  return m && !/^0+$/.test(m[1]) && !/^0+$/.test(m[2]) ? m[1] : undefined;
}

/** The result with its job's trace id (unchanged when the job has none). */
export function withTraceId<T extends object>(result: T, traceparent: string | undefined): T & { traceId?: string } {
  const traceId = traceIdOf(traceparent);
  return traceId ? { ...result, traceId } : result;
}
