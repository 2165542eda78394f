/**
 * The examples of the research-contract operations: a subtask submitted in the contract's
 * snake_case shape, its finished output and its running answer. Their fields are the
 * contract's, not the job API's, which is why they live apart from the job examples.
 */
import type { ResearchSubtaskOutput, ResearchSubtaskRequest } from '../../schemas/research-contract';
import { done, type OperationExamples } from './common';

const researchInput = {
  id: 'sub_2',
  parent_id: 'plan_7',
  question: 'Which PostgreSQL extensions speed up analytical queries?',
  rationale: 'The plan compares analytics engines; PostgreSQL needs its extension story.',
  scope: ['web'],
  budget: { latency_seconds: 120, cost_usd: 0.25, tool_calls: 10 },
  context_seed: [
    {
      url: 'https://www.postgresql.org/docs/current/parallel-query.html',
      title: 'Parallel Query',
      snippet: 'PostgreSQL can devise query plans that leverage multiple CPUs.',
      source: 'web',
    },
  ],
  stop_conditions: ['evidence >= 3', 'budget exhausted'],
  agent: 'researcher',
} satisfies ResearchSubtaskRequest;
const researchOutput: ResearchSubtaskOutput = {
  id: 'sub_2',
  status: 'success',
  summary:
    'Columnar storage extensions such as Citus columnar and Hydra cut scan volume for analytics. TimescaleDB adds compression and continuous aggregates. pg_duckdb hands analytical queries to an embedded DuckDB engine.',
  evidence: [
    {
      url: 'https://docs.citusdata.com/en/stable/admin_guide/table_management.html',
      title: 'Columnar storage',
      snippet: 'Citus columnar tables store data by column, which compresses well and speeds up scans.',
      source: 'web',
      fetched_at: done,
      score: 0.82,
    },
  ],
  citations: ['https://docs.citusdata.com/en/stable/admin_guide/table_management.html'],
  follow_ups: ['How does pg_duckdb handle writes?'],
  metrics: { latency_ms: 4210, cost_usd: 0.04, tool_calls: 3, channels_hit: ['web'] },
  failure_reason: null,
  delegate: {
    parent_id: 'plan_7',
    job_id: 'a1d3c6e0-6b1f-4a53-9d1e-2f4f2b7c9e10',
    agent_id: 'researcher',
    confidence: 0.8,
    tokens: 2400,
    stopped_by: 'evidence >= 3',
    dropped: { citations: 0, seed_duplicates: 1 },
    notes: [],
  },
};
const researchRunning = {
  id: 'sub_2',
  job_id: 'a1d3c6e0-6b1f-4a53-9d1e-2f4f2b7c9e10',
  status: 'running',
  links: {
    self: 'https://delegate.example.com/v1/subtasks/a1d3c6e0-6b1f-4a53-9d1e-2f4f2b7c9e10',
    job: 'https://delegate.example.com/v1/jobs/a1d3c6e0-6b1f-4a53-9d1e-2f4f2b7c9e10',
    temporalUi: '',
  },
};

/** The research-contract operations' examples, by operationId. */
export const RESEARCH_EXAMPLES: Record<string, OperationExamples> = {
  submitResearchSubtask: { request: researchInput, responses: { 200: researchOutput, 202: researchRunning } },
  getResearchSubtask: { responses: { 200: researchOutput, 202: researchRunning } },
};
