/**
 * Semantic routing by embeddings, against a real local server speaking the OpenAI embeddings
 * protocol (scripts/fake-embeddings.ts): the client and router, the BM25 fallback when the
 * endpoint fails, and jobs whose semantic references a worker resolves by embeddings. Also the
 * API's 422 for a semantic reference no agent reaches under BM25.
 */
import { buildApp } from '../../api/app';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadRegistry } from '../../activities';
import { createEmbedder } from '../../activities/agents/embeddings';
import { createSemanticRouter } from '../../activities/agents/semantic-router';
import { startFakeEmbeddings, type FakeEmbeddings } from '../../scripts/fake-embeddings';
import { accuracyOf, bm25Route, FAKE_MIN_SIMILARITY, formatTable, loadRoutingFixture, semanticRoute } from '../../scripts/routing-accuracy';
import { loadTenants } from '../../config/tenants';
import { startDedicatedWorker } from '../dedicated-worker';
import { jobsStartedWithId, submitFanout, testClient, testConfig, testRecord, uniqueId, useApp } from '../helpers';

let fake: FakeEmbeddings;
beforeAll(async () => {
  fake = await startFakeEmbeddings();
});
afterAll(() => {
  fake.server.close();
});

const fixture = loadRoutingFixture();

describe('the embeddings path', () => {
  it('routes the test set through the endpoint, embedding the agents once, with the model and key', async () => {
    fake.failing = false;
    fake.requests.length = 0;
    const embedder = createEmbedder({ url: fake.url, model: 'fake-model', apiKey: 'sk-test-123456789' });
    const acc = await accuracyOf(semanticRoute(fixture.agents, { embedder, minSimilarity: FAKE_MIN_SIMILARITY }), fixture);
    const bm25 = await accuracyOf(bm25Route(fixture.agents), fixture);
    console.log(
      formatTable([
        { name: `embeddings (fake), cosine ≥ ${FAKE_MIN_SIMILARITY}`, acc },
        { name: 'BM25', acc: bm25 },
      ]),
    );
    // the fake's vectors are hashed bags of words: a check of the plumbing, not of meaning
    expect(acc.correct).toBeGreaterThanOrEqual(18);
    expect(acc.refused).toBeGreaterThanOrEqual(4);
    const asked = fixture.questions.length + fixture.offTopic.length;
    expect(fake.requests).toHaveLength(1 + asked);
    expect(fake.requests[0].input).toHaveLength(fixture.agents.length);
    expect(fake.requests.every((r) => r.model === 'fake-model' && r.authorization === 'Bearer sk-test-123456789')).toBe(true);
  });

  it('falls back to BM25 when the endpoint fails, and uses it again once it is back', async () => {
    fake.failing = true;
    const router = createSemanticRouter(fixture.agents, {
      embedder: createEmbedder({ url: fake.url, model: 'fake-model' }),
      minSimilarity: FAKE_MIN_SIMILARITY,
    });
    expect(router.method).toBe('embeddings');
    const down = await router.route('Translate this sentence into German');
    expect(down).toMatchObject({
      id: 'translator',
      reason: expect.stringMatching(/^semantic: bm25 0\.\d\d ≥ 0\.30 \(embeddings failed\)$/),
      fallback: expect.stringMatching(/answered 500/),
    });
    fake.failing = false;
    const up = await router.route('Translate this sentence into German');
    expect(up).toMatchObject({ id: 'translator', reason: expect.stringMatching(/^semantic: embeddings cosine 0\.\d\d ≥ 0\.10$/) });
    expect(up.fallback).toBeUndefined();
    // an answer of the wrong shape is a failure too
    const broken = createSemanticRouter(fixture.agents, { embedder: createEmbedder({ url: `${fake.url}/nowhere`, model: 'm' }) });
    expect((await broken.route('Translate this sentence into German')).fallback).toMatch(/answered 404/);
  });
});

describe('jobs routed by embeddings', () => {
  it('the API leaves semantic references to the worker, which routes them by embeddings; none above the threshold is no_agent', async () => {
    fake.failing = false;
    const registry = loadRegistry(inject('agentsFile'), {
      embeddings: { url: fake.url, model: 'fake-model' },
      minSimilarity: FAKE_MIN_SIMILARITY,
    });
    const worker = await startDedicatedWorker({ registry, lanes: ['default'] });
    const config = testConfig({ DELEGATE_TASK_QUEUE: worker.taskQueue });
    const app = await buildApp({ config, client: await testClient(), registry, tenants: loadTenants(config), record: await testRecord() });
    try {
      const submit = async (tasks: object[]) => (await submitFanout(app, 'semantic', tasks)).result;
      const first = await submit([
        { id: 'count', question: 'count the words of this sentence', agent: { route: 'semantic' } },
        { id: 'off', question: 'Feed the cat twice', agent: { route: 'semantic' } },
      ]);
      expect(first.results.map((r) => [r.id, r.agentId, r.status, r.failureReason])).toEqual([
        ['count', 'wordcount', 'success', null],
        ['off', 'route:semantic', 'failure', 'no_agent'],
      ]);
      expect(first.results[1].errors.join(' ')).toMatch(/semantic: embeddings cosine/);
      // the endpoint goes down: the worker's router falls back to BM25 and the job still runs
      fake.failing = true;
      const second = await submit([{ id: 'count', question: 'count the words of this sentence', agent: { route: 'semantic' } }]);
      expect(second.results.map((r) => [r.agentId, r.status])).toEqual([['wordcount', 'success']]);
    } finally {
      fake.failing = false;
      await app.close();
      await worker.stop();
    }
  });
});

describe('BM25 at submission', () => {
  const app = useApp();
  it('a semantic reference no agent reaches is refused with 422 at its field path; nothing starts', async () => {
    const jobId = uniqueId('semantic-none');
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      payload: { jobId, pattern: 'fanout', tasks: [{ id: 't', question: 'Feed the cat twice', agent: { route: 'semantic' } }] },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([
      {
        path: 'body.tasks[0].agent',
        message: expect.stringMatching(
          /^no agent matches \{"route":"semantic"\}: semantic: bm25: no agent shares a word with the question/,
        ),
      },
    ]);
    expect(await jobsStartedWithId(jobId)).toBe(0);
  });

  it('each result says how its agent was chosen: the route with its score, at every level of nesting; `named` only when named', async () => {
    const semantic = { question: 'simulate a test', agent: { route: 'semantic', hint: 'deterministic simulated agent' } };
    const { jobId, result } = await submitFanout(app, 'semantic-why', [
      { id: 'routed', ...semantic },
      { id: 'named', question: 'q', agent: 'echo' },
      { id: 'outer', question: 'nested', job: { pattern: 'fanout', tasks: [{ id: 'inner', ...semantic }] } },
    ]);
    const bm25 = { agent: 'sim', reason: expect.stringMatching(/^semantic: bm25 \d\.\d\d ≥ 0\.30$/) };
    expect(result.results.map((r) => r.routing)).toEqual([bm25, { agent: 'echo', reason: 'named' }, undefined]);
    const inner = await (await testClient()).workflow.getHandle(`job/default/${jobId}/outer/inner`).result();
    expect(inner.routing).toEqual(bm25);
  });
});
