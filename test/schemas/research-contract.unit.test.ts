import { describe, expect, it } from 'vitest';
import { TaskSpecSchema, type TaskResult } from '../../schemas';
import { ResearchSubtaskInputSchema, ResearchSubtaskOutputSchema, type ResearchSubtaskRequest } from '../../schemas/research-contract';
import { toResearchOutput } from '../../core/research-output';
import { originOfInput } from '../../schemas/research-mapping';
import { toTaskPlan } from '../../schemas/research-plan';

/** A subtask as a planner writes it, every contract field set (PROTOCOLS.md §1). */
const example: ResearchSubtaskRequest = {
  id: 'sub_1a',
  parent_id: 'plan_7',
  question: 'Which open-source vector databases support hybrid (BM25 + dense) search natively?',
  rationale: 'The parent compares retrieval stacks; hybrid search decides the shortlist.',
  scope: ['web', 'github'],
  budget: { latency_seconds: 120, cost_usd: 0.25, tool_calls: 12 },
  context_seed: [
    {
      url: 'https://weaviate.io/hybrid',
      title: 'Hybrid search',
      snippet: 'Weaviate combines BM25 and vectors.',
      source: 'web',
      fetched_at: '2025-01-02T03:04:05Z',
      score: 0.9,
    },
  ],
  stop_conditions: ['evidence >= 5', 'confidence >= 0.8', 'budget exhausted', 'answer rubrics satisfied'],
};

const result: TaskResult = {
  id: 'sub_1a',
  agentId: 'web-research',
  status: 'success',
  summary:
    'Three databases support hybrid search natively. Weaviate and Qdrant fuse BM25 with dense scores. Milvus added sparse vectors in 2.4.',
  evidence: [
    {
      id: 'e1',
      source: 'web',
      title: 'Qdrant hybrid',
      url: 'https://qdrant.tech/hybrid',
      snippet: 'Qdrant fuses sparse and dense.',
      score: 0.8,
    },
    { id: 'e2', source: 'github', url: 'https://github.com/milvus-io/milvus', snippet: 'Sparse vectors since 2.4.' },
    { id: 'e3', source: 'web', url: 'https://weaviate.io/hybrid/', snippet: 'Weaviate combines BM25 and vectors.' },
  ],
  citations: ['https://qdrant.tech/hybrid', 'e2', 'https://weaviate.io/hybrid', 'https://made-up.example/x'],
  followUps: ['Does Milvus hybrid search rerank?'],
  confidence: 0.85,
  metrics: { latencyMs: 4200, costUsd: 0.04, tokens: 9000, toolCalls: 5, steps: 2, attempts: 2, channelsHit: ['web', 'github'] },
  failureReason: null,
  errors: [],
};

describe('research-subtask contract', () => {
  it('round-trips the full example: input to a valid TaskSpec, its result to a valid output', () => {
    const input = ResearchSubtaskInputSchema.parse(JSON.parse(JSON.stringify(example)));
    const plan = toTaskPlan(input);
    expect(TaskSpecSchema.parse(plan.task)).toEqual(plan.task);
    expect(plan.task).toMatchObject({
      id: 'sub_1a',
      agent: { route: 'semantic', hint: 'channels: web, github' },
      scope: ['web', 'github'],
      budget: { latencySeconds: 120, costUsd: 0.25, toolCalls: 12 },
      stopConditions: example.stop_conditions,
      contextSeed: [{ id: 'seed_1', source: 'web', url: 'https://weaviate.io/hybrid', title: 'Hybrid search', score: 0.9 }],
    });
    expect(plan.labels).toEqual({ contract: 'research-subtask', parent_id: 'plan_7' });
    expect(plan.task.research?.priority).toBe(1);

    const out = toResearchOutput(originOfInput(input), result, { stoppedBy: 'confidence >= 0.8', receivedAt: '2025-01-02T03:05:00Z' });
    expect(ResearchSubtaskOutputSchema.parse(JSON.parse(JSON.stringify(out)))).toEqual(out);
    expect(out).toMatchObject({
      id: 'sub_1a',
      status: 'success',
      follow_ups: ['Does Milvus hybrid search rerank?'],
      metrics: { latency_ms: 4200, cost_usd: 0.04, tool_calls: 5, channels_hit: ['web', 'github'] },
      failure_reason: null,
      delegate: {
        parent_id: 'plan_7',
        agent_id: 'web-research',
        stopped_by: 'confidence >= 0.8',
        tokens: 9000,
        dropped: { citations: 1, seed_duplicates: 1 },
      },
    });
    // the seed's page came back with a trailing slash: dropped, still citable through the seed
    expect(out.evidence.map((e) => e.url)).toEqual(['https://qdrant.tech/hybrid', 'https://github.com/milvus-io/milvus']);
    expect(out.citations).toEqual(['https://qdrant.tech/hybrid', 'https://github.com/milvus-io/milvus', 'https://weaviate.io/hybrid']);
    expect(out.evidence[1]).toEqual({
      url: 'https://github.com/milvus-io/milvus',
      title: null,
      snippet: 'Sparse vectors since 2.4.',
      source: 'github',
      fetched_at: '2025-01-02T03:05:00Z',
      score: null,
    });
  });

  it('fills the defaults a harness may leave out', () => {
    const input = ResearchSubtaskInputSchema.parse({ id: 's', question: 'q?', budget: { latency_seconds: 1, cost_usd: 0, tool_calls: 0 } });
    expect(input).toMatchObject({ parent_id: null, context_seed: [], stop_conditions: [], priority: 1 });
    expect(toTaskPlan(input).labels).toEqual({ contract: 'research-subtask' });
    expect(toTaskPlan(input).task.agent).toEqual({ route: 'semantic' });
  });

  it("refuses unknown keys with their path, Delegate's camelCase included", () => {
    const r = ResearchSubtaskInputSchema.safeParse({
      ...example,
      contextSeed: [],
      budget: { ...example.budget, costUsd: 1 },
      context_seed: [{ ...example.context_seed![0], fetchedAt: 'x' }],
    });
    expect(r.success).toBe(false);
    const issues = r
      .error!.issues.filter((i) => i.code === 'unrecognized_keys')
      .map((i) => ({ path: i.path, keys: 'keys' in i ? i.keys : [] }));
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: [], keys: ['contextSeed'] },
        { path: ['budget'], keys: ['costUsd'] },
        { path: ['context_seed', 0], keys: ['fetchedAt'] },
      ]),
    );
    const out = toResearchOutput(originOfInput(ResearchSubtaskInputSchema.parse(example)), result);
    const bad = ResearchSubtaskOutputSchema.safeParse({ ...out, delegate: { ...out.delegate, extra: 1 } });
    expect(bad.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', path: ['delegate'], keys: ['extra'] });
  });

  it("requires the contract's budget axes and takes tokens as an extension", () => {
    const noLatency = ResearchSubtaskInputSchema.safeParse({ ...example, budget: { cost_usd: 1, tool_calls: 1 } });
    expect(noLatency.error?.issues.map((i) => i.path)).toEqual([['budget', 'latency_seconds']]);
    expect(ResearchSubtaskInputSchema.safeParse({ ...example, budget: { ...example.budget, tool_calls: 1.5 } }).success).toBe(false);
    const withTokens = ResearchSubtaskInputSchema.parse({ ...example, budget: { ...example.budget, tokens: 5000 } });
    expect(toTaskPlan(withTokens).task.budget).toEqual({ latencySeconds: 120, costUsd: 0.25, toolCalls: 12, tokens: 5000 });
  });

  it('checks stop conditions and the extensions at their paths', () => {
    const r = ResearchSubtaskInputSchema.safeParse({
      ...example,
      stop_conditions: ['evidence >= 5', 'confidence => 0.8', 'answer matches schema'],
    });
    expect(r.error?.issues.map((i) => i.path)).toEqual([['stop_conditions', 1]]);
    const noSchema = ResearchSubtaskInputSchema.safeParse({ ...example, stop_conditions: ['answer matches schema'] });
    expect(noSchema.error?.issues).toMatchObject([{ path: ['stop_conditions', 0], message: expect.stringMatching(/output_schema/) }]);
    const withSchema = ResearchSubtaskInputSchema.parse({
      ...example,
      stop_conditions: ['answer matches schema'],
      output_schema: { type: 'object' },
    });
    expect(toTaskPlan(withSchema).task.outputSchema).toEqual({ type: 'object' });
    expect(ResearchSubtaskInputSchema.safeParse({ ...example, params: { q: 1 } }).error?.issues[0]?.path).toEqual(['params']);
    expect(ResearchSubtaskInputSchema.safeParse({ ...example, parent_id: 'plan/7\n' }).error?.issues[0]?.path).toEqual(['parent_id']);
  });

  it('maps the Delegator fields: agent with params, retry_limit as retries, timeout per step', () => {
    const input = ResearchSubtaskInputSchema.parse({
      ...example,
      agent: 'sim',
      params: { steps: 2 },
      retry_limit: 0,
      timeout_seconds: 30,
      priority: 4,
      output_format: 'json',
      constraints: ['peer-reviewed only'],
    });
    const plan = toTaskPlan(input);
    expect(plan.task).toMatchObject({
      agent: 'sim',
      params: { steps: 2 },
      retry: { maxAttempts: 1 },
      timeoutSeconds: 30,
      constraints: ['peer-reviewed only'],
    });
    expect(plan.task.research).toMatchObject({ priority: 4, outputFormat: 'json' });
  });
});
