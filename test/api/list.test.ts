import { describe, expect, it } from 'vitest';
import { uniqueId, useApp } from '../helpers';
import { authHeader } from '../tenants';

const app = useApp({}, 'alpha');

describe('GET /v1/jobs', () => {
  it("lists a tenant's root jobs, filtered by pattern, status and label, without nested jobs; never another tenant's", async () => {
    // a label unique to this run keeps other tests' jobs of the same tenant out of the listing
    const run = uniqueId('run').replace(/[^A-Za-z0-9_.-]/g, '');
    const submit = (jobId: string, extra: { labels?: Record<string, string>; tasks?: object[] }) =>
      app.inject({ method: 'POST', url: '/v1/jobs', payload: { jobId, pattern: 'fanout', tasks: [{ id: 'a', question: 'q', agent: 'echo' }], ...extra, labels: { run, ...extra.labels } } });
    const ids = { red: `${run}-red`, blue: `${run}-blue`, nest: `${run}-nest` };
    expect((await submit(ids.red, { labels: { color: 'red' } })).statusCode).toBe(201);
    expect((await submit(ids.blue, { labels: { color: 'blue' } })).statusCode).toBe(201);
    expect((await submit(ids.nest, { tasks: [{ id: 'inner', question: 'q', job: { pattern: 'fanout', tasks: [{ id: 'x', question: 'q', agent: 'echo' }] } }] })).statusCode).toBe(201);
    for (const id of Object.values(ids)) {
      expect((await app.inject({ method: 'GET', url: `/v1/jobs/${id}/result?waitSeconds=30` })).statusCode).toBe(200);
    }
    const list = async (query: string, expected: number, headers = {}) => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const res = await app.inject({ method: 'GET', url: `/v1/jobs?label=run=${run}${query}`, headers });
        expect(res.statusCode).toBe(200);
        const jobs = res.json().jobs as { jobId: string; state: string }[];
        // visibility is eventually consistent: wait until every root job shows as finished
        if ((jobs.every((j) => j.state === 'completed') && jobs.length >= expected) || Date.now() > deadline) return jobs.map((j) => j.jobId).sort();
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    expect(await list('', 3)).toEqual([ids.blue, ids.nest, ids.red]);
    expect(await list('&label=color=red', 1)).toEqual([ids.red]);
    expect(await list('&status=success&label=color=blue', 1)).toEqual([ids.blue]);
    // another tenant, same filter: nothing
    expect(await list('', 0, authHeader('beta'))).toEqual([]);
    const bad = await app.inject({ method: 'GET', url: '/v1/jobs?status=maybe' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].path).toBe('querystring.status');
  });

  it('refuses label filters outside the label character set with 400, never 500', async () => {
    for (const label of ['color="red"', 'a"=b', '=x', 'k=v\\', "k='v'"]) {
      const res = await app.inject({ method: 'GET', url: `/v1/jobs?label=${encodeURIComponent(label)}` });
      expect(res.statusCode, label).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
    }
  });
});
