/**
 * What a socket may hold before it has said who it is: a crowd of connections that drip header
 * bytes, or never send one, must not take every file descriptor and refuse every other client.
 *
 *   accept ──maxConnections (Node closes past it)──> per peer (count by address; destroyed past the cap)
 *          ──> head within headersTimeout ──> whole request within requestTimeout ──> handler
 *          ──> idle keep-alive closed after keepAliveTimeout; no byte either way for connectionIdle: closed
 *
 * The options go to Fastify (which hands `http` to Node's server); the counts are installed on the
 * app's server, so a test app that listens has them too.
 */
import type { Server, ServerOptions } from 'node:http';
import { isIPv6 } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../schemas';

/** A refused connection is logged at most this often (a flood must not flood the log too). */
const LOG_EVERY_MS = 60_000;

/** Fastify's server options from the configuration. */
export interface ServerLimitOptions {
  connectionTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  maxRequestsPerSocket: number;
  http: ServerOptions;
}

/** The timeouts of a request's arrival, of keep-alive and of idle sockets, as Fastify options (milliseconds). */
export function serverOptionsOf(config: Config): ServerLimitOptions {
  const headersTimeout = Math.round(config.DELEGATE_HEADERS_TIMEOUT_SECONDS * 1000);
  return {
    connectionTimeout: Math.round(config.DELEGATE_CONNECTION_IDLE_SECONDS * 1000),
    requestTimeout: Math.round(config.DELEGATE_REQUEST_TIMEOUT_SECONDS * 1000),
    keepAliveTimeout: Math.round(config.DELEGATE_KEEP_ALIVE_TIMEOUT_SECONDS * 1000),
    maxRequestsPerSocket: config.DELEGATE_MAX_REQUESTS_PER_SOCKET,
    // Node looks for late heads every connectionsCheckingInterval (30 s by default): a tenth of the timeout, 0.1..1 s
    http: { headersTimeout, connectionsCheckingInterval: Math.min(1000, Math.max(100, Math.round(headersTimeout / 10))) },
  };
}

/** The key a peer is counted under: its IPv4 address (also IPv4-mapped), or its IPv6 /64, which one host may own whole. */
export function peerKeyOf(address: string | undefined): string {
  if (!address) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/** Counts open connections per peer key; `admit` says no once a key holds `max` (0: no cap). */
export function createPeerCounter(max: number) {
  const open = new Map<string, number>();
  return {
    /** Counts one more connection of `key`, or returns false (and counts nothing) when it holds `max` already. */
    admit(key: string): boolean {
      const n = open.get(key) ?? 0;
      if (max > 0 && n >= max) return false;
      open.set(key, n + 1);
      return true;
    },
    /** One connection of `key` closed. */
    release(key: string): void {
      const n = (open.get(key) ?? 0) - 1;
      if (n > 0) open.set(key, n);
      else open.delete(key);
    },
    /** The connections `key` holds now. */
    count: (key: string): number => open.get(key) ?? 0,
  };
}

/** Caps the server's connections: all at once (Node's maxConnections), and per peer; refusals are logged now and then. */
export function installConnectionLimits(server: Server, config: Config, log: FastifyBaseLogger): void {
  server.maxConnections = config.DELEGATE_MAX_CONNECTIONS;
  let dropped = 0;
  let lastLog = 0;
  const refused = (what: string, peer: string) => {
    dropped++;
    if (Date.now() - lastLog < LOG_EVERY_MS) return;
    log.warn({ peer, refused: dropped }, what);
    lastLog = Date.now();
    dropped = 0;
  };
  server.on('drop', (d?: { remoteAddress?: string }) =>
    refused(`connections refused: ${config.DELEGATE_MAX_CONNECTIONS} open (DELEGATE_MAX_CONNECTIONS)`, peerKeyOf(d?.remoteAddress)),
  );
  const max = config.DELEGATE_MAX_CONNECTIONS_PER_PEER;
  if (max === 0) return;
  const peers = createPeerCounter(max);
  // before the HTTP parser sees the socket: a refused one costs a close, nothing more
  server.prependListener('connection', (socket) => {
    const key = peerKeyOf(socket.remoteAddress);
    if (!peers.admit(key)) {
      socket.destroy();
      refused(`connections refused: the peer holds ${max} (DELEGATE_MAX_CONNECTIONS_PER_PEER)`, key);
      return;
    }
    socket.once('close', () => peers.release(key));
  });
}
