/**
 * The one mapping between the research-subtask contract and Delegate's own: contract input to
 * a TaskSpec (plus the job labels and priority it implies), and a TaskResult back to the
 * contract's output. No other module translates these fields.
 *
 *   ResearchSubtaskInput ──toTaskPlan──> { task: TaskSpec { research: { parentId, priority, outputFormat } }, labels: { contract, parent_id } }
 *   TaskResult + input ──toResearchOutput──> ResearchSubtaskOutput
 *       seed duplicates dropped · evidence slimmed · citations matched to urls · summary fitted
 */
import type { Budget } from './budget';
import { CONTRACT_AXES, type ContractAxis, type ResearchEvidence, type ResearchFailureReason, type ResearchSubtaskInput, type ResearchSubtaskOutput } from './research-contract';
import type { Evidence } from './evidence';
import { RetrySchema, TaskSpecSchema, type AgentRef, type TaskSpec } from './job';
import type { FailureReason, TaskResult } from './result';
import { fitSummary } from './summary-sentences';

/** Job label every contract subtask carries, so the record can list them. */
export const CONTRACT_LABEL = { key: 'contract', value: 'research-subtask' } as const;
/** Job label that keeps the input's `parent_id` (searchable like any label). */
export const PARENT_ID_LABEL = 'parent_id';
/** Longest snippet returned: evidence is returned slim. */
export const SLIM_SNIPPET_CHARS = 1000;
/** Longest title returned. */
export const SLIM_TITLE_CHARS = 300;
/** At most this many of the result's errors become notes. */
const MAX_ERROR_NOTES = 5;

/** A contract input as Delegate runs it. */
export interface ResearchTaskPlan {
  /** The TaskSpec, valid against TaskSpecSchema. */
  task: TaskSpec;
  /** Labels for the job that runs it: `contract` always, `parent_id` when the input has one. */
  labels: Record<string, string>;
}

/** The channel of a seed item that names none: the web when it has a url, the parent's context otherwise. */
export const seedSourceOf = (item: { source?: string; url?: string | null }): string => item.source ?? (item.url != null ? 'web' : 'context');

/** The seed as Delegate evidence: ids `seed_1`, `seed_2`… (the contract's items carry none). */
export function seedEvidence(input: Pick<ResearchSubtaskInput, 'context_seed'>): Evidence[] {
  return input.context_seed.map((s, i) => ({
    id: `seed_${i + 1}`,
    source: seedSourceOf(s),
    snippet: s.snippet,
    ...(s.title != null ? { title: s.title } : {}),
    ...(s.url != null ? { url: s.url } : {}),
    ...(s.score != null ? { score: s.score } : {}),
  }));
}

/** The contract's budget as a Delegate Budget. */
export function toBudget(b: ResearchSubtaskInput['budget']): Budget {
  const out: Budget = {};
  for (const [key, axis] of Object.entries(CONTRACT_AXES) as [ContractAxis, (typeof CONTRACT_AXES)[ContractAxis]][]) {
    const v = b[key];
    if (v !== undefined) out[axis] = v;
  }
  return out;
}

/** The agent: the named one, or semantic routing over the scope and the question (the contract names none). */
function agentOf(input: ResearchSubtaskInput): AgentRef {
  if (input.agent !== undefined) return input.agent;
  const scope = input.scope ?? [];
  return scope.length > 0 ? { route: 'semantic', hint: `channels: ${scope.join(', ')}`.slice(0, 2000) } : { route: 'semantic' };
}

/** A contract input as the TaskSpec Delegate runs (priority and output format in its `research` marker), with the labels it implies. */
export function toTaskPlan(input: ResearchSubtaskInput): ResearchTaskPlan {
  const task = TaskSpecSchema.parse({
    id: input.id,
    question: input.question,
    rationale: input.rationale,
    agent: agentOf(input),
    params: input.params,
    scope: input.scope,
    contextSeed: input.context_seed.length > 0 ? seedEvidence(input) : undefined,
    constraints: input.constraints,
    stopConditions: input.stop_conditions.length > 0 ? input.stop_conditions : undefined,
    budget: toBudget(input.budget),
    timeoutSeconds: input.timeout_seconds,
    // retry_limit counts retries; maxAttempts counts the first attempt too
    retry: input.retry_limit !== undefined ? RetrySchema.parse({ maxAttempts: input.retry_limit + 1 }) : undefined,
    outputSchema: input.output_schema,
    research: { parentId: input.parent_id, priority: input.priority, ...(input.output_format ? { outputFormat: input.output_format } : {}) },
  });
  return { task, labels: researchJobLabels([task]) };
}

/**
 * The labels a job of research-contract tasks carries: `contract`, and `parent_id` when its
 * tasks share one (a planner's fan-out does), so the record and the Temporal UI find it.
 */
export function researchJobLabels(tasks: readonly Pick<TaskSpec, 'research'>[]): Record<string, string> {
  const marked = tasks.flatMap((t) => (t.research ? [t.research] : []));
  if (marked.length === 0) return {};
  const labels: Record<string, string> = { [CONTRACT_LABEL.key]: CONTRACT_LABEL.value };
  const parents = new Set(marked.map((m) => m.parentId));
  const [only] = parents;
  if (parents.size === 1 && only != null) labels[PARENT_ID_LABEL] = only;
  return labels;
}

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
export function matchCitations(citations: readonly string[], evidence: readonly Evidence[], seed: readonly Evidence[] = [], also: readonly Evidence[] = []): { citations: string[]; dropped: number } {
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
  return r === 'circuit_open' ? 'agent_unavailable' : r;
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

/** What the output echoes of its input: the id, the parent_id, and the seed (as Delegate evidence). */
export interface ResearchOrigin {
  id: string;
  parentId: string | null;
  seed: Evidence[];
}

/** The origin of a contract input. */
export function originOfInput(input: Pick<ResearchSubtaskInput, 'id' | 'parent_id' | 'context_seed'>): ResearchOrigin {
  return { id: input.id, parentId: input.parent_id, seed: seedEvidence(input) };
}

/** The origin of a TaskSpec made by toTaskPlan: the seed is its contextSeed, the parent_id its marker's. */
export function originOfTask(task: Pick<TaskSpec, 'id' | 'contextSeed' | 'research'>): ResearchOrigin {
  return { id: task.id, parentId: task.research?.parentId ?? null, seed: task.contextSeed ?? [] };
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
