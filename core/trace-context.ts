/**
 * A job's W3C trace context, read in workflow code: the API generates the `traceparent` at
 * submission (api/trace-context.ts) and every part of the job reads its trace id from it.
 * Pure, no Node imports: workflow code imports it.
 *
 *   traceparent  00-<trace id: 32 hex>-<parent id: 16 hex>-<flags: 2 hex>
 */

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The trace id of a `traceparent`; undefined for none or one that is malformed (or all zeros, which W3C forbids). */
export function traceIdOf(traceparent: string | undefined): string | undefined {
  const id = traceparent ? TRACEPARENT.exec(traceparent)?.[1] : undefined;
  return id && !/^0+$/.test(id) ? id : undefined;
}

/** The result with its job's trace id (unchanged when the job has none). */
export function withTraceId<T extends object>(result: T, traceparent: string | undefined): T & { traceId?: string } {
  const traceId = traceIdOf(traceparent);
  return traceId ? { ...result, traceId } : result;
}
