/**
 * DNS-rebinding protection for the whole API, `/mcp` included: a page on `evil.example` whose
 * name is rebound to 127.0.0.1 reaches a loopback server as same-origin, so the browser's
 * CORS rules stop nothing; its requests still carry `Host: evil.example` and
 * `Origin: http://evil.example`. When the server is bound to loopback, or auth is off (a
 * rebinding page could then submit jobs and read results), or the operator lists hosts, every
 * request's Host and Origin (when sent) must be on the allow-list; others get 403 problem+json.
 *
 *   request ──Host on DELEGATE_ALLOWED_HOSTS?──Origin (if any) on DELEGATE_ALLOWED_ORIGINS?──> auth, routes
 *              └── no: 403                        └── no: 403
 *
 * Hosts match by name as the MCP SDK's `hostHeaderValidation` does (port-agnostic), or exactly
 * when an entry carries a port. The SDK's own checks are Express middleware or deprecated
 * transport options that compare the raw header; this hook covers `/mcp` and REST alike.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../schemas';
import { HttpProblem, sendProblem } from './errors';

/** Host names every loopback deployment answers to. */
export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/** What the check allows; `undefined` from `hostPolicyOf` when it is off. */
export interface HostPolicy {
  /** `name` (any port) or `name:port`, lower-case; IPv6 in brackets. */
  hosts: string[];
  /** `hosts` parsed once, for the per-request match (an entry that does not parse matches nothing). */
  entries: { name: string; port: string }[];
  /** Exact origins (`scheme://host[:port]`); empty: any http(s) origin whose host passes `hosts`. */
  origins: string[];
}

const isLoopbackBind = (host: string) => ['localhost', '127.0.0.1', '::1', '[::1]'].includes(host.toLowerCase()) || host.startsWith('127.');
const isWildcardBind = (host: string) => host === '0.0.0.0' || host === '::' || host === '[::]';

/** `host[:port]` of a URL-ish authority, lower-case, or undefined when it does not parse. */
function authorityOf(value: string): { name: string; port: string } | undefined {
  try {
    const u = new URL(`http://${value}`);
    if (u.username || u.password || u.pathname !== '/' || u.search || u.hash) return undefined;
    return { name: u.hostname.toLowerCase(), port: u.port };
  } catch {
    return undefined;
  }
}

/** The policy the configuration asks for: on when bound to loopback, when auth is off, or when DELEGATE_ALLOWED_HOSTS is set. */
export function hostPolicyOf(
  config: Pick<Config, 'HOST' | 'PORT' | 'PUBLIC_URL' | 'DELEGATE_AUTH' | 'DELEGATE_ALLOWED_HOSTS' | 'DELEGATE_ALLOWED_ORIGINS'>,
): HostPolicy | undefined {
  const explicit = config.DELEGATE_ALLOWED_HOSTS.length > 0;
  if (!explicit && !isLoopbackBind(config.HOST) && config.DELEGATE_AUTH === 'on') return undefined;
  const hosts = explicit ? [...config.DELEGATE_ALLOWED_HOSTS] : [...LOOPBACK_HOSTS];
  // the address it is bound to, when it names one, and the name clients are told to use
  if (!explicit && !isWildcardBind(config.HOST))
    hosts.push(config.HOST.includes(':') && !config.HOST.startsWith('[') ? `[${config.HOST}]` : config.HOST);
  if (config.PUBLIC_URL) hosts.push(new URL(config.PUBLIC_URL).host);
  const origins =
    config.DELEGATE_ALLOWED_ORIGINS.length > 0
      ? [...config.DELEGATE_ALLOWED_ORIGINS, ...(config.PUBLIC_URL ? [new URL(config.PUBLIC_URL).origin] : [])]
      : [];
  const unique = [...new Set(hosts.map((h) => h.toLowerCase()))];
  return {
    hosts: unique,
    entries: unique.flatMap((h) => authorityOf(h) ?? []),
    origins: origins.map((o) => o.toLowerCase().replace(/\/+$/, '')),
  };
}

/** True when the Host header value is on the list (by name, or by name and port for an entry with a port). */
export function hostAllowed(host: string | undefined, policy: HostPolicy): boolean {
  const a = host === undefined ? undefined : authorityOf(host);
  if (!a) return false;
  return policy.entries.some((e) => e.name === a.name && (e.port === '' || e.port === a.port));
}

/** True when the Origin header value is allowed: on the exact list, or (no list) http(s) with an allowed host. */
export function originAllowed(origin: string, policy: HostPolicy): boolean {
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    return false;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
  if (policy.origins.length > 0) return policy.origins.includes(u.origin.toLowerCase());
  return hostAllowed(u.host, policy);
}

/** Installs the check as the first onRequest hook (before auth: a rebinding page learns nothing, not even 401). */
export function installHostCheck(app: FastifyInstance, config: Parameters<typeof hostPolicyOf>[0]): void {
  const policy = hostPolicyOf(config);
  if (!policy) return;
  app.addHook('onRequest', async (req, reply) => {
    const host = req.headers.host;
    if (!hostAllowed(host, policy)) {
      return sendProblem(
        reply,
        new HttpProblem(
          403,
          'Forbidden',
          `Host "${String(host ?? '').slice(0, 100)}" is not allowed: add it to DELEGATE_ALLOWED_HOSTS (or set PUBLIC_URL)`,
        ),
      );
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !originAllowed(origin, policy)) {
      return sendProblem(
        reply,
        new HttpProblem(403, 'Forbidden', `Origin "${origin.slice(0, 100)}" is not allowed: add it to DELEGATE_ALLOWED_ORIGINS`),
      );
    }
  });
}
