/**
 * A TaskResult back to the research contract's output: the half of the mapping the subtask
 * workflow runs, so it is pure and zod-free (types only). The other half (contract input to a
 * TaskSpec) is in schemas/research-mapping.ts, on the API's side.
 *
 *   TaskResult + origin ──toResearchOutput──> ResearchSubtaskOutput
 *       seed duplicates dropped · evidence slimmed · citations matched to urls · summary fitted
 */
import type { Evidence, ResearchOrigin } from '../schemas/evidence';

export type { ResearchOrigin } from '../schemas/evidence';
import type { ResearchEvidence, ResearchFailureReason, ResearchSubtaskOutput } from '../schemas/research-contract';
import type { FailureReason, TaskResult } from '../schemas/result';
import type { TaskSpec } from '../schemas/job';
import { fitSummary } from './summary-sentences';
import { splitOf } from './token-split';

/** Longest snippet returned: evidence is returned slim. */
export const SLIM_SNIPPET_CHARS = 1000;
/** Longest title returned. */
export const SLIM_TITLE_CHARS = 300;
/** At most this many of the result's errors become notes. */
const MAX_ERROR_NOTES = 5;

/** A URL as compared: scheme and host lower case, no fragment, no trailing slash on a query-less path. */
export function urlKey(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)([^#]*)/i.exec(url.trim());
  if (!m) return url.trim();
  const rest = m[2]!.includes('?') ? m[2]! : m[2]!.replace(/\/+$/, '');
  return m[1]!.toLowerCase() + rest;
}

/** Evidence minus what the seed already holds (same url, or same id), and how many were dropped. */
export function withoutSeed(seed: readonly Evidence[], evidence: readonly Evidence[]): { evidence: Evidence[]; duplicates: number } {
  const urls = new Set(seed.flatMap((e) => (e.url ? [urlKey(e.url)] : [])));
  const ids = new Set(seed.map((e) => e.id));
  const kept = evidence.filter((e) => !(ids.has(e.id) || (e.url !== undefined && urls.has(urlKey(e.url)))));
  return { evidence: kept, duplicates: evidence.length - kept.length };
}

/**
 * Citations as URLs that match an evidence item: a citation equal (as a URL) to an item's or
 * a seed item's url is kept as that url; one equal to an item's id becomes its url; the rest
 * are dropped and counted. Duplicates are kept once. `also` (items dropped as seed duplicates)
 * only lend their ids: a citation of one resolves to the seed's url.
 */
export function matchCitations(
  citations: readonly string[],
  evidence: readonly Evidence[],
  seed: readonly Evidence[] = [],
  also: readonly Evidence[] = [],
): { citations: string[]; dropped: number } {
  const byUrl = new Map<string, string>();
  const byId = new Map<string, string>();
  for (const e of [...evidence, ...seed]) {
    if (e.url === undefined) continue;
    if (!byUrl.has(urlKey(e.url))) byUrl.set(urlKey(e.url), e.url);
    if (!byId.has(e.id)) byId.set(e.id, urlKey(e.url));
  }
  // items dropped as seed duplicates still name a url by their id: a citation of one is a citation of the seed
  for (const e of also) if (e.url !== undefined && !byId.has(e.id)) byId.set(e.id, urlKey(e.url));
  const out = new Set<string>();
  let dropped = 0;
  for (const c of citations) {
    const url = byUrl.get(urlKey(c)) ?? byUrl.get(byId.get(c.trim()) ?? '');
    if (url === undefined) dropped += 1;
    else out.add(url);
  }
  return { citations: [...out], dropped };
}

/** One evidence item, slim: long snippets and titles cut (with "…"); `fetched_at` as given. */
export function slimEvidence(e: Evidence, fetchedAt: string | null): { item: ResearchEvidence; cut: boolean } {
  const cutText = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
  const cut = e.snippet.length > SLIM_SNIPPET_CHARS || (e.title?.length ?? 0) > SLIM_TITLE_CHARS;
  return {
    item: {
      url: e.url ?? null,
      title: e.title !== undefined ? cutText(e.title, SLIM_TITLE_CHARS) : null,
      snippet: cutText(e.snippet, SLIM_SNIPPET_CHARS),
      source: e.source,
      fetched_at: fetchedAt,
      score: e.score ?? null,
    },
    cut,
  };
}

/** A Delegate failure reason in the contract's vocabulary. */
export function toResearchFailureReason(r: FailureReason): ResearchFailureReason {
  // the contract has no word for a human's rejection: the task was stopped
  return r === 'circuit_open' ? 'agent_unavailable' : r === 'rejected' ? 'stopped' : r;
}

/** What the host adds to a TaskResult when it maps it back. */
export interface ResearchOutputContext {
  /** The stop condition that ended the subtask, as the input wrote it. */
  stoppedBy?: string | null;
  /** When the host received the evidence (ISO): the `fetched_at` of items that carry none. */
  receivedAt?: string | null;
  /** The host's own notes (a re-prompt sent, a judge's verdict). */
  notes?: string[];
  /** The Delegate job that ran it. */
  jobId?: string;
}

/** The origin of a TaskSpec made by toTaskPlan: the seed is its contextSeed, the parent_id its marker's. */
export function originOfTask(task: Pick<TaskSpec, 'id' | 'contextSeed' | 'research'>): ResearchOrigin {
  return { id: task.id, parentId: task.research?.parentId ?? null, seed: task.contextSeed ?? [] };
}

/** The token split as the contract spells it (`input_tokens`, …): the fields the result has. */
function researchSplit(m: TaskResult['metrics']): Partial<ResearchSubtaskOutput['metrics']> {
  const s = splitOf(m);
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]));
}

/** A TaskResult as the contract's output. A budget halt is `partial`, also with nothing found. */
export function toResearchOutput(origin: ResearchOrigin, result: TaskResult, ctx: ResearchOutputContext = {}): ResearchSubtaskOutput {
  const seed = origin.seed;
  const fresh = withoutSeed(seed, result.evidence);
  const slim = fresh.evidence.map((e) => slimEvidence(e, ctx.receivedAt ?? null));
  const cited = matchCitations(result.citations, fresh.evidence, seed, result.evidence);
  const status = result.failureReason === 'budget_exhausted' ? 'partial' : result.status;
  const fitted = fitSummary(result.summary);
  const notes = [...(ctx.notes ?? [])];
  if (fitted.note !== null && (fitted.sentences > 0 || status === 'success')) notes.push(fitted.note);
  const cut = slim.filter((s) => s.cut).length;
  if (cut > 0) notes.push(`${cut} evidence item${cut === 1 ? '' : 's'} shortened to ${SLIM_SNIPPET_CHARS} characters`);
  notes.push(...result.errors.slice(0, MAX_ERROR_NOTES).map((e) => e.slice(0, 500)));
  return {
    id: origin.id,
    status,
    summary: fitted.summary,
    evidence: slim.map((s) => s.item),
    citations: cited.citations,
    follow_ups: result.followUps,
    metrics: {
      latency_ms: result.metrics.latencyMs,
      cost_usd: result.metrics.costUsd,
      tool_calls: result.metrics.toolCalls,
      channels_hit: result.metrics.channelsHit,
      ...researchSplit(result.metrics),
    },
    failure_reason: status === 'success' || result.failureReason === null ? null : toResearchFailureReason(result.failureReason),
    delegate: {
      parent_id: origin.parentId,
      ...(ctx.jobId !== undefined ? { job_id: ctx.jobId } : {}),
      agent_id: result.agentId,
      confidence: result.confidence,
      tokens: result.metrics.tokens,
      stopped_by: ctx.stoppedBy ?? null,
      dropped: { citations: cited.dropped, seed_duplicates: fresh.duplicates },
      ...(result.data !== undefined ? { data: result.data } : {}),
      notes,
    },
  };
}
