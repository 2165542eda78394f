/**
 * Audit finding 1, from the attacker's side: one tenant sends a dozen 10,000-task forecasts at
 * once (estimates and admission re-plans), and another tenant's requests still answer at once.
 *
 *   hog ──12 × 10,000 tasks (estimate | replan)──> API ──forecast threads (per-tenant cap: 429)
 *   victim ──GET /v1/agents every 100 ms──────────> API main thread: never behind a forecast
 *
 * A record of this file's own: no task has history, so every forecast rests on the manifests'
 * limits and the latency budget is surely short (probability 0): each re-plan tries every
 * change it can and ends in 422, starting nothing.
 */
import type { FastifyInstance } from 'fastify';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRecord, type OpenRecord } from '../../record';
import { EstimateSchema } from '../../schemas';
import { listeningApp, testApp, uniqueId } from '../helpers';
import { authHeader, type TestTenant } from '../tenants';

/** Ten votes of a thousand voters: 10,000 tasks, and ten voters to drop at each round of a re-plan. */
function bigSpec(jobId?: string) {
  const voters = (v: number) => Array.from({ length: 1000 }, (_, i) => ({ id: `v${v}-${i}`, question: 'Which option?', agent: 'sim' }));
  return {
    ...(jobId ? { jobId } : {}),
    pattern: 'fanout',
    budget: { latencySeconds: 3600 },
    tasks: Array.from({ length: 10 }, (_, v) => ({
      id: `vote${v}`,
      question: 'Which option?',
      job: { pattern: 'vote', tasks: voters(v) },
    })),
    admission: { mode: 'replan', confidence: 0.99 },
  };
}

let record: OpenRecord;
let api: { app: FastifyInstance; url: string };
beforeAll(async () => {
  record = await openRecord({ sqliteFile: join(mkdtempSync(join(tmpdir(), 'delegate-forecast-isolation-')), 'record.sqlite') });
  api = await listeningApp({}, null, record.store);
});
afterAll(async () => {
  await api?.app.close();
  await record?.close();
});

const post = (path: string, body: string, as: TestTenant) =>
  fetch(`${api.url}${path}`, { method: 'POST', headers: { ...authHeader(as), 'content-type': 'application/json' }, body });

/** One GET of the victim's, in ms. */
async function victimGet(path = '/v1/agents'): Promise<number> {
  const began = performance.now();
  const res = await fetch(`${api.url}${path}`, { headers: authHeader('victim') });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  return performance.now() - began;
}

describe('forecasts of one tenant', () => {
  it("12 concurrent 10,000-task estimates and re-plans do not delay another tenant's GET /v1/agents", async () => {
    // the threads start with a first small forecast, as they would at any server's first estimate
    const warm = await post(
      '/v1/jobs/estimate',
      JSON.stringify({ pattern: 'fanout', tasks: [{ id: 'a', question: 'q', agent: 'sim' }] }),
      'victim',
    );
    expect(warm.status).toBe(200);
    const baseline: number[] = [];
    for (let i = 0; i < 3; i++) baseline.push(await victimGet());

    const began = performance.now();
    const attack = Array.from({ length: 12 }, (_, i) => {
      const admission = i % 2 === 1;
      return post(
        admission ? '/v1/jobs' : '/v1/jobs/estimate',
        JSON.stringify(bigSpec(admission ? uniqueId('replan') : undefined)),
        'hog',
      ).then(async (r) => ({
        what: admission ? 'replan' : 'estimate',
        status: r.status,
        retryAfter: r.headers.get('retry-after'),
        type: r.headers.get('content-type'),
        body: (await r.json()) as { admission?: { decision: string }; samples?: number },
        ms: performance.now() - began,
      }));
    });
    let done = false;
    const answers = Promise.all(attack).finally(() => (done = true));
    const during: number[] = [];
    await new Promise((r) => setTimeout(r, 50));
    while (!done || during.length < 5) {
      during.push(await victimGet(during.length % 4 === 3 ? '/healthz' : '/v1/agents'));
      await new Promise((r) => setTimeout(r, 100));
    }
    const results = await answers;
    const summary = results.map((r) => `${r.what} ${r.status} ${Math.round(r.ms)} ms`).join(', ');
    console.log(
      `[forecast-isolation] attack answered in ${Math.round(Math.max(...results.map((r) => r.ms)))} ms (${summary}); victim baseline max ${Math.round(Math.max(...baseline))} ms, during max ${Math.round(Math.max(...during))} ms over ${during.length} GETs`,
    );

    // every answer is a forecast, its refusal, the tenant's cap (429), or on a host too loaded for the
    // forecast's time bound a 503: both problem+json with Retry-After
    for (const r of results) {
      expect([200, 422, 429, 503]).toContain(r.status);
      if (r.status === 429 || r.status === 503) {
        expect(r.type).toMatch(/^application\/problem\+json/);
        expect(Number(r.retryAfter)).toBeGreaterThan(0);
      }
      if (r.what === 'replan' && r.status === 422) expect(r.body.admission?.decision).toBe('refused');
      // the estimate leaves as plain JSON (not checked against its schema on the event loop): it still matches it
      if (r.what === 'estimate' && r.status === 200) {
        expect(r.type).toBe('application/json; charset=utf-8');
        expect(EstimateSchema.safeParse(r.body).error).toBeUndefined();
      }
    }
    expect(results.filter((r) => r.status === 429).length).toBeGreaterThan(0);
    expect(results.some((r) => r.status === 200)).toBe(true);
    // before the forecasts ran in threads, the victim's GET waited 10-20 s behind them on this 2-core host (the attack lasted ~45 s);
    // threaded, it waits for a core at most: 1,522 ms once in CI with the soak and the build beside it, so the line is 5 s
    expect(Math.max(...during)).toBeLessThan(5000);
  });

  it("another tenant's own estimate answers while one tenant's two re-plans hold its share of the forecast threads", async () => {
    // seconds of Monte Carlo each; both end in 422, starting nothing
    let done = false;
    const hog = Promise.all(Array.from({ length: 2 }, () => post('/v1/jobs', JSON.stringify(bigSpec(uniqueId('hold'))), 'hog'))).finally(
      () => (done = true),
    );
    const small = JSON.stringify({ pattern: 'fanout', tasks: [{ id: 'a', question: 'q', agent: 'sim' }] });
    const mine: number[] = [];
    while (!done) {
      const began = performance.now();
      const res = await post('/v1/jobs/estimate', small, 'victim');
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      mine.push(performance.now() - began);
      await new Promise((r) => setTimeout(r, 200));
    }
    console.log(`[forecast-isolation] victim's ${mine.length} estimates while the hog re-plans: max ${Math.round(Math.max(...mine))} ms`);
    expect(mine.length).toBeGreaterThan(1);
    expect(Math.max(...mine)).toBeLessThan(5000);
    for (const r of await hog) expect([422, 503]).toContain(r.status);
  });
});

describe('estimates and the request quota', () => {
  it('count against the tenant’s requests per minute like any other request (429 with Retry-After past it)', async () => {
    const app = await testApp({}, 'limited');
    try {
      const spec = { pattern: 'fanout', tasks: [{ id: 'a', question: 'q', agent: 'sim' }] };
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 22; i++) {
        last = await app.inject({ method: 'POST', url: '/v1/jobs/estimate', payload: spec });
        statuses.push(last.statusCode);
      }
      // tenant limited may send 20 requests a minute
      expect(statuses.slice(0, 20)).toEqual(Array(20).fill(200));
      expect(statuses.slice(20)).toEqual([429, 429]);
      expect(last!.headers['retry-after']).toBeDefined();
      expect(last!.headers['content-type']).toMatch(/^application\/problem\+json/);
    } finally {
      await app.close();
    }
  });
});
