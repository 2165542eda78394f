/**
 * The worker's /metrics: Delegate's registry and the Node runtime's metrics, followed by the
 * SDK core's `temporal_*` series fetched from core's loopback exporter at each scrape, so
 * Prometheus scrapes one target per worker. Both speak the text format and their names never
 * collide (`delegate_*`, `process_*`, `nodejs_*` against `temporal_*`).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';

/** Options of `serveMetrics`. */
export interface MetricsServerOptions {
  registry: Registry;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** core's exporter (`installWorkerRuntime`); unset = Delegate's metrics only. */
  coreMetricsUrl?: string;
  /** When set, scrapes must send `Authorization: Bearer <token>`. */
  token?: string;
  log?: Logger;
}

/** A listening metrics endpoint. */
export interface MetricsServer {
  /** `http://host:port/metrics`. */
  url: string;
  close(): Promise<void>;
}

/** How long a scrape waits for core's exporter before answering without it. */
const CORE_TIMEOUT_MS = 2000;

/** The merged exposition text: the registry's, then core's. */
export async function mergedMetrics(registry: Registry, coreMetricsUrl?: string, log?: Logger): Promise<string> {
  const own = await registry.metrics();
  if (!coreMetricsUrl) return own;
  try {
    const res = await fetch(coreMetricsUrl, { signal: AbortSignal.timeout(CORE_TIMEOUT_MS) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const core = await res.text();
    return `${own.endsWith('\n') ? own : `${own}\n`}${core}`;
  } catch (err) {
    // Delegate's own series still answer; the gap in temporal_* shows on the dashboard
    log?.warn({ err: String(err), coreMetricsUrl }, 'SDK core metrics unavailable for this scrape');
    return own;
  }
}

/** True when the request may scrape: no token configured, or the right bearer token. */
export function scrapeAllowed(authorization: string | undefined, token: string | undefined): boolean {
  if (token === undefined) return true;
  // digests of equal length, compared in constant time: the answer's timing tells nothing of the token
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(authorization ?? ''), digest(`Bearer ${token}`));
}

/** Serves GET /metrics on `host:port` until `close()`. */
export async function serveMetrics({ registry, host, port, coreMetricsUrl, token, log }: MetricsServerOptions): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    if (!scrapeAllowed(req.headers.authorization, token)) {
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer realm="metrics"' }).end('unauthorized\n');
      return;
    }
    mergedMetrics(registry, coreMetricsUrl, log).then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: unknown) => {
        log?.error({ err: String(err) }, 'metrics scrape failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${bound}/metrics`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
