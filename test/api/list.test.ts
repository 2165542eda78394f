import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { testApp, uniqueId } from '../helpers';

let app: FastifyInstance;
beforeAll(async () => {
  app = await testApp();
});
afterAll(async () => {
  await app?.close();
});

describe('GET /v1/jobs', () => {
  it("lists a tenant's root jobs, filtered by pattern, status and label, without nested jobs", async () => {
    const tenant = uniqueId('tenant').replace(/[^A-Za-z0-9_.-]/g, '');
    const headers = { 'x-tenant': tenant };
    const submit = (jobId: string, extra: object) =>
      app.inject({ method: 'POST', url: '/v1/jobs', headers, payload: { jobId, pattern: 'fanout', tasks: [{ id: 'a', question: 'q', agent: 'echo' }], ...extra } });
    expect((await submit('red', { labels: { color: 'red' } })).statusCode).toBe(201);
    expect((await submit('blue', { labels: { color: 'blue' } })).statusCode).toBe(201);
    expect((await submit('nest', { tasks: [{ id: 'inner', question: 'q', job: { pattern: 'fanout', tasks: [{ id: 'x', question: 'q', agent: 'echo' }] } }] })).statusCode).toBe(201);
    for (const id of ['red', 'blue', 'nest']) {
      expect((await app.inject({ method: 'GET', url: `/v1/jobs/${id}/result?waitSeconds=30`, headers })).statusCode).toBe(200);
    }
    const list = async (query: string) => {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const res = await app.inject({ method: 'GET', url: `/v1/jobs${query}`, headers });
        expect(res.statusCode).toBe(200);
        const ids = res.json().jobs.map((j: { jobId: string }) => j.jobId).sort();
        // visibility is eventually consistent: wait until every root job shows as finished
        if (res.json().jobs.every((j: { state: string }) => j.state === 'completed') && ids.length >= (query ? 1 : 3)) return ids;
        if (Date.now() > deadline) return ids;
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    expect(await list('')).toEqual(['blue', 'nest', 'red']);
    expect(await list('?label=color=red')).toEqual(['red']);
    expect(await list('?status=success&label=color=blue')).toEqual(['blue']);
    const other = await app.inject({ method: 'GET', url: '/v1/jobs', headers: { 'x-tenant': `${tenant}-other` } });
    expect(other.json().jobs).toEqual([]);
    const bad = await app.inject({ method: 'GET', url: '/v1/jobs?status=maybe', headers });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].path).toBe('querystring.status');
  });
});
