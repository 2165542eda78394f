import { describe, expect, it } from 'vitest';
import type { Evidence, TaskResult } from '../../schemas';
import { FailureReasonSchema } from '../../schemas/result';
import { ResearchFailureReasonSchema, ResearchSubtaskInputSchema } from '../../schemas/research-contract';
import {
  matchCitations,
  SLIM_SNIPPET_CHARS,
  slimEvidence,
  toResearchFailureReason,
  toResearchOutput,
  urlKey,
  withoutSeed,
} from '../../core/research-output';
import { originOfInput } from '../../schemas/research-mapping';

const ev = (id: string, url?: string): Evidence => ({ id, source: 'web', snippet: `about ${id}`, ...(url ? { url } : {}) });
const input = ResearchSubtaskInputSchema.parse({
  id: 'sub_2',
  parent_id: 'plan_1',
  question: 'q?',
  budget: { latency_seconds: 60, cost_usd: 0, tool_calls: 3 },
  context_seed: [{ url: 'https://seed.example/a', snippet: 'seeded', source: 'web' }],
});
const result = (r: Partial<TaskResult>): TaskResult => ({
  id: 'sub_2',
  agentId: 'sim',
  status: 'success',
  summary: 'One. Two. Three.',
  evidence: [],
  citations: [],
  followUps: [],
  confidence: 0.5,
  metrics: { latencyMs: 10, costUsd: 0, tokens: 0, toolCalls: 0, steps: 0, attempts: 0, channelsHit: [] },
  failureReason: null,
  errors: [],
  ...r,
});

describe('research mapping', () => {
  it('compares URLs by scheme and host case, without fragment or trailing slash', () => {
    expect(urlKey('HTTPS://Example.COM/Path/#frag')).toBe('https://example.com/Path');
    expect(urlKey('https://example.com/a/?q=1')).toBe('https://example.com/a/?q=1');
    expect(urlKey(' not a url ')).toBe('not a url');
  });

  it('matches citations to evidence urls, seed urls or evidence ids, and counts the rest', () => {
    const evidence = [ev('e1', 'https://a.example/1'), ev('e2', 'https://b.example/2'), ev('e3')];
    const seed = [ev('seed_1', 'https://seed.example/a')];
    const r = matchCitations(
      ['https://A.example/1#top', 'e2', 'https://seed.example/a/', 'e3', 'https://nowhere.example', 'https://a.example/1'],
      evidence,
      seed,
    );
    expect(r).toEqual({ citations: ['https://a.example/1', 'https://b.example/2', 'https://seed.example/a'], dropped: 2 });
    expect(matchCitations([], evidence)).toEqual({ citations: [], dropped: 0 });
  });

  it('drops returned evidence the seed holds, by url or id, and counts it', () => {
    const seed = [ev('seed_1', 'https://seed.example/a'), ev('seed_2')];
    const r = withoutSeed(seed, [ev('x', 'https://SEED.example/a/'), ev('seed_2'), ev('y', 'https://new.example')]);
    expect(r.evidence.map((e) => e.id)).toEqual(['y']);
    expect(r.duplicates).toBe(2);
  });

  it('returns evidence slim: long snippets cut, missing fields null', () => {
    const long = { ...ev('e', 'https://x.example'), snippet: 'x'.repeat(5000), title: 't'.repeat(400), score: 0.3 };
    const { item, cut } = slimEvidence(long, null);
    expect(cut).toBe(true);
    expect(item.snippet).toHaveLength(SLIM_SNIPPET_CHARS);
    expect(item.snippet.endsWith('…')).toBe(true);
    expect(item).toMatchObject({ url: 'https://x.example', source: 'web', fetched_at: null, score: 0.3 });
    expect(slimEvidence(ev('n'), '2025-01-01T00:00:00Z')).toEqual({
      item: { url: null, title: null, snippet: 'about n', source: 'web', fetched_at: '2025-01-01T00:00:00Z', score: null },
      cut: false,
    });
  });

  it('reports a budget halt partial with its reason, also before the first step', () => {
    const out = toResearchOutput(
      originOfInput(input),
      result({ status: 'failure', summary: '', failureReason: 'budget_exhausted', errors: ['cost budget spent before step 1'] }),
      { stoppedBy: null },
    );
    expect(out).toMatchObject({ status: 'partial', failure_reason: 'budget_exhausted', summary: '' });
    expect(out.delegate.notes).toEqual(['cost budget spent before step 1']);
  });

  it('keeps other failures as failures, in the contract vocabulary', () => {
    expect(toResearchOutput(originOfInput(input), result({ status: 'failure', failureReason: 'circuit_open' }))).toMatchObject({
      status: 'failure',
      failure_reason: 'agent_unavailable',
    });
    for (const r of FailureReasonSchema.options) expect(ResearchFailureReasonSchema.options).toContain(toResearchFailureReason(r));
  });

  it('trims a long summary and notes it, counts the seed duplicates and dropped citations', () => {
    const out = toResearchOutput(
      originOfInput(input),
      result({
        summary: 'S1. S2. S3. S4. S5. S6. S7.',
        evidence: [ev('again', 'https://seed.example/a'), ev('new', 'https://new.example')],
        citations: ['https://new.example', 'https://seed.example/a', 'made-up'],
        data: { answer: 42 },
      }),
    );
    expect(out.summary).toBe('S1. S2. S3. S4. S5. S6.');
    expect(out.evidence.map((e) => e.url)).toEqual(['https://new.example']);
    expect(out.citations).toEqual(['https://new.example', 'https://seed.example/a']);
    expect(out.delegate).toMatchObject({
      parent_id: 'plan_1',
      dropped: { citations: 1, seed_duplicates: 1 },
      data: { answer: 42 },
      notes: ['summary trimmed from 7 to 6 sentences'],
    });
  });
});
