/**
 * Semantic routing: which agent fits a question, or none.
 *
 *   `${hint} ${question}` ─┬─ embeddings configured ─▶ cosine(question, agent) ≥ minSimilarity ─▶ agent
 *                          │        └─ endpoint error ─▶ (logged) ─┐
 *                          └─ otherwise ─────────────────────────▶ BM25 score ≥ minScore ─────▶ agent
 *                                                          below the threshold ─▶ no agent (no_agent)
 *
 * Only the agents a route may pick (`eligible`: those that can take the task's params and
 * scope) compete; the others are passed over, and the reason names those that ranked higher.
 * Agent vectors are embedded once, on first use, and kept; a failed attempt is retried on
 * the next route. BM25 is synchronous, so the API can resolve semantic references at
 * submission when no embeddings are configured.
 */
import type { AgentRef, Config } from '../../schemas';
import { cosine, createEmbedder, type Embedder, type EmbeddingsOptions } from './embeddings';
import { createLexicalRanker, type AgentProfile, type LexicalRankerOptions } from './lexical-ranker';

/** BM25 threshold (normalised 0..1, see lexical-ranker.ts): one word that only one agent has in its description scores about 0.33. @default */
export const DEFAULT_MIN_SCORE = 0.3;
/** Cosine threshold of the embeddings path. @default */
export const DEFAULT_MIN_SIMILARITY = 0.3;

/** Options of `createSemanticRouter`. */
export interface SemanticRouterOptions {
  /** The embeddings endpoint; unset: BM25 only. */
  embeddings?: EmbeddingsOptions;
  /** An embedder to use instead of `embeddings` (tests, other transports). */
  embedder?: Embedder;
  /** BM25 threshold, 0..1. @default 0.3 */
  minScore?: number;
  /** Cosine threshold of the embeddings path. @default 0.3 */
  minSimilarity?: number;
  /** BM25 tuning (ablations). */
  lexical?: LexicalRankerOptions;
}

/** A routing verdict: the agent (undefined below the threshold), its score and how it was chosen. */
export interface SemanticRoute {
  id: string | undefined;
  score: number;
  /** For people: `semantic: bm25 0.82 ≥ 0.30`, `semantic: embeddings cosine 0.61 ≥ 0.30`, or why none. */
  reason: string;
  /** Set when the embeddings endpoint failed and BM25 decided instead: the error. */
  fallback?: string;
}

/** Whether a route may pick the agent with this id (a task it cannot take: no). */
export type Eligible = (id: string) => boolean;

/** Picks an agent for a text by meaning. */
export interface SemanticRouter {
  /** How `route` ranks: `embeddings` when an endpoint is configured (BM25 stands in on errors). */
  readonly method: 'embeddings' | 'bm25';
  /** The verdict by the configured method, among the eligible agents (absent: all). */
  route(text: string, eligible?: Eligible): Promise<SemanticRoute>;
  /** The BM25 verdict (synchronous), among the eligible agents (absent: all). */
  routeLexical(text: string, eligible?: Eligible): SemanticRoute;
}

/** The text a semantic reference is routed by: its hint, then the question. */
export function semanticText(ref: Extract<AgentRef, { route: 'semantic' }>, question: string): string {
  return `${ref.hint ?? ''} ${question}`.trim();
}

/** The text an agent is embedded as. */
export function profileText(p: AgentProfile): string {
  const tools = p.tools.map((t) => (t.description ? `${t.name}: ${t.description}` : t.name)).join('; ');
  return [
    `${p.id.replace(/[-_.]+/g, ' ')}.`,
    p.description,
    p.capabilities.length ? `Capabilities: ${p.capabilities.join(', ')}.` : '',
    tools ? `Tools: ${tools}.` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

const f2 = (n: number) => n.toFixed(2);

/** Builds a router over the agents' profiles. */
export function createSemanticRouter(profiles: AgentProfile[], opts: SemanticRouterOptions = {}): SemanticRouter {
  const minScore = opts.minScore ?? DEFAULT_MIN_SCORE;
  const minSimilarity = opts.minSimilarity ?? DEFAULT_MIN_SIMILARITY;
  const ranker = createLexicalRanker(profiles, opts.lexical);
  const embedder = opts.embedder ?? (opts.embeddings ? createEmbedder(opts.embeddings) : undefined);
  let agentVectors: Promise<number[][]> | undefined;

  /** The verdict on the best eligible agent; `passedOver`: ineligible agents that ranked above it. */
  const verdict = (method: string, best: { id: string; score: number } | undefined, min: number, passedOver: string[]): SemanticRoute => {
    const over = passedOver.length > 0 ? ` (passed over ${passedOver.slice(0, 3).join(', ')}: cannot take the task)` : '';
    if (!best)
      return {
        id: undefined,
        score: 0,
        reason: `semantic: ${method}: no agent ${over ? 'that can take the task ' : ''}shares a word with the question${over}`,
      };
    if (best.score >= min) return { id: best.id, score: best.score, reason: `semantic: ${method} ${f2(best.score)} ≥ ${f2(min)}${over}` };
    return { id: undefined, score: best.score, reason: `semantic: ${method}: best ${best.id} at ${f2(best.score)} < ${f2(min)}${over}` };
  };

  /** The best eligible of the ranked agents (best first), and the ineligible ones ranked above it. */
  const pick = (ranked: { id: string; score: number }[], eligible: Eligible | undefined) => {
    const at = ranked.findIndex((r) => eligible?.(r.id) ?? true);
    const passedOver = (at < 0 ? ranked : ranked.slice(0, at)).map((r) => r.id);
    return { best: at < 0 ? undefined : ranked[at], passedOver };
  };

  const routeLexical = (text: string, eligible?: Eligible) => {
    const { best, passedOver } = pick(ranker.rank(text), eligible);
    return verdict('bm25', best, minScore, passedOver);
  };

  async function routeEmbedded(text: string, embed: Embedder, eligible: Eligible | undefined): Promise<SemanticRoute> {
    agentVectors ??= embed(profiles.map(profileText)).catch((err: unknown) => {
      agentVectors = undefined;
      throw err;
    });
    const [vectors, [query]] = await Promise.all([agentVectors, embed([text])]);
    if (query.length !== vectors[0]?.length)
      throw new Error(`embeddings of ${query.length} and ${vectors[0]?.length} dimensions: did the model change?`);
    // best first, ties in id order (the profiles are)
    const ranked = profiles.map((p, i) => ({ id: p.id, score: cosine(query, vectors[i]) })).sort((a, b) => b.score - a.score);
    const { best, passedOver } = pick(ranked, eligible);
    return verdict('embeddings cosine', best, minSimilarity, passedOver);
  }

  return {
    method: embedder ? 'embeddings' : 'bm25',
    routeLexical,
    async route(text, eligible) {
      if (!embedder || profiles.length === 0) return routeLexical(text, eligible);
      try {
        return await routeEmbedded(text, embedder, eligible);
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        const lexical = routeLexical(text, eligible);
        return { ...lexical, reason: `${lexical.reason} (embeddings failed)`, fallback: error };
      }
    },
  };
}

/** The router options the configuration asks for (DELEGATE_EMBEDDINGS_*, DELEGATE_SEMANTIC_*). */
export function semanticOptionsFromConfig(
  config: Pick<
    Config,
    | 'DELEGATE_EMBEDDINGS_URL'
    | 'DELEGATE_EMBEDDINGS_MODEL'
    | 'DELEGATE_EMBEDDINGS_API_KEY'
    | 'DELEGATE_SEMANTIC_MIN_SCORE'
    | 'DELEGATE_SEMANTIC_MIN_SIMILARITY'
  >,
): SemanticRouterOptions {
  const { DELEGATE_EMBEDDINGS_URL: url, DELEGATE_EMBEDDINGS_MODEL: model, DELEGATE_EMBEDDINGS_API_KEY: apiKey } = config;
  return {
    minScore: config.DELEGATE_SEMANTIC_MIN_SCORE,
    minSimilarity: config.DELEGATE_SEMANTIC_MIN_SIMILARITY,
    ...(url && model ? { embeddings: { url, model, apiKey } } : {}),
  };
}
