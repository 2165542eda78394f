/**
 * BM25 ranking of agents for a question (MiniSearch's BM25+), over each agent's routing
 * profile: id, description, capabilities, tools.
 *
 *   profiles ──index once──▶ MiniSearch ◀── rank(`${hint} ${question}`)
 *                                            └─▶ [{ id, score 0..1, raw }] best first
 *
 * The score is the raw BM25 score normalised to 0..1 by `raw / (raw + halfAt)`: `halfAt` is
 * the raw score of a perfect one-term match (a word only one agent has, in its capabilities),
 * so one such word scores 0.5 and every further matched word pushes the score towards 1.
 * That makes a threshold mean the same thing whatever the number of agents.
 */
import MiniSearch from 'minisearch';
import type { AgentManifest } from '../../schemas';
import { termOf, words, type TermOptions } from './text-terms';

/** What semantic routing knows of an agent. */
export interface AgentProfile {
  id: string;
  description: string;
  capabilities: string[];
  tools: { name: string; description?: string }[];
}

/** The profile of a manifest (tool names only: the manifest has no tool descriptions). */
export function profileOf(m: AgentManifest, toolDescriptions: Record<string, string> = {}): AgentProfile {
  return {
    id: m.id,
    description: m.description,
    capabilities: m.capabilities,
    tools: m.tools.map((name) => ({ name, description: toolDescriptions[name] })),
  };
}

/** One ranked agent. */
export interface RankedAgent {
  id: string;
  /** Normalised score, 0..1 (see the module comment). */
  score: number;
  /** MiniSearch's BM25+ score. */
  raw: number;
}

/** Options of `createLexicalRanker` (the ablations of the accuracy table turn these off). */
export interface LexicalRankerOptions extends TermOptions {
  /** Index tool names and descriptions. @default true */
  tools?: boolean;
  /** Also match a query word of 4+ letters as a prefix of an indexed term. @default true */
  prefix?: boolean;
}

/** Ranks agents for a text; `rank` is synchronous and pure after the index is built. */
export interface LexicalRanker {
  /** Agents with any match, best first (ties by id). */
  rank(text: string): RankedAgent[];
}

/** Field weights: a capability or an id is a stronger sign than a word of prose. */
const BOOST = { name: 2, capabilities: 2, description: 1, tools: 1 };

/** Builds the BM25 index over the profiles. */
export function createLexicalRanker(profiles: AgentProfile[], opts: LexicalRankerOptions = {}): LexicalRanker {
  const termOpts: TermOptions = { stem: opts.stem, stopWords: opts.stopWords };
  const index = new MiniSearch<{ id: string; name: string; description: string; capabilities: string; tools: string }>({
    fields: ['name', 'description', 'capabilities', 'tools'],
    tokenize: words,
    processTerm: (t) => termOf(t, termOpts) ?? null,
    searchOptions: {
      boost: BOOST,
      prefix: opts.prefix === false ? false : (t) => t.length >= 4,
      combineWith: 'OR',
    },
  });
  const docs = profiles.map((p) => ({
    id: p.id,
    name: p.id,
    description: p.description,
    capabilities: p.capabilities.join(' '),
    tools: opts.tools === false ? '' : p.tools.map((t) => `${t.name} ${t.description ?? ''}`).join(' '),
  }));
  index.addAll(docs);
  const halfAt = perfectOneTermScore(profiles.length);
  return {
    rank(text) {
      const hits = index.search(text);
      return hits
        .map((h) => ({ id: String(h.id), raw: h.score, score: h.score / (h.score + halfAt) }))
        .sort((a, b) => b.raw - a.raw || a.id.localeCompare(b.id));
    },
  };
}

/**
 * The raw score of one query word that only one of `n` agents has, once, in a capability list
 * of average length: BM25+ with MiniSearch's defaults (k 1.2, d 0.5), times the field's boost.
 */
function perfectOneTermScore(n: number): number {
  const idf = Math.log(1 + (n - 1 + 0.5) / (1 + 0.5));
  const k = 1.2;
  return BOOST.capabilities * idf * (0.5 + (1 * (k + 1)) / (1 + k));
}
