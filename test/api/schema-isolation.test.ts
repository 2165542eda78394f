/**
 * Issue 26, findings 2 and 3, from the attacker's side: outputSchemas whose `$ref` graph expands
 * exponentially or never terminates are refused at submission (422 at the field path), and a
 * request full of compile-heavy schemas does not stall another tenant's requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { exponentialSchema, heavySchema, MUTUAL_REF, SELF_REF } from '../hostile-schemas';
import { jobsStartedWithId, listeningApp, uniqueId, useApp } from '../helpers';
import { authHeader } from '../tenants';

const app = useApp({}, 'alpha');

const task = (id: string, outputSchema: Record<string, unknown>) => ({ id, question: 'q', agent: 'sim', outputSchema });

describe('hostile $ref graphs at submission', () => {
  it.each([
    ['allOf k=31', exponentialSchema('allOf', 31), /expands to more than/],
    ['anyOf k=21', exponentialSchema('anyOf', 21), /expands to more than/],
    ['{"$ref":"#"}', SELF_REF, /refers to itself .*without stepping into/],
    ['A → B → A through allOf/not', MUTUAL_REF, /refers to itself .*without stepping into/],
  ])('POST /v1/jobs answers 422 at body.tasks[1].outputSchema for %s; nothing starts', async (_, schema, message) => {
    const jobId = uniqueId('hostileref');
    const started = Date.now();
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: { jobId, pattern: 'fanout', tasks: [task('fine', { type: 'string' }), task('evil', schema)] },
    });
    expect(res.statusCode).toBe(422);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json().errors).toEqual([{ path: 'body.tasks[1].outputSchema', message: expect.stringMatching(message) }]);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await jobsStartedWithId(jobId, 'alpha')).toBe(0);
  });

  it('accepts recursion that steps into the data (a tree of children) and a definition reused a few times', async () => {
    const tree = { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } } };
    const reused = {
      definitions: { n: { type: 'number' } },
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`p${i}`, { $ref: '#/definitions/n' }])),
    };
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        pattern: 'fanout',
        tasks: [task('tree', tree), task('reused', reused), { id: 'x', question: 'q', agent: 'no-such-agent' }],
      },
    });
    // refused for the unknown agent only: both schemas pass
    expect(res.statusCode).toBe(422);
    expect(res.json().errors.map((e: { path: string }) => e.path)).toEqual(['body.tasks[2].agent']);
  });
});

describe('compile-heavy submissions', () => {
  let victim: { app: FastifyInstance; url: string };
  beforeAll(async () => {
    victim = await listeningApp({}, null);
  });
  afterAll(() => victim.app.close());

  it("24 distinct ~40 KB schemas in one 1 MB request do not delay another tenant's GET /v1/agents beyond a bound", async () => {
    const get = async () => {
      const began = performance.now();
      const res = await fetch(`${victim.url}/v1/agents`, { headers: authHeader('beta') });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      return performance.now() - began;
    };
    const baseline: number[] = [];
    for (let i = 0; i < 3; i++) baseline.push(await get());
    const seed = Date.now();
    // the last task names no agent: the request is refused after its schemas were compiled, so no job runs
    const tasks = [
      ...Array.from({ length: 24 }, (_, i) => ({ id: `t${i}`, question: 'q', agent: 'echo', outputSchema: heavySchema(seed + i) })),
      { id: 'x', question: 'q', agent: 'no-such-agent' },
    ];
    const body = JSON.stringify({ pattern: 'fanout', tasks });
    let done = false;
    const heavyBegan = performance.now();
    const heavy = fetch(`${victim.url}/v1/jobs`, {
      method: 'POST',
      headers: { ...authHeader('alpha'), 'content-type': 'application/json' },
      body,
    }).then(async (r) => {
      done = true;
      return { status: r.status, body: (await r.json()) as { errors?: { path: string }[] }, ms: performance.now() - heavyBegan };
    });
    const during: number[] = [];
    await new Promise((r) => setTimeout(r, 50));
    while (!done || during.length < 3) {
      during.push(await get());
      await new Promise((r) => setTimeout(r, 100));
    }
    const answered = await heavy;
    console.log(
      `[schema-isolation] request ${body.length} bytes answered ${answered.status} in ${Math.round(answered.ms)} ms; victim GET baseline max ${Math.round(Math.max(...baseline))} ms, during max ${Math.round(Math.max(...during))} ms (${during.length} GETs)`,
    );
    expect(answered.status).toBe(422);
    expect(answered.body.errors?.map((e) => e.path)).toEqual(['body.tasks[24].agent']);
    // within a second of the GET's own latency on this (shared, loaded) machine; the compiles stalled it ~6 s before
    expect(Math.max(...during)).toBeLessThan(1000 + Math.max(...baseline));
  });
});
