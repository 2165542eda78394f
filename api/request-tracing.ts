/**
 * One server span per API request, the active context while its handler runs: the Temporal
 * client's tracing interceptor then carries it into the job workflow the handler starts. A
 * caller's own `traceparent` is continued, so a backend's trace reaches the agents too.
 *
 *   onRequest: span "<METHOD> <route>" (parent: the caller's traceparent, if any), url.path with no approval token
 *   preHandler: the rest of the request runs inside it
 *   onResponse: status, tenant, jobId; ended
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
} from '@opentelemetry/semantic-conventions';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { loggedPath } from './request-log';

/** Every request's span until its response is sent. */
const spans = new WeakMap<FastifyRequest, Span>();

/** Installs the request span hooks; install first, so the span covers authentication and quotas too. */
export function installRequestTracing(app: FastifyInstance): void {
  const tracer = trace.getTracer('delegate-api');
  app.addHook('onRequest', (req, _reply, done) => {
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const route = req.routeOptions.url;
    const span = tracer.startSpan(
      route ? `${req.method} ${route}` : req.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR_HTTP_REQUEST_METHOD]: req.method,
          // an approval token URL's token redacted, as in the log
          [ATTR_URL_PATH]: loggedPath(req.url.split('?')[0]),
          ...(route ? { [ATTR_HTTP_ROUTE]: route } : {}),
        },
      },
      parent,
    );
    spans.set(req, span);
    done();
  });
  // after body parsing, which runs in the socket's context: from here on the handler's awaits keep this one
  app.addHook('preHandler', (req, _reply, done) => {
    const span = spans.get(req);
    if (span) context.with(trace.setSpan(context.active(), span), done);
    else done();
  });
  app.addHook('onError', async (req, _reply, err) => {
    spans.get(req)?.recordException(err);
  });
  // a caller that hangs up gets no response: end its span here
  app.addHook('onRequestAbort', async (req) => {
    spans.get(req)?.setAttribute('delegate.aborted', true).end();
    spans.delete(req);
  });
  app.addHook('onResponse', async (req, reply) => {
    const span = spans.get(req);
    if (!span) return;
    spans.delete(req);
    const jobId = (req.params as { jobId?: unknown } | undefined)?.jobId;
    span.setAttributes({
      [ATTR_HTTP_RESPONSE_STATUS_CODE]: reply.statusCode,
      ...(req.tenant ? { 'delegate.tenant': req.tenant } : {}),
      ...(typeof jobId === 'string' ? { 'delegate.job_id': jobId } : {}),
    });
    if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
}
