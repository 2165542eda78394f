/**
 * The semantic-routing accuracy table over test/fixtures/routing/agents-and-questions.json:
 * 30 questions labelled with their agent, plus off-topic ones that should find none.
 * `npm run routing:accuracy` prints it (the fake embeddings server is started here); the
 * unit and integration tests assert floors on the same numbers.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createEmbedder } from '../activities/agents/embeddings';
import type { AgentProfile, LexicalRankerOptions } from '../activities/agents/lexical-ranker';
import { createSemanticRouter, DEFAULT_MIN_SCORE, type SemanticRouterOptions } from '../activities/agents/semantic-router';
import { startFakeEmbeddings } from './fake-embeddings';

/** One labelled question; `agent: null` means no agent should take it. */
export interface LabelledQuestion {
  question: string;
  hint?: string;
  agent: string | null;
}

/** The test set. */
export interface RoutingFixture {
  agents: AgentProfile[];
  questions: LabelledQuestion[];
  offTopic: LabelledQuestion[];
}

/** Reads the test set. */
export function loadRoutingFixture(): RoutingFixture {
  return JSON.parse(
    readFileSync(fileURLToPath(new URL('../test/fixtures/routing/agents-and-questions.json', import.meta.url)), 'utf8'),
  ) as RoutingFixture;
}

/** A router under test: the agent id it picks for a text, or undefined for none. */
export type RouteFn = (text: string) => string | undefined | Promise<string | undefined>;

/** How a router did: labelled questions routed right, off-topic ones refused, and the misses. */
export interface Accuracy {
  correct: number;
  total: number;
  refused: number;
  offTopic: number;
  misses: { question: string; want: string | null; got: string | undefined }[];
}

/** Runs every question of the fixture through `route`. */
export async function accuracyOf(route: RouteFn, fixture: RoutingFixture): Promise<Accuracy> {
  const acc: Accuracy = { correct: 0, total: fixture.questions.length, refused: 0, offTopic: fixture.offTopic.length, misses: [] };
  for (const q of [...fixture.questions, ...fixture.offTopic]) {
    const got = await route(`${q.hint ?? ''} ${q.question}`.trim());
    if ((got ?? null) === q.agent) {
      if (q.agent) acc.correct++;
      else acc.refused++;
    } else acc.misses.push({ question: q.question, want: q.agent, got });
  }
  return acc;
}

/**
 * The scorer semantic routing had before issue 14, kept here as the baseline: the count of
 * shared words (3+ letters) between the text and the agent's id, description and capabilities;
 * the first agent by id with the highest count above 0 wins.
 */
export function wordOverlapRoute(agents: AgentProfile[]): RouteFn {
  const words = (s: string) =>
    new Set(
      s
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .filter((w) => w.length > 2),
    );
  const sorted = [...agents].sort((a, b) => a.id.localeCompare(b.id));
  return (text) => {
    const want = words(text);
    let best: string | undefined;
    let bestScore = 0;
    for (const a of sorted) {
      const have = words(`${a.id} ${a.description} ${a.capabilities.join(' ')}`);
      let s = 0;
      for (const w of want) if (have.has(w)) s++;
      if (s > bestScore) [best, bestScore] = [a.id, s];
    }
    return best;
  };
}

/** The BM25 router's verdicts. */
export function bm25Route(agents: AgentProfile[], minScore = DEFAULT_MIN_SCORE, lexical: LexicalRankerOptions = {}): RouteFn {
  const router = createSemanticRouter(agents, { minScore, lexical });
  return (text) => router.routeLexical(text).id;
}

/** The router's configured path (embeddings when `opts` has them). */
export function semanticRoute(agents: AgentProfile[], opts: SemanticRouterOptions): RouteFn {
  const router = createSemanticRouter(agents, opts);
  return async (text) => (await router.route(text)).id;
}

/** The cosine threshold the fake's hashed bag-of-words vectors are calibrated to (a real model's is DELEGATE_SEMANTIC_MIN_SIMILARITY). */
export const FAKE_MIN_SIMILARITY = 0.1;

/** Every row of the table: the routers and their ablations. */
export async function accuracyTable(fixture: RoutingFixture, embeddingsUrl?: string): Promise<{ name: string; acc: Accuracy }[]> {
  const { agents } = fixture;
  const rows: [string, RouteFn][] = [
    ['word overlap (before issue 14)', wordOverlapRoute(agents)],
    [`BM25, threshold ${DEFAULT_MIN_SCORE} (default)`, bm25Route(agents)],
    ['BM25, no stemming', bm25Route(agents, DEFAULT_MIN_SCORE, { stem: false })],
    ['BM25, no stop words', bm25Route(agents, DEFAULT_MIN_SCORE, { stopWords: false })],
    ['BM25, no tool text', bm25Route(agents, DEFAULT_MIN_SCORE, { tools: false })],
    ['BM25, no prefix matches', bm25Route(agents, DEFAULT_MIN_SCORE, { prefix: false })],
    ...[0, 0.2, 0.4, 0.5].map((t): [string, RouteFn] => [`BM25, threshold ${t}`, bm25Route(agents, t)]),
  ];
  if (embeddingsUrl) {
    rows.push([
      `embeddings (fake hashed bag of words), cosine ≥ ${FAKE_MIN_SIMILARITY}`,
      semanticRoute(agents, { embedder: createEmbedder({ url: embeddingsUrl, model: 'fake' }), minSimilarity: FAKE_MIN_SIMILARITY }),
    ]);
  }
  const out: { name: string; acc: Accuracy }[] = [];
  for (const [name, route] of rows) out.push({ name, acc: await accuracyOf(route, fixture) });
  return out;
}

/** The table as markdown. */
export function formatTable(rows: { name: string; acc: Accuracy }[]): string {
  const pct = (n: number, d: number) => `${n}/${d} (${Math.round((100 * n) / d)}%)`;
  return [
    '| router | right agent | off-topic refused |',
    '| --- | --- | --- |',
    ...rows.map(({ name, acc }) => `| ${name} | ${pct(acc.correct, acc.total)} | ${pct(acc.refused, acc.offTopic)} |`),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const fake = await startFakeEmbeddings();
  const fixture = loadRoutingFixture();
  const rows = await accuracyTable(fixture, fake.url);
  console.log(formatTable(rows));
  if (process.argv.includes('--misses')) for (const { name, acc } of rows) console.log(`\n${name}:`, acc.misses);
  fake.server.close();
}
