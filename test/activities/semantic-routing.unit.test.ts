import { describe, expect, it } from 'vitest';
import { builtinAgents, createAgentRegistry, createHttpAgent, semanticOptionsFromConfig } from '../../activities';
import { cosine } from '../../activities/agents/embeddings';
import { createLexicalRanker } from '../../activities/agents/lexical-ranker';
import { createSemanticRouter } from '../../activities/agents/semantic-router';
import { stem, terms } from '../../activities/agents/text-terms';
import { accuracyOf, bm25Route, formatTable, loadRoutingFixture, wordOverlapRoute } from '../../scripts/routing-accuracy';
import { checkRunnable, resolveAgents } from '../../api/spec-check';
import { JobSpecSchema } from '../../schemas';
import { loadConfig } from '../../config/config';

const fixture = loadRoutingFixture();

describe('routing terms', () => {
  it('drops stop words and meets word forms at one stem', () => {
    expect(terms('What is the translation of this?')).toEqual(['translat']);
    expect(new Set(['translate', 'translating', 'translations', 'translator'].map(stem))).toEqual(new Set(['translat']));
    expect(new Set(['summarise', 'summarize', 'summarization'].map(stem))).toEqual(new Set(['summariz']));
    expect(stem('reply')).toBe(stem('replies'));
    expect(stem('tables')).toBe(stem('table'));
    expect(stem('class')).toBe('class');
  });
});

describe('BM25 semantic routing on the 30-question test set', () => {
  it('routes far more questions right than the word overlap it replaced, and refuses off-topic ones', async () => {
    const old = await accuracyOf(wordOverlapRoute(fixture.agents), fixture);
    const bm25 = await accuracyOf(bm25Route(fixture.agents), fixture);
    console.log(
      formatTable([
        { name: 'word overlap (before)', acc: old },
        { name: 'BM25 (default threshold)', acc: bm25 },
      ]),
    );
    expect(fixture.questions).toHaveLength(30);
    expect(bm25.correct).toBeGreaterThanOrEqual(25);
    expect(bm25.correct - old.correct).toBeGreaterThanOrEqual(10);
    // the old scorer counted "the" and "and": every off-topic question found an agent
    expect(old.refused).toBe(0);
    expect(bm25.refused).toBeGreaterThanOrEqual(5);
  });

  it('scores on 0..1 with a threshold: one word of a description passes 0.3, a stricter bar refuses it', () => {
    const agents = fixture.agents;
    const loose = createSemanticRouter(agents);
    const strict = createSemanticRouter(agents, { minScore: 0.5 });
    const text = 'What is the temperature in Oslo right now?';
    expect(loose.routeLexical(text)).toMatchObject({ id: 'weather', reason: expect.stringMatching(/^semantic: bm25 0\.3\d ≥ 0\.30$/) });
    expect(strict.routeLexical(text)).toMatchObject({
      id: undefined,
      reason: expect.stringMatching(/^semantic: bm25: best weather at 0\.3\d < 0\.50$/),
    });
    expect(loose.routeLexical('Feed the cat twice')).toEqual({
      id: undefined,
      score: 0,
      reason: 'semantic: bm25: no agent shares a word with the question',
    });
    const ranked = createLexicalRanker(agents).rank('sql query translation weather forecast summary');
    expect(ranked.length).toBeGreaterThan(3);
    for (const r of ranked) expect(r.score > 0 && r.score < 1).toBe(true);
  });

  it('a capability word outranks the same word in prose', () => {
    const ranker = createLexicalRanker([
      { id: 'a', description: 'Knows about weather in passing.', capabilities: ['other'], tools: [] },
      { id: 'b', description: 'Something else entirely.', capabilities: ['weather'], tools: [] },
    ]);
    expect(ranker.rank('weather please').map((r) => r.id)).toEqual(['b', 'a']);
  });
});

describe('the registry routes semantic references', () => {
  const registry = createAgentRegistry([
    ...builtinAgents,
    createHttpAgent({
      id: 'wordcount',
      url: 'http://127.0.0.1:9/wc',
      description: 'Counts the words of the question',
      capabilities: ['count'],
    }),
  ]);

  it('by BM25, with the reason, and finds none below the threshold', () => {
    expect(registry.resolveWithReason({ route: 'semantic', hint: 'deterministic simulated agent' }, 'simulate a test')).toMatchObject({
      def: { manifest: { id: 'sim' } },
      reason: expect.stringMatching(/^semantic: bm25 /),
    });
    expect(registry.resolve({ route: 'semantic' }, 'how many words are in this sentence?')?.manifest.id).toBe('wordcount');
    expect(registry.resolve({ route: 'semantic' }, 'bake a lemon cake')).toBeUndefined();
    expect(registry.resolveWithReason('echo', 'q')).toEqual({ def: registry.get('echo') });
    expect(registry.semantic.method).toBe('bm25');
  });
});

describe('a route picks only an agent that can take the task', () => {
  const registry = createAgentRegistry(builtinAgents);
  const question = 'Which vector databases support hybrid search?';

  it('passes over the scout when the task gives it no paths or no scope for its tools, and says so', () => {
    const routed = registry.resolveWithReason({ route: 'semantic' }, question, { scope: ['web'] });
    expect(routed?.def.manifest.id).not.toBe('scout');
    expect(routed?.reason).toMatch(/^semantic: bm25 \d\.\d\d ≥ 0\.30 \(passed over scout: cannot take the task\)$/);
    expect(registry.resolve({ route: 'semantic' }, question)?.manifest.id).not.toBe('scout');
    // paths but not the tools in scope: still not the scout
    expect(registry.resolve({ route: 'semantic' }, question, { params: { paths: ['api'] } })?.manifest.id).not.toBe('scout');
  });

  it('routes to the scout when the task gives what it needs', () => {
    const task = { params: { paths: ['api'] }, scope: ['read_file', 'grep'] };
    expect(registry.resolveWithReason({ route: 'semantic' }, question, task)).toMatchObject({
      def: { manifest: { id: 'scout' } },
      reason: expect.stringMatching(/^semantic: bm25 [\d.]+ ≥ 0\.30$/),
    });
  });

  it('holds for the embeddings path too', async () => {
    const profiles = [
      { id: 'a', description: 'alpha', capabilities: [], tools: [] },
      { id: 'b', description: 'beta', capabilities: [], tools: [] },
    ];
    // the question is a's exactly, b's nearly
    const router = createSemanticRouter(profiles, {
      embedder: async (input) => input.map((t) => (t.startsWith('a.') ? [1, 0] : t.startsWith('b.') ? [0.8, 0.6] : [1, 0])),
    });
    expect((await router.route('q')).id).toBe('a');
    expect(await router.route('q', (id) => id !== 'a')).toMatchObject({
      id: 'b',
      reason: 'semantic: embeddings cosine 0.80 ≥ 0.30 (passed over a: cannot take the task)',
    });
    expect(await router.route('q', () => false)).toMatchObject({ id: undefined });
  });
});

describe('the API at submission', () => {
  const spec = JobSpecSchema.parse({
    pattern: 'fanout',
    tasks: [
      { id: 'off', question: 'bake a lemon cake', agent: { route: 'semantic' } },
      { id: 'sim', question: 'simulate a test', agent: { route: 'semantic', hint: 'deterministic simulated agent' } },
    ],
  });

  it('under BM25 refuses a semantic reference below the threshold and rewrites the others to agent ids', () => {
    const registry = createAgentRegistry(builtinAgents);
    expect(checkRunnable(spec, registry, 3)).toEqual([
      { path: 'tasks[0].agent', message: expect.stringContaining('semantic: bm25: no agent shares a word with the question') },
    ]);
    expect(resolveAgents(spec, registry).spec.tasks.map((t) => t.agent)).toEqual([{ route: 'semantic' }, 'sim']);
  });

  it("keeps why a route chose each agent, by task key (nested: '<task>/<task>'), for the results' routing.reason", () => {
    const registry = createAgentRegistry(builtinAgents);
    const nested = JobSpecSchema.parse({
      pattern: 'fanout',
      tasks: [
        spec.tasks[1],
        { id: 'named', question: 'q', agent: 'echo' },
        { id: 'outer', question: 'q', job: { pattern: 'fanout', tasks: [{ ...spec.tasks[1], id: 'inner' }] } },
      ],
    });
    expect(resolveAgents(nested, registry).routes).toEqual({
      sim: expect.stringMatching(/^semantic: bm25 /),
      'outer/inner': expect.stringMatching(/^semantic: bm25 /),
    });
  });

  it('under embeddings leaves semantic references to the worker and never calls the endpoint', () => {
    const calls: string[][] = [];
    const registry = createAgentRegistry(builtinAgents, {
      semantic: { embedder: async (input) => (calls.push(input), input.map(() => [1])) },
    });
    expect(registry.semantic.method).toBe('embeddings');
    expect(checkRunnable(spec, registry, 3)).toEqual([]);
    expect(resolveAgents(spec, registry)).toEqual({ spec, agents: {}, routes: {} });
    expect(calls).toEqual([]);
  });
});

describe('semantic routing configuration', () => {
  it('takes the embeddings endpoint and both thresholds from the environment', () => {
    const config = loadConfig({
      DELEGATE_EMBEDDINGS_URL: 'http://127.0.0.1:8083/v1',
      DELEGATE_EMBEDDINGS_MODEL: 'text-embedding-3-small',
      DELEGATE_EMBEDDINGS_API_KEY: 'k',
      DELEGATE_SEMANTIC_MIN_SIMILARITY: '0.4',
      DELEGATE_SEMANTIC_MIN_SCORE: '0.5',
    });
    expect(semanticOptionsFromConfig(config)).toEqual({
      embeddings: { url: 'http://127.0.0.1:8083/v1', model: 'text-embedding-3-small', apiKey: 'k' },
      minSimilarity: 0.4,
      minScore: 0.5,
    });
    expect(semanticOptionsFromConfig(loadConfig({}))).toEqual({ minSimilarity: 0.3, minScore: 0.3 });
  });

  it('refuses at start what cannot work, naming the variable', () => {
    expect(() => loadConfig({ DELEGATE_EMBEDDINGS_URL: 'http://127.0.0.1:8083/v1' })).toThrow(
      /DELEGATE_EMBEDDINGS_MODEL: required when DELEGATE_EMBEDDINGS_URL is set/,
    );
    expect(() => loadConfig({ DELEGATE_EMBEDDINGS_URL: 'ftp://x/v1', DELEGATE_EMBEDDINGS_MODEL: 'm' })).toThrow(/DELEGATE_EMBEDDINGS_URL/);
    expect(() => loadConfig({ DELEGATE_SEMANTIC_MIN_SCORE: '2' })).toThrow(/DELEGATE_SEMANTIC_MIN_SCORE/);
    expect(() => loadConfig({ DELEGATE_SEMANTIC_MIN_SIMILARITY: 'high' })).toThrow(/DELEGATE_SEMANTIC_MIN_SIMILARITY/);
  });

  it('cosine similarity', () => {
    expect(cosine([1, 0], [1, 0])).toBe(1);
    expect(cosine([1, 0], [0, 2])).toBe(0);
    expect(cosine([1, 1], [-1, -1])).toBeCloseTo(-1);
    expect(cosine([0, 0], [1, 1])).toBe(0);
  });
});
