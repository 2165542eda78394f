/**
 * The API's request log lines: they name the caller's tenant and the job a route is about, like
 * the worker's lines do, and they never keep a query string as sent. A key or token put in a URL
 * by mistake (`?api_key=…`) would otherwise sit in every log store the lines reach: the
 * `req` of "incoming request" shows the path and the query's keys, with only the values of a
 * few harmless API parameters kept.
 *
 *   GET /v1/jobs?status=running&api_key=dlg_… ──> req.url "/v1/jobs?status=running&api_key=[redacted]"
 *
 * An approval's token URL decides its item without a key, so its token is a secret in the path
 * itself: the log, the request span and its attributes keep `/v1/approvals/token/[redacted]`, in
 * whatever spelling the path came (`%74oken`, `//`), and a token sent to any other path too.
 *
 *   GET /v1/approvals/token/eyJ0Ijoi….Qm9v… ──> req.url "/v1/approvals/token/[redacted]"
 */
import type { FastifyInstance, FastifyServerOptions } from 'fastify';

/** Query parameters of the API whose values say nothing secret: kept in the log as sent. */
const HARMLESS = new Set(['waitSeconds', 'status', 'pattern', 'pageSize', 'limit', 'after', 'from', 'to']);
/** Longest value kept even of a harmless parameter. */
const MAX_KEPT = 64;

const REDACTED = '[redacted]';
/** An approval token anywhere: base64url of its claims (`{"t":"…`), a dot, its 43-character signature. */
const TOKEN_SHAPE = /eyJ0Ijoi[\w-]*\.[\w-]{43}/g;

/** A path segment as the router reads it (percent-decoded), or as written when its escapes are malformed. */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The path as logs and spans keep it: as sent, unless it holds an approval token (the segment
 * after `approvals/token`, or a token's shape anywhere); then decoded, the token `[redacted]`.
 */
export function loggedPath(path: string): string {
  const segments = path.split('/').map(decodedSegment).join('/').split('/');
  let secret = false;
  // the route's own segments, compared as the router decodes them and whatever the case or empty segments between
  const before: string[] = [];
  segments.forEach((segment, i) => {
    if (segment === '') return;
    if (before.at(-2) === 'approvals' && before.at(-1) === 'token') {
      segments[i] = REDACTED;
      secret = true;
    }
    before.push(segment.toLowerCase());
  });
  const decoded = segments.join('/');
  const redacted = decoded.replace(TOKEN_SHAPE, REDACTED);
  return secret || redacted !== decoded ? redacted : path;
}

/** The URL as the log keeps it: its path (see `loggedPath`), and its query with every value but the harmless ones redacted. */
export function loggedUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return loggedPath(url);
  const parts = url
    .slice(q + 1)
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const eq = pair.indexOf('=');
      const key = eq < 0 ? pair : pair.slice(0, eq);
      let name = key;
      try {
        name = decodeURIComponent(key);
      } catch {
        // a malformed escape: compared as written
      }
      // a bare word (`?dlg_…`) may be the secret itself
      if (eq < 0) return HARMLESS.has(name) ? key : REDACTED;
      const value = pair.slice(eq + 1);
      return `${key.slice(0, 100)}=${HARMLESS.has(name) && value.length <= MAX_KEPT ? value : REDACTED}`;
    });
  return `${loggedPath(url.slice(0, q))}?${parts.join('&')}`;
}

/** Fastify's `req` serializer, with the URL as `loggedUrl` keeps it. */
function requestSerializer(req: { method: string; url: string; host?: string; ip?: string; socket?: { remotePort?: number } }) {
  return { method: req.method, url: loggedUrl(req.url), host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort };
}

/** Fastify's per-request logger with the redacting `req` serializer: pass as the app's `childLoggerFactory`. */
export const redactingChildLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = function (logger, bindings, opts) {
  return logger.child(bindings, { ...opts, serializers: { ...opts.serializers, req: requestSerializer } });
};

/** Binds `tenant` and `jobId` to each request's logger, so its lines (Fastify's "request completed" too) carry them; install after `identifyCaller`. */
export function bindRequestLogIds(app: FastifyInstance): void {
  app.addHook('onRequest', async (req, reply) => {
    const jobId = (req.params as { jobId?: unknown } | undefined)?.jobId;
    const ids = { ...(req.tenant ? { tenant: req.tenant } : {}), ...(typeof jobId === 'string' ? { jobId } : {}) };
    if (Object.keys(ids).length === 0) return;
    // the reply keeps its own reference to the logger it was made with
    req.log = reply.log = req.log.child(ids);
  });
}
