/**
 * Connection exhaustion without a key, from the attacker's side: a socket that drips header
 * bytes (or sends none) is closed after the headers timeout; one address past its cap of
 * connections has its new ones closed at once while another address is served; the server's
 * cap on all connections holds; and a request that arrived whole may take longer than both
 * timeouts (a long poll) without being cut.
 */
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listeningApp, uniqueId } from '../helpers';
import { authHeader } from '../tenants';

/** A raw socket to the app and what became of it: bytes received, when it closed. */
interface Raw {
  socket: net.Socket;
  received: () => string;
  /** Milliseconds from connect to close, once closed. */
  closed: Promise<number>;
}

function connect(url: string, localAddress?: string): Promise<Raw> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let got = '';
    const socket = net.connect({ host: hostname, port: Number(port), ...(localAddress ? { localAddress } : {}) });
    const at = Date.now();
    const closed = new Promise<number>((res) => socket.once('close', () => res(Date.now() - at)));
    socket.on('data', (d) => (got += String(d)));
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve({ socket, received: () => got, closed }));
    socket.once('error', reject);
  });
}

/** GET /healthz on a connection of its own, from `localAddress`; its status, or the error. */
function healthz(url: string, localAddress?: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = http.get(`${url}/healthz`, { agent: false, timeout: 5000, ...(localAddress ? { localAddress } : {}) }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    req.on('timeout', () => req.destroy(new Error('timeout')));
  });
}

/** Whether this host lets a socket bind 127.0.0.2 (Linux does: all of 127/8 is loopback). */
async function canBind(address: string): Promise<boolean> {
  const s = net.createServer();
  return new Promise((resolve) => {
    s.once('error', () => resolve(false));
    s.listen(0, address, () => s.close(() => resolve(true)));
  });
}

describe('slow and numerous sockets', () => {
  const sockets: net.Socket[] = [];
  const apps: { close(): Promise<unknown> }[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    for (const a of apps.splice(0)) await a.close();
  });
  const start = async (extra: Record<string, string>) => {
    const l = await listeningApp(extra, null);
    apps.push(l.app);
    return l;
  };
  const keep = (r: Raw) => (sockets.push(r.socket), r);

  it('closes a socket that drips header lines, and one that sends nothing, after the headers timeout', async () => {
    const { url } = await start({ DELEGATE_HEADERS_TIMEOUT_SECONDS: '1' });
    const drip = keep(await connect(url));
    drip.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const timer = setInterval(() => drip.socket.writable && drip.socket.write(`X-Drip-${Date.now()}: 1\r\n`), 100);
    const silent = keep(await connect(url));
    try {
      const [dripMs, silentMs] = await Promise.all([drip.closed, silent.closed]);
      // at the timeout, give or take the check interval (a tenth of it): not Node's 60-90 s
      for (const ms of [dripMs, silentMs]) {
        expect(ms).toBeGreaterThanOrEqual(900);
        expect(ms).toBeLessThan(4000);
      }
      expect(drip.received()).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      clearInterval(timer);
    }
    // a client that says what it wants in time is served as ever
    expect(await healthz(url)).toBe(200);
  });

  it('lets a request that arrived whole take longer than the request and headers timeouts (a long poll)', async () => {
    const { app, url } = await start({ DELEGATE_HEADERS_TIMEOUT_SECONDS: '1', DELEGATE_REQUEST_TIMEOUT_SECONDS: '1' });
    const jobId = uniqueId('slow-sockets-poll');
    const submit = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: authHeader('default'),
      payload: { jobId, pattern: 'fanout', tasks: [{ id: 't', question: 'q', agent: 'sim', params: { hang: true } }] },
    });
    expect(submit.statusCode).toBe(201);
    try {
      const t = Date.now();
      const res = await fetch(`${url}/v1/jobs/${jobId}/result?waitSeconds=3`, { headers: authHeader('default') });
      expect(res.status).toBe(202);
      expect(Date.now() - t).toBeGreaterThanOrEqual(2500);
    } finally {
      await app.inject({ method: 'POST', url: `/v1/jobs/${jobId}/cancel`, headers: authHeader('default'), payload: {} });
    }
  });

  it("closes one address's connections past its cap at once, while another address is served", async () => {
    const { url } = await start({ DELEGATE_MAX_CONNECTIONS_PER_PEER: '20' });
    const held = await Promise.all(Array.from({ length: 20 }, async () => keep(await connect(url))));
    // the 21st from the same address: accepted by the kernel, closed by the server before any byte
    const extra = keep(await connect(url));
    expect(await extra.closed).toBeLessThan(1000);
    expect(extra.received()).toBe('');
    expect(typeof (await healthz(url))).toBe('string');
    if (await canBind('127.0.0.2')) expect(await healthz(url, '127.0.0.2')).toBe(200);
    else console.log('slow-sockets: 127.0.0.2 cannot be bound here; the per-peer count is covered by connection-limits.unit.test.ts');
    // the attacker lets go of one: its address gets that place back
    held[0]!.socket.destroy();
    await held[0]!.closed;
    await new Promise((r) => setTimeout(r, 50));
    expect(await healthz(url)).toBe(200);
  });

  it('closes new connections past DELEGATE_MAX_CONNECTIONS, whatever their address', async () => {
    if (!(await canBind('127.0.0.3'))) return;
    const { url } = await start({ DELEGATE_MAX_CONNECTIONS: '12', DELEGATE_MAX_CONNECTIONS_PER_PEER: '8' });
    await Promise.all(Array.from({ length: 8 }, async () => keep(await connect(url, '127.0.0.2'))));
    await Promise.all(Array.from({ length: 4 }, async () => keep(await connect(url, '127.0.0.3'))));
    expect(typeof (await healthz(url, '127.0.0.4'))).toBe('string');
    for (const s of sockets.splice(0)) s.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect(await healthz(url, '127.0.0.4')).toBe(200);
  });
});
