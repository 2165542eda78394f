/**
 * The caps on open event streams, from the attacker's side: a tenant that opens more streams
 * than its caps (per tenant, per job) gets 429 problems with Retry-After for the extra ones, on
 * REST and A2A alike; another tenant's requests and streams go on as before; and the streams a
 * tenant holds on one job share one follower, so holding them costs a read per poll, not one each.
 */
import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobEvent } from '../../schemas';
import { listeningApp, pollUntil, uniqueId } from '../helpers';
import { authHeader, type TestTenant } from '../tenants';

/** An open SSE response (or a refusal): its status, headers, body so far, and how to drop it. */
interface Held {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: () => string;
  close: () => void;
}

/** Opens a stream on a socket of its own, as an attacker would; resolves once the head is in. */
function open(url: string, as: TestTenant, headers: Record<string, string> = {}, method = 'GET', payload?: object): Promise<Held> {
  return new Promise((resolve, reject) => {
    let body = '';
    const req = http.request(url, { method, agent: false, headers: { ...authHeader(as), ...headers } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('error', () => undefined);
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body: () => body, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end(payload ? JSON.stringify(payload) : undefined);
  });
}

/** Submits a fan-out of one task as `as`: a hanging one unless `steps` says how many steps it takes. */
async function submit(app: FastifyInstance, as: TestTenant, steps?: number): Promise<string> {
  const jobId = uniqueId('stream-caps');
  const params = steps === undefined ? { hang: true } : { steps, latencyMs: 150 };
  const res = await app.inject({
    method: 'POST',
    url: '/v1/jobs',
    headers: authHeader(as),
    payload: { jobId, pattern: 'fanout', tasks: [{ id: 't', question: 'q', agent: 'sim', params }] },
  });
  expect(res.statusCode, res.body).toBe(201);
  return jobId;
}

const cancel = (app: FastifyInstance, as: TestTenant, jobId: string) =>
  app.inject({ method: 'POST', url: `/v1/jobs/${jobId}/cancel`, headers: authHeader(as), payload: {} });

/** The events of an SSE body read so far. */
const eventsOf = (body: string): JobEvent[] =>
  body
    .split('\n\n')
    .map((frame) => frame.split('\n').find((l) => l.startsWith('data: ')))
    .filter((l): l is string => !!l)
    .map((l) => JSON.parse(l.slice(6)) as JobEvent);

describe('caps on open event streams', () => {
  let api: Awaited<ReturnType<typeof listeningApp>>;
  const held: Held[] = [];
  beforeAll(async () => {
    api = await listeningApp({ DELEGATE_QUOTA_OPEN_STREAMS: '6', DELEGATE_QUOTA_OPEN_STREAMS_PER_JOB: '4' }, null);
  });
  afterAll(async () => {
    for (const h of held) h.close();
    await api?.app.close();
  });
  const hold = async (h: Promise<Held>) => {
    const r = await h;
    held.push(r);
    return r;
  };

  it("refuses a tenant's streams past its job's cap and past its own with 429 problems, leaving another tenant's alone", async () => {
    const [j1, j2, theirs] = await Promise.all([submit(api.app, 'hog'), submit(api.app, 'hog'), submit(api.app, 'victim')]);
    try {
      const onJ1 = await Promise.all(Array.from({ length: 4 }, () => hold(open(`${api.url}/v1/jobs/${j1}/events`, 'hog'))));
      expect(onJ1.map((h) => h.status)).toEqual([200, 200, 200, 200]);
      const fifth = await hold(open(`${api.url}/v1/jobs/${j1}/events`, 'hog'));
      expect(fifth.status).toBe(429);
      expect(fifth.headers['content-type']).toContain('application/problem+json');
      expect(Number(fifth.headers['retry-after'])).toBeGreaterThan(0);
      await pollUntil(async () => fifth.body().length > 0, 'the problem body');
      expect(JSON.parse(fifth.body())).toMatchObject({
        status: 429,
        title: 'Too many open streams',
        detail: expect.stringMatching(/cap per job is 4/),
      });

      const onJ2 = await Promise.all(Array.from({ length: 3 }, () => hold(open(`${api.url}/v1/jobs/${j2}/events`, 'hog'))));
      // the tenant's cap (6) comes before the job's (4): the third on j2 is refused
      expect(onJ2.map((h) => h.status).sort()).toEqual([200, 200, 429]);
      // A2A's SubscribeToTask counts the same and is refused the same way, before any event
      const a2a = await hold(
        open(`${api.url}/a2a`, 'hog', { 'content-type': 'application/json', 'a2a-version': '1.0' }, 'POST', {
          jsonrpc: '2.0',
          id: 1,
          method: 'SubscribeToTask',
          params: { id: j2 },
        }),
      );
      expect(a2a.status).toBe(429);
      expect(a2a.headers['retry-after']).toBeDefined();
      await pollUntil(async () => a2a.body().length > 0, 'the A2A problem body');
      expect(JSON.parse(a2a.body())).toMatchObject({ status: 429, detail: expect.stringMatching(/its cap is 6/) });

      // the other tenant streams and reads as before
      const mine = await hold(open(`${api.url}/v1/jobs/${theirs}/events`, 'victim'));
      expect(mine.status).toBe(200);
      const t = Date.now();
      const view = await api.app.inject({ method: 'GET', url: `/v1/jobs/${theirs}`, headers: authHeader('victim') });
      expect(view.statusCode).toBe(200);
      expect(Date.now() - t).toBeLessThan(2000);

      // one stream goes away: its place is free again
      onJ1[0]!.close();
      await pollUntil(async () => {
        const again = await open(`${api.url}/v1/jobs/${j1}/events`, 'hog');
        held.push(again);
        return again.status === 200;
      }, 'a place freed by a closed stream');
    } finally {
      await Promise.all([cancel(api.app, 'hog', j1), cancel(api.app, 'hog', j2), cancel(api.app, 'victim', theirs)]);
    }
  });

  it('serves every stream of one job from one follower: late joiners and resumes get the same events, in order, to job.finished', async () => {
    for (const h of held.splice(0)) h.close();
    await pollUntil(async () => api.app.jobs.streams().subscribers === 0, "the first test's streams closed");
    const jobId = await submit(api.app, 'alpha', 6);
    const first = await hold(open(`${api.url}/v1/jobs/${jobId}/events`, 'alpha'));
    await pollUntil(async () => eventsOf(first.body()).length >= 3, 'a few events on the first stream');
    const reads = { n: 0 };
    const t0 = Date.now();
    const events = api.app.record.events;
    const after = events.after;
    events.after = (...a: Parameters<typeof after>) => (reads.n++, after.apply(events, a));
    try {
      const late = await hold(open(`${api.url}/v1/jobs/${jobId}/events`, 'alpha'));
      const resumed = await hold(open(`${api.url}/v1/jobs/${jobId}/events`, 'alpha', { 'last-event-id': '2' }));
      expect(api.app.jobs.streams()).toEqual({ jobs: 1, subscribers: 3 });
      const ended = (h: Held) => eventsOf(h.body()).at(-1)?.type === 'job.finished';
      await pollUntil(async () => [first, late, resumed].every(ended), 'job.finished on every stream', 60_000);
      const whole = eventsOf(first.body());
      expect(whole.map((e) => e.seq)).toEqual(whole.map((_, i) => i + 1));
      expect(eventsOf(late.body())).toEqual(whole);
      expect(eventsOf(resumed.body())).toEqual(whole.slice(2));
      // three streams, one follower: a read every 200 ms in all (not one per stream), plus each joiner's catch-up
      const polls = (Date.now() - t0) / 200;
      expect(reads.n).toBeLessThan(1.5 * polls + 10);
    } finally {
      events.after = after;
    }
  });

  it('answers another tenant at once while one tenant hammers a job with streams past its caps', async () => {
    const load = await listeningApp({ DELEGATE_QUOTA_OPEN_STREAMS: '50', DELEGATE_QUOTA_OPEN_STREAMS_PER_JOB: '50' }, null);
    const mine: Held[] = [];
    const [target, theirs] = await Promise.all([submit(load.app, 'hog'), submit(load.app, 'victim')]);
    try {
      const latencies: number[] = [];
      let attacking = true;
      const probe = (async () => {
        while (attacking) {
          const t = Date.now();
          const r = await load.app.inject({ method: 'GET', url: `/v1/jobs/${theirs}`, headers: authHeader('victim') });
          expect(r.statusCode).toBe(200);
          latencies.push(Date.now() - t);
          await new Promise((res) => setTimeout(res, 50));
        }
      })();
      for (let i = 0; i < 3; i++)
        mine.push(...(await Promise.all(Array.from({ length: 50 }, () => open(`${load.url}/v1/jobs/${target}/events`, 'hog')))));
      await new Promise((res) => setTimeout(res, 2000));
      attacking = false;
      await probe;
      const byStatus = mine.reduce<Record<number, number>>((m, h) => ({ ...m, [h.status]: (m[h.status] ?? 0) + 1 }), {});
      expect(byStatus).toEqual({ 200: 50, 429: 100 });
      // one follower for the fifty held streams
      expect(load.app.jobs.streams()).toEqual({ jobs: 1, subscribers: 50 });
      latencies.sort((a, b) => a - b);
      const p90 = latencies[Math.floor(latencies.length * 0.9)]!;
      console.log(
        `stream-caps: the other tenant's reads during the attack: n=${latencies.length} p50=${latencies[latencies.length >> 1]} ms p90=${p90} ms max=${latencies.at(-1)} ms`,
      );
      // generous for a loaded 2-core host: the audit saw 9-13 s
      expect(p90).toBeLessThan(2000);
    } finally {
      for (const h of mine) h.close();
      await Promise.all([cancel(load.app, 'hog', target), cancel(load.app, 'victim', theirs)]);
      await load.app.close();
    }
  });
});
