import { describe, expect, it } from 'vitest';
import type { JobResult } from '../../schemas';
import { jobsListedWithId, jobsStartedWithId, testRecord, uniqueId, useApp } from '../helpers';

const app = useApp();

const threeWay = (jobId: string) => ({
  jobId,
  pattern: 'fanout',
  objective: 'three facts',
  tasks: [
    { id: 'a', question: 'What is A?', agent: 'echo' },
    { id: 'b', question: 'What is B?', agent: 'sim', params: { answer: { b: 2 }, costUsd: 0.01, tokens: 100, steps: 2 } },
    {
      id: 'c',
      question: 'What is C?',
      agent: { capability: 'sim' },
      params: { evidence: [{ id: 'e1', source: 'web', snippet: 'C is c' }] },
    },
  ],
  labels: { team: 'research' },
});

describe('POST /v1/jobs → GET result', () => {
  it('runs a 3-way fan-out end to end and reports it', async () => {
    const jobId = uniqueId('fan3');
    const submit = await app.inject({ method: 'POST', url: '/v1/jobs', payload: threeWay(jobId) });
    expect(submit.statusCode).toBe(201);
    const body = submit.json();
    expect(body).toMatchObject({ jobId, workflowId: `job/default/${jobId}`, status: 'running' });
    expect(body.links.temporalUi).toContain(encodeURIComponent(`job/default/${jobId}`));

    const res = await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}/result?waitSeconds=30` });
    expect(res.statusCode).toBe(200);
    const result = res.json() as JobResult;
    expect(result.status).toBe('success');
    expect(result.results.map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect(result.output).toEqual({ a: 'What is A?', b: { b: 2 }, c: 'What is C?' });
    expect(result.results[1].metrics).toMatchObject({ steps: 2, costUsd: 0.02, tokens: 200, attempts: 2 });
    expect(result.evidence.map((e) => e.id)).toEqual(['e1']);
    expect(result.metrics).toMatchObject({ subtasks: 3, costUsd: 0.02, tokens: 200, steps: 4 });

    const view = await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}` });
    expect(view.statusCode).toBe(200);
    expect(view.json()).toMatchObject({ state: 'completed', status: 'success', progress: { total: 3, completed: 3, succeeded: 3 } });
    expect(view.json().subtasks.map((s: { workflowId: string }) => s.workflowId)).toEqual(
      ['a', 'b', 'c'].map((t) => `job/default/${jobId}/${t}`),
    );
  });

  it('answers 202 with the status while the job is still running', async () => {
    const jobId = uniqueId('slow');
    const payload = { jobId, pattern: 'fanout', tasks: [{ id: 's', question: 'slow?', agent: 'sim', params: { latencyMs: 1500 } }] };
    expect((await app.inject({ method: 'POST', url: '/v1/jobs', payload })).statusCode).toBe(201);
    const early = await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}/result?waitSeconds=0.5` });
    expect(early.statusCode).toBe(202);
    expect(early.json()).toMatchObject({ jobId, state: 'running' });
    const done = await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}/result?waitSeconds=30` });
    expect(done.statusCode).toBe(200);
  });

  it('returns the existing job for the same jobId or Idempotency-Key, never a second one', async () => {
    const jobId = uniqueId('idem');
    const first = await app.inject({ method: 'POST', url: '/v1/jobs', payload: threeWay(jobId) });
    expect(first.statusCode).toBe(201);
    const again = await app.inject({ method: 'POST', url: '/v1/jobs', payload: threeWay(jobId) });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ jobId, status: 'existing' });
    await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}/result?waitSeconds=30` });
    const afterDone = await app.inject({ method: 'POST', url: '/v1/jobs', payload: threeWay(jobId) });
    expect(afterDone.statusCode).toBe(200);
    expect(await jobsListedWithId(jobId)).toBe(1);

    const key = uniqueId('key');
    const { jobId: _drop, ...noId } = threeWay('x');
    const k1 = await app.inject({ method: 'POST', url: '/v1/jobs', headers: { 'idempotency-key': key }, payload: noId });
    const k2 = await app.inject({ method: 'POST', url: '/v1/jobs', headers: { 'idempotency-key': key }, payload: noId });
    expect([k1.statusCode, k2.statusCode]).toEqual([201, 200]);
    expect(k2.json().jobId).toBe(key);
    expect(await jobsListedWithId(key)).toBe(1);

    const changed = await app.inject({ method: 'POST', url: '/v1/jobs', payload: { ...threeWay(jobId), objective: 'other' } });
    expect(changed.statusCode).toBe(409);
  });
});

describe('bad input changes nothing', () => {
  it('rejects a malformed body with 400, the failing field paths, and starts no workflow', async () => {
    const jobId = uniqueId('bad');
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        jobId,
        pattern: 'fanout',
        tasks: [
          { id: 'a', question: '', agent: 'echo' },
          { id: 'a', question: 'q', agent: 'echo', budget: { costUsd: -1 } },
        ],
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const paths = res.json().errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['body.tasks[0].question', 'body.tasks[1].budget.costUsd']));
    expect(await jobsStartedWithId(jobId)).toBe(0);
  });

  it('rejects duplicate task ids, unknown fields and wrong types', async () => {
    for (const payload of [
      {
        pattern: 'fanout',
        tasks: [
          { id: 'a', question: 'q', agent: 'echo' },
          { id: 'a', question: 'q', agent: 'echo' },
        ],
      },
      { pattern: 'fanout', tasks: [{ id: 'a', question: 'q', agent: 'echo' }], surprise: true },
      { pattern: 'sideways', tasks: [] },
      '{"pattern": "fanout", "tasks": [',
    ]) {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/jobs',
        headers: { 'content-type': 'application/json' },
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
      });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().status).toBe(400);
    }
  });

  it('answers 415 for a body that is not JSON', async () => {
    const res = await app.inject({ method: 'POST', url: '/v1/jobs', headers: { 'content-type': 'application/xml' }, payload: '<job/>' });
    expect(res.statusCode).toBe(415);
    expect(res.headers['content-type']).toContain('application/problem+json');
  });

  it('answers 422 naming the path of an unknown agent or bad params', async () => {
    const jobId = uniqueId('noagent');
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        jobId,
        pattern: 'fanout',
        tasks: [
          { id: 'a', question: 'q', agent: 'echo' },
          { id: 'b', question: 'q', agent: 'nobody' },
          { id: 'c', question: 'q', agent: 'sim', params: { steps: 'many' } },
        ],
      },
    });
    expect(res.statusCode).toBe(422);
    const paths = res.json().errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(['body.tasks[1].agent', 'body.tasks[2].params.steps']);
    expect(await jobsStartedWithId(jobId)).toBe(0);
  });

  it('answers 422 for a task whose step could outlast the step ceiling (timeout × attempts + backoff)', async () => {
    const jobId = uniqueId('ceiling');
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: {
        jobId,
        pattern: 'fanout',
        tasks: [{ id: 'a', question: 'q', agent: 'sim', timeoutSeconds: 86_400, retry: { maxAttempts: 5 } }],
      },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([
      { path: 'body.tasks[0].retry', message: expect.stringMatching(/^a step may take up to \d+s \(timeoutSeconds 86400 × maxAttempts 5/) },
    ]);
    expect(await jobsStartedWithId(jobId)).toBe(0);
  });

  it('answers 404 for an unknown job on every job route', async () => {
    const id = uniqueId('ghost');
    for (const [method, url] of [
      ['GET', `/v1/jobs/${id}`],
      ['GET', `/v1/jobs/${id}/result`],
      ['POST', `/v1/jobs/${id}/stop`],
      ['POST', `/v1/jobs/${id}/cancel`],
    ] as const) {
      const res = await app.inject({ method, url, ...(method === 'POST' ? { payload: {} } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().title).toBe('Not found');
    }
  });
});

describe('catalogue, health and docs', () => {
  it('lists the builtin agents with their manifests', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/agents' });
    expect(res.statusCode).toBe(200);
    const ids = res.json().agents.map((a: { id: string }) => a.id);
    expect(ids).toEqual(expect.arrayContaining(['echo', 'sim', 'wordcount']));
    const sim = res.json().agents.find((a: { id: string }) => a.id === 'sim');
    expect(sim.inputSchema.properties).toHaveProperty('failAttempts');
    expect(res.json().agents.find((a: { id: string }) => a.id === 'wordcount')).toMatchObject({ kind: 'http', capabilities: ['count'] });
  });

  it('is healthy and ready with Temporal up, 503 when Temporal is unreachable', async () => {
    expect((await app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ ok: true });
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    const { Client, Connection } = await import('@temporalio/client');
    const { buildApp } = await import('../../api/app');
    const { createAgentRegistry, builtinAgents } = await import('../../activities');
    const { testConfig } = await import('../helpers');
    const { loadTenants } = await import('../../config/tenants');
    const dead = await Connection.connect({ address: '127.0.0.1:1', connectTimeout: 100 }).catch(() => undefined);
    const lazy = dead ?? Connection.lazy({ address: '127.0.0.1:1' });
    const offline = await buildApp({
      config: testConfig(),
      client: new Client({ connection: lazy }),
      registry: createAgentRegistry(builtinAgents),
      tenants: loadTenants(testConfig()),
      record: await testRecord(),
    });
    const res = await offline.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json().title).toBe('Temporal unavailable');
    await offline.close();
  });

  it('serves an OpenAPI document generated from the schemas, and the docs page', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/jobs', '/v1/jobs/{jobId}', '/v1/jobs/{jobId}/result', '/v1/agents']),
    );
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['JobSpecInput', 'TaskSpecInput', 'JobResult', 'JobEvent']));
    const docs = await app.inject({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toContain('swagger');
  });
});

describe('limits', () => {
  it('answers 413, and starts nothing, for a valid job too large for one Temporal payload', async () => {
    const jobId = uniqueId('toolarge');
    const tasks = Array.from({ length: 70 }, (_, i) => ({ id: `t${i}`, question: 'q'.repeat(45_000), agent: 'echo' }));
    const res = await app.inject({ method: 'POST', url: '/v1/jobs', payload: { jobId, pattern: 'fanout', tasks } });
    expect(res.statusCode).toBe(413);
    expect(res.json().title).toBe('Job too large');
    expect(await jobsStartedWithId(jobId)).toBe(0);
  });
});

describe('task ids that look like internal ones', () => {
  it('serves status for a task named like a batch of a wide fan-out', async () => {
    const jobId = uniqueId('batchname');
    await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: { jobId, pattern: 'fanout', tasks: [{ id: 'batch-0001', question: 'q', agent: 'sim', params: { latencyMs: 1000 } }] },
    });
    const running = await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}/result?waitSeconds=0` });
    expect(running.statusCode).toBe(202);
    expect(running.json().progress).toMatchObject({ total: 1 });
    expect((await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}/result?waitSeconds=30` })).statusCode).toBe(200);
  });
});
