/**
 * DNS rebinding, from the attacker's side: a page whose name was rebound to the API's loopback
 * address sends its own Host and Origin. They are refused (403 problem+json) on /mcp and on
 * REST with auth off; the loopback names and the configured ones pass.
 */
import type { FastifyInstance } from 'fastify';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningApp, testApp } from '../helpers';
import { authHeader } from '../tenants';

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'rebind', version: '1' } },
};
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...authHeader('default') };

/** A real HTTP POST over loopback with the headers a rebinding page's browser would send. */
function post(
  url: string,
  path: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request({ host: u.hostname, port: u.port, path, method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body: text }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** The status of a GET with these headers (what a rebinding page, or a real client, would send). */
const statusOf = async (app: FastifyInstance, url: string, headers: Record<string, string>) =>
  (await app.inject({ method: 'GET', url, headers })).statusCode;

describe('/mcp on a loopback-bound API (auth on)', () => {
  let app: FastifyInstance;
  let url: string;
  beforeAll(async () => {
    ({ app, url } = await listeningApp({}, null));
  });
  afterAll(async () => {
    await app?.close();
  });

  it('refuses a foreign Host and a foreign Origin with 403 problem+json; its own names pass', async () => {
    const port = new URL(url).port;
    const foreignHost = await post(url, '/mcp', { ...MCP_HEADERS, host: `rebind.attacker.example:${port}` }, INIT);
    expect(foreignHost.status).toBe(403);
    expect(foreignHost.type).toContain('application/problem+json');
    expect(JSON.parse(foreignHost.body)).toMatchObject({ status: 403, detail: expect.stringContaining('DELEGATE_ALLOWED_HOSTS') });
    const foreignOrigin = await post(
      url,
      '/mcp',
      { ...MCP_HEADERS, host: `localhost:${port}`, origin: 'http://rebind.attacker.example' },
      INIT,
    );
    expect(foreignOrigin.status).toBe(403);
    expect(JSON.parse(foreignOrigin.body)).toMatchObject({ status: 403, detail: expect.stringContaining('DELEGATE_ALLOWED_ORIGINS') });
    // an opaque origin (a sandboxed frame, a file) is no better
    expect((await post(url, '/mcp', { ...MCP_HEADERS, host: `127.0.0.1:${port}`, origin: 'null' }, INIT)).status).toBe(403);

    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      const ok = await post(url, '/mcp', { ...MCP_HEADERS, host, origin: `http://${host}` }, INIT);
      expect(ok.status, `${host}: ${ok.body}`).toBe(200);
    }
  });
});

describe('REST with auth off', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await testApp({ DELEGATE_AUTH: 'off', HOST: '0.0.0.0', PUBLIC_URL: 'https://delegate.internal.example:8443' }, null);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('refuses a foreign Host or Origin before anything runs; loopback names and PUBLIC_URL pass', async () => {
    const job = { pattern: 'fanout', tasks: [{ id: 'a', question: 'q', agent: 'echo' }] };
    const submit = (headers: Record<string, string>) => app.inject({ method: 'POST', url: '/v1/jobs', headers, payload: job });
    const foreign = await submit({ host: 'rebind.attacker.example:3000' });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.headers['content-type']).toContain('application/problem+json');
    expect((await submit({ host: 'localhost:3000', origin: 'http://rebind.attacker.example:3000' })).statusCode).toBe(403);
    expect(await statusOf(app, '/v1/jobs', { host: 'rebind.attacker.example' })).toBe(403);

    expect(await statusOf(app, '/v1/jobs', { host: 'localhost:3000', origin: 'http://localhost:3000' })).toBe(200);
    expect(await statusOf(app, '/v1/jobs', { host: '127.0.0.1:3000' })).toBe(200);
    expect(
      await statusOf(app, '/v1/jobs', { host: 'delegate.internal.example:8443', origin: 'https://delegate.internal.example:8443' }),
    ).toBe(200);
    // PUBLIC_URL's host with its port only
    expect(await statusOf(app, '/v1/jobs', { host: 'delegate.internal.example:9999' })).toBe(403);
  });
});

describe('an API on every interface with auth on', () => {
  it('checks nothing unless DELEGATE_ALLOWED_HOSTS is set; then only those hosts pass', async () => {
    const open = await testApp({ HOST: '0.0.0.0' });
    try {
      expect(await statusOf(open, '/v1/agents', { host: 'api.example.com' })).toBe(200);
    } finally {
      await open.close();
    }
    const listed = await testApp({
      HOST: '0.0.0.0',
      DELEGATE_ALLOWED_HOSTS: 'api.example.com',
      DELEGATE_ALLOWED_ORIGINS: 'https://console.example.com',
    });
    try {
      expect(await statusOf(listed, '/v1/agents', { host: 'api.example.com', origin: 'https://console.example.com' })).toBe(200);
      expect(await statusOf(listed, '/v1/agents', { host: 'api.example.com', origin: 'https://api.example.com.evil.example' })).toBe(403);
      expect(await statusOf(listed, '/v1/agents', { host: 'other.example.com' })).toBe(403);
    } finally {
      await listed.close();
    }
  });
});
