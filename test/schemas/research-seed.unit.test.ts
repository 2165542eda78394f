/** `context_seed` as the contract types it (`list[dict]`): a plain slim dict with no `source` is an item. */
import { describe, expect, it } from 'vitest';
import { ResearchSubtaskInputSchema } from '../../schemas/research-contract';
import { seedEvidence } from '../../schemas/research-mapping';
import { toTaskPlan } from '../../schemas/research-plan';

const base = { id: 'sub_1', question: 'q', budget: { latency_seconds: 60, cost_usd: 1, tool_calls: 5 } };

describe('context_seed items', () => {
  it('take a plain {url, title, snippet} and a bare {snippet}: source "web" with a url, "context" without', () => {
    const input = ResearchSubtaskInputSchema.parse({
      ...base,
      context_seed: [
        { url: 'https://a.example/x', title: 'A', snippet: 'from the web' },
        { snippet: 'from the conversation' },
        { snippet: 's', source: 'notes' },
      ],
    });
    expect(seedEvidence(input)).toEqual([
      { id: 'seed_1', source: 'web', url: 'https://a.example/x', title: 'A', snippet: 'from the web' },
      { id: 'seed_2', source: 'context', snippet: 'from the conversation' },
      { id: 'seed_3', source: 'notes', snippet: 's' },
    ]);
    expect(toTaskPlan(input).task.contextSeed?.map((e) => e.source)).toEqual(['web', 'context', 'notes']);
  });

  it('still refuses unknown keys and an empty source, at their paths', () => {
    const r = ResearchSubtaskInputSchema.safeParse({
      ...base,
      context_seed: [
        { snippet: 's', fetchedAt: 'x' },
        { snippet: 's', source: '' },
      ],
    });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path)).toEqual([
      ['context_seed', 0],
      ['context_seed', 1, 'source'],
    ]);
  });
});
