/**
 * A read-only front for the dev server's Web UI. The CLI's embedded UI (v1.5.1) has no
 * setting for it: its config is built in code with write actions on (temporalcli/devserver
 * buildUIServer), and its API answers any caller on loopback without a credential (the CSRF
 * check is skipped for any request with an Authorization header). The embedded UI listens on a
 * hidden loopback port; this proxy takes the UI's own port and lets through what the UI
 * server's own `disableWriteActions` lets through: reads, and workflow queries.
 *
 *   browser ──:8233──> proxy ──GET, HEAD, POST …/workflows/…/query/…──> embedded UI (127.0.0.1:<hidden>) ──gRPC──> frontend
 *                        ├──any other write──> 405
 *                        └──GET /api/v1/settings──> DisableWriteActions: true (the UI hides its write buttons)
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a refused write is told. */
export const READ_ONLY_MESSAGE = 'the Temporal UI is read-only: set DELEGATE_TEMPORAL_UI_WRITES=true and start again to allow writes';

/** The path of a request, without its query. */
const pathOf = (url: string | undefined) => (url ?? '/').split('?')[0]!;

/** True when a read-only UI lets the request through: the rule of the UI server's own DisableWriteMiddleware (v2.42.1). */
export function readOnlyAllows(method: string | undefined, url: string | undefined): boolean {
  if (method === 'GET' || method === 'HEAD') return true;
  const path = pathOf(url);
  return method === 'POST' && path.startsWith('/api/v1/namespaces/') && path.includes('/workflows/') && path.includes('/query/');
}

/** The UI's settings with writes off: the UI hides terminate, cancel, signal, reset, start and batch actions. */
export function readOnlySettings(body: string): string {
  return JSON.stringify({ ...(JSON.parse(body) as Record<string, unknown>), DisableWriteActions: true });
}

/** A listening read-only proxy. */
export interface ReadOnlyUi {
  port: number;
  close(): Promise<void>;
}

/** Options of `startReadOnlyUi`. */
export interface ReadOnlyUiOptions {
  /** Port of the embedded UI on 127.0.0.1. */
  target: number;
  /** Port to listen on. */
  port: number;
  /** @default '127.0.0.1' */
  host?: string;
}

/** Listens on `host:port` and forwards to the embedded UI what a read-only UI allows. */
export async function startReadOnlyUi({ target, port, host = '127.0.0.1' }: ReadOnlyUiOptions): Promise<ReadOnlyUi> {
  const server: Server = createServer((req, res) => {
    if (!readOnlyAllows(req.method, req.url)) {
      req.resume();
      res.writeHead(405, { 'content-type': 'application/json', allow: 'GET, HEAD' }).end(JSON.stringify({ message: READ_ONLY_MESSAGE }));
      return;
    }
    const settings = req.method === 'GET' && pathOf(req.url) === '/api/v1/settings';
    // the settings are rewritten: asked for uncompressed
    const headers = { ...req.headers };
    if (settings) delete headers['accept-encoding'];
    const upstream = request({ host: '127.0.0.1', port: target, method: req.method, path: req.url, headers }, (up: IncomingMessage) => {
      if (!settings || up.statusCode !== 200) {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      up.on('data', (c: Buffer) => chunks.push(c));
      up.on('end', () => {
        let body: string;
        try {
          body = readOnlySettings(Buffer.concat(chunks).toString('utf8'));
        } catch {
          res.writeHead(502, { 'content-type': 'text/plain' }).end('unreadable UI settings\n');
          return;
        }
        const { 'content-length': _length, 'content-encoding': _encoding, ...rest } = up.headers;
        res.writeHead(200, { ...rest, 'content-length': Buffer.byteLength(body) }).end(body);
      });
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('the Temporal UI is not answering\n');
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
