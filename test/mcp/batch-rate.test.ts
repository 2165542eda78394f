/** From the attacker's side: a JSON-RPC batch of calls on /mcp counts each call against the tenant's request rate, not the POST once. */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp } from '../helpers';
import { authHeader, TEST_TENANTS } from '../tenants';

const RATE = TEST_TENANTS.limited.quotas.requestsPerMinute;
const headers = { ...authHeader('limited'), 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const batch = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: from + i, method: 'tools/list' }));

let app: FastifyInstance;
beforeAll(async () => {
  // an app of its own: the rate counters are per process, so no other test's requests count here
  app = await testApp({}, null);
});
afterAll(async () => {
  await app?.close();
});

describe('/mcp batches and the request rate', () => {
  it(`two batches of ${RATE / 2} calls spend the whole minute of a ${RATE}-a-minute tenant`, async () => {
    const first = await app.inject({ method: 'POST', url: '/mcp', headers, payload: batch(RATE / 2) });
    expect(first.statusCode, first.body).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/mcp', headers, payload: batch(RATE / 2, 100) })).statusCode).toBe(200);
    const next = await app.inject({ method: 'GET', url: '/v1/agents', headers: authHeader('limited') });
    expect(next.statusCode).toBe(429);
    expect(Number(next.headers['retry-after'])).toBeGreaterThan(0);
    const more = await app.inject({ method: 'POST', url: '/mcp', headers, payload: batch(5, 200) });
    expect(more.statusCode).toBe(429);
    expect(more.headers['content-type']).toContain('application/problem+json');
  });
});
