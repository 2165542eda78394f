/**
 * Bearer-key authentication: the key decides the tenant. Every route but the public ones
 * (health, readiness, the OpenAPI document and its UI) answers 401 without a known key.
 * Control routes (POST) take only `application/json`, so a cross-site form or a body-less
 * POST from a browser cannot reach them.
 *
 *   request ──Authorization: Bearer <key>──> sha256(key) ──> tenant ──> req.tenant
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TenantDirectory } from '../config/tenants';
import { HttpProblem, sendProblem } from './errors';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's tenant, set by the auth hook (routes that are not public). */
    tenant: string;
  }
}

/** The bearer scheme's name in the OpenAPI document. */
export const BEARER_SCHEME = 'bearerAuth';

// /metrics spans every tenant: it takes the operator's DELEGATE_METRICS_TOKEN, never a tenant key (api/metrics.ts)
// the A2A agent card is how a client learns where and how to authenticate: it says nothing of a tenant
const PUBLIC = new Set(['/healthz', '/readyz', '/openapi.json', '/metrics', '/.well-known/agent-card.json']);

/** True for routes anyone may call. */
export function isPublicPath(url: string): boolean {
  const path = url.split('?')[0]!;
  // an approval's token URL is its own credential (api/inbox/tokens.ts)
  return PUBLIC.has(path) || path === '/docs' || path.startsWith('/docs/') || path.startsWith('/v1/approvals/token/');
}

/** The bearer token of a request, or undefined. */
export function bearerKey(req: FastifyRequest): string | undefined {
  const h = req.headers.authorization;
  if (typeof h !== 'string') return undefined;
  const m = /^Bearer[ ]+([\x21-\x7e]{1,512})\s*$/i.exec(h);
  return m?.[1];
}

/**
 * Finds the caller's tenant from its key, once per request (`req.tenant`, empty when the key is
 * missing or unknown). Install first: the rate limit keys on it, `requireCaller` refuses without it.
 */
export function identifyCaller(app: FastifyInstance, tenants: TenantDirectory): void {
  app.decorateRequest('tenant', '');
  app.addHook('onRequest', async (req) => {
    const key = tenants.auth === 'on' ? bearerKey(req) : '';
    req.tenant = (key === undefined ? undefined : tenants.authenticate(key)) ?? '';
  });
}

/** True when a request carries no body and says nothing about one (no content type, no length but 0, no chunks). */
function isBodyless(headers: FastifyRequest['headers']): boolean {
  const length = headers['content-length'];
  return headers['content-type'] === undefined && headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
}

/** Refuses a request to a non-public route without a known key (401), and a POST with a body that is not JSON (415). */
export function requireCaller(app: FastifyInstance): void {
  app.addHook('onRequest', async (req, reply) => {
    if (isPublicPath(req.url)) return;
    if (!req.tenant) {
      const key = bearerKey(req);
      const challenge = key === undefined ? 'Bearer realm="delegate"' : 'Bearer realm="delegate", error="invalid_token"';
      reply.header('www-authenticate', challenge);
      return sendProblem(
        reply,
        new HttpProblem(401, 'Unauthorized', key === undefined ? 'send Authorization: Bearer <key>' : 'the key is not valid'),
      );
    }
    // a POST without a body (stop, cancel) has no media type to check; a browser cannot send one
    // cross-site with a bearer key, so this opens nothing that the 401 above does not already close
    if (req.method === 'POST' && !isBodyless(req.headers)) {
      const type = String(req.headers['content-type'] ?? '')
        .split(';')[0]!
        .trim()
        .toLowerCase();
      if (type !== 'application/json') {
        return sendProblem(reply, new HttpProblem(415, 'Unsupported media type', 'POST routes take application/json'));
      }
    }
  });
}
