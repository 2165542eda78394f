import { describe, expect, it } from 'vitest';
import { compareJobKeys } from '../../api/jobs/page-token';
import type { JobListItem, JobPage } from '../../schemas';
import { testApp, testClient, uniqueId, useApp } from '../helpers';
import { recordJob } from '../record-jobs';
import { openFreshRecord } from '../record-stores';
import { authHeader } from '../tenants';

const app = useApp({}, 'alpha');

describe('GET /v1/jobs', () => {
  it("lists a tenant's root jobs, filtered by pattern, status and label, without nested jobs; never another tenant's", async () => {
    // a label unique to this run keeps other tests' jobs of the same tenant out of the listing
    const run = uniqueId('run').replace(/[^A-Za-z0-9_.-]/g, '');
    const submit = (jobId: string, extra: { labels?: Record<string, string>; tasks?: object[] }) =>
      app.inject({
        method: 'POST',
        url: '/v1/jobs',
        payload: {
          jobId,
          pattern: 'fanout',
          tasks: [{ id: 'a', question: 'q', agent: 'echo' }],
          ...extra,
          labels: { run, ...extra.labels },
        },
      });
    const ids = { red: `${run}-red`, blue: `${run}-blue`, nest: `${run}-nest` };
    expect((await submit(ids.red, { labels: { color: 'red' } })).statusCode).toBe(201);
    expect((await submit(ids.blue, { labels: { color: 'blue' } })).statusCode).toBe(201);
    expect(
      (
        await submit(ids.nest, {
          tasks: [{ id: 'inner', question: 'q', job: { pattern: 'fanout', tasks: [{ id: 'x', question: 'q', agent: 'echo' }] } }],
        })
      ).statusCode,
    ).toBe(201);
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
        if ((jobs.every((j) => j.state === 'completed') && jobs.length >= expected) || Date.now() > deadline)
          return jobs.map((j) => j.jobId).sort();
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

  it('pages over 30 jobs, finished, running and terminated, 7 at a time: each once, newest start first, though some finish between pages', async () => {
    const tenant = authHeader('default');
    const run = uniqueId('page').replace(/[^A-Za-z0-9_.-]/g, '');
    const get = (url: string) => app.inject({ method: 'GET', url, headers: tenant });
    // every third job hangs (running), two are terminated (ended without a result), the rest finish
    const kinds = Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? 'running' : i % 10 === 4 ? 'terminated' : 'finished'));
    const ids = kinds.map((k, i) => `${run}-${String(i).padStart(2, '0')}-${k}`);
    for (const [i, jobId] of ids.entries()) {
      const agent = kinds[i] === 'finished' ? { agent: 'echo' } : { agent: 'sim', params: { hang: true } };
      const res = await app.inject({
        method: 'POST',
        url: '/v1/jobs',
        headers: tenant,
        payload: { jobId, pattern: 'fanout', tasks: [{ id: 'a', question: 'q', ...agent }], labels: { run } },
      });
      expect(res.statusCode).toBe(201);
    }
    const client = await testClient();
    for (const [i, jobId] of ids.entries()) {
      if (kinds[i] === 'terminated') await client.workflow.getHandle(`job/default/${jobId}`).terminate('test');
      if (kinds[i] === 'finished') expect((await get(`/v1/jobs/${jobId}/result?waitSeconds=30`)).statusCode).toBe(200);
    }
    // the keys from each job's own view: the order the listing must follow
    const expected: string[] = [];
    const keys = await Promise.all(
      ids.map(async (jobId) => ({ jobId, startedAt: Date.parse((await get(`/v1/jobs/${jobId}`)).json().startedAt as string) })),
    );
    expected.push(...keys.sort(compareJobKeys).map((k) => k.jobId));
    // visibility is eventually consistent: wait until it shows every job in its state
    const stateOf = (i: number) => ({ running: 'running', terminated: 'terminated', finished: 'completed' })[kinds[i]];
    for (const deadline = Date.now() + 30_000; ;) {
      const all = (await get(`/v1/jobs?label=run=${run}&pageSize=100`)).json() as JobPage;
      const ready = all.jobs.length === 30 && ids.every((id, i) => all.jobs.find((j) => j.jobId === id)?.state === stateOf(i));
      if (ready || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 250));
    }

    const seen: JobListItem[] = [];
    let token: string | null = null;
    let pages = 0;
    const moved: string[] = [];
    do {
      const res = await get(`/v1/jobs?label=run=${run}&pageSize=7${token ? `&nextPageToken=${token}` : ''}`);
      expect(res.statusCode).toBe(200);
      const page = res.json() as JobPage;
      seen.push(...page.jobs);
      token = page.nextPageToken;
      if (++pages === 1) {
        // running jobs further down the listing finish (and move to the record) while the caller pages
        const later = ids.filter((id, i) => kinds[i] === 'running' && !seen.some((j) => j.jobId === id)).slice(0, 3);
        moved.push(...later);
        for (const jobId of later)
          expect((await app.inject({ method: 'POST', url: `/v1/jobs/${jobId}/cancel`, headers: tenant, payload: {} })).statusCode).toBe(
            202,
          );
        for (const jobId of later) expect((await get(`/v1/jobs/${jobId}/result?waitSeconds=30`)).statusCode).toBe(200);
      }
    } while (token && pages < 10);
    expect(seen.map((j) => j.jobId)).toEqual(expected);
    expect(pages).toBe(5);
    // the jobs that finished meanwhile are listed once, from the record
    expect(seen.filter((j) => moved.includes(j.jobId)).map((j) => [j.jobId, j.state, j.status])).toEqual(
      expected.filter((id) => moved.includes(id)).map((id) => [id, 'completed', 'cancelled']),
    );
    expect(seen.filter((j) => j.state === 'terminated')).toHaveLength(2);
    expect(seen.filter((j) => j.state === 'running').length).toBeGreaterThanOrEqual(1);
    // the deprecated `limit` still sets the page size
    expect(((await get(`/v1/jobs?label=run=${run}&limit=4`)).json() as JobPage).jobs.map((j) => j.jobId)).toEqual(expected.slice(0, 4));

    for (const [i, jobId] of ids.entries())
      if (kinds[i] === 'running') await app.inject({ method: 'POST', url: `/v1/jobs/${jobId}/cancel`, headers: tenant, payload: {} });
  });

  it('refuses a page token it did not give with 400 at querystring.nextPageToken', async () => {
    const reportCursor = Buffer.from('1772446500000.42').toString('base64url');
    for (const token of ['nonsense', reportCursor, Buffer.from('j1.12.a/b').toString('base64url')]) {
      const res = await app.inject({ method: 'GET', url: `/v1/jobs?nextPageToken=${token}` });
      expect(res.statusCode, token).toBe(400);
      expect(res.json().errors[0].path).toBe('querystring.nextPageToken');
    }
    expect((await app.inject({ method: 'GET', url: '/v1/jobs?pageSize=0' })).json().errors[0].path).toBe('querystring.pageSize');
  });
});

describe('GET /v1/reports', () => {
  const record = openFreshRecord('sqlite');

  it('pages over 30 reports 7 at a time, newest finish first, each once; the old cursor and limit still work', async () => {
    const api = await testApp({}, 'alpha', record.store);
    try {
      // recordJob closes every 5th job at the same instant as the one before: ties across pages
      const jobs = Array.from({ length: 30 }, (_, i) => recordJob('alpha', i));
      for (const j of [...jobs].reverse()) await record.store.archive(j);
      const seen: string[] = [];
      let token: string | null = null;
      let pages = 0;
      do {
        const res = await api.inject({ method: 'GET', url: `/v1/reports?pageSize=7${token ? `&nextPageToken=${token}` : ''}` });
        expect(res.statusCode).toBe(200);
        const page = res.json() as {
          reports: { jobId: string; closedAt: string }[];
          nextPageToken: string | null;
          nextCursor: string | null;
        };
        expect(page.nextCursor).toBe(page.nextPageToken);
        seen.push(...page.reports.map((r) => r.jobId));
        token = page.nextPageToken;
        pages++;
      } while (token && pages < 10);
      expect(pages).toBe(5);
      expect(new Set(seen).size).toBe(30);
      const closed = new Map(jobs.map((j) => [j.jobId, j.closedAt]));
      expect(seen.map((id) => closed.get(id))).toEqual(jobs.map((j) => j.closedAt).sort((a, b) => b - a));
      const first = (await api.inject({ method: 'GET', url: '/v1/reports?limit=7' })).json() as {
        reports: { jobId: string }[];
        nextCursor: string;
      };
      const second = (await api.inject({ method: 'GET', url: `/v1/reports?limit=7&cursor=${first.nextCursor}` })).json() as {
        reports: { jobId: string }[];
      };
      expect([...first.reports, ...second.reports].map((r) => r.jobId)).toEqual(seen.slice(0, 14));
      const bad = await api.inject({ method: 'GET', url: `/v1/reports?nextPageToken=${Buffer.from('j1.12.a').toString('base64url')}` });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors[0].path).toBe('querystring.nextPageToken');
    } finally {
      await api.close();
    }
  });
});
