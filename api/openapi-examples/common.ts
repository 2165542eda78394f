/**
 * What the areas' examples share: the shape of an operation's examples, the times, ledger,
 * links and metrics of the one example job (compare-dbs-1), and its spec, which both the
 * submit and the estimate operations take. One job told the same way everywhere lets a reader
 * follow it from submission to result across the document.
 */
import type { z } from 'zod';
import type { JobSpecSchema, Ledger } from '../../schemas';

/** An operation's examples: the JSON request body and the answer per status (an error status without one gets a generic problem). */
export interface OperationExamples {
  request?: unknown;
  responses: Record<string, unknown>;
}

/** When the example job started. */
export const at = '2026-03-02T10:15:00.000Z';
/** When the example job finished. */
export const done = '2026-03-02T10:15:04.210Z';
/** One budget axis of a ledger with nothing reserved. */
export const axis = (limit: number | null, spent: number) => ({
  limit,
  spent,
  reserved: 0,
  remaining: limit === null ? null : limit - spent,
});
/** The example job's ledger: $1 budget, two cents spent. */
export const ledger: Ledger = {
  costUsd: axis(1, 0.02),
  tokens: axis(null, 200),
  toolCalls: axis(null, 0),
  latencySeconds: axis(null, 4.2),
};
/** A job's links, as its answers carry them. */
export const links = (jobId: string) => ({
  self: `https://delegate.example.com/v1/jobs/${jobId}`,
  result: `https://delegate.example.com/v1/jobs/${jobId}/result`,
  temporalUi: `http://localhost:8233/namespaces/default/workflows/job%2Facme%2F${jobId}`,
});
/** One subtask's metrics (the job's are these summed). */
export const metrics = {
  latencyMs: 2100,
  costUsd: 0.01,
  tokens: 100,
  inputTokens: 80,
  outputTokens: 20,
  cachedInputTokens: 0,
  toolCalls: 0,
  steps: 1,
  attempts: 1,
  channelsHit: [],
};

/** The example job's spec: a fanout of two research tasks. */
export const spec = {
  jobId: 'compare-dbs-1',
  pattern: 'fanout',
  objective: 'Compare two databases for analytics',
  tasks: [
    {
      id: 'pg',
      question: 'Strengths of PostgreSQL for analytics?',
      agent: 'researcher',
      budget: { costUsd: 0.5 },
      // past 80% of its budget, its remaining steps go to the cheapest agent measured at 0.9 or better
      downshift: { ladder: ['researcher', 'researcher-mini'], qualityFloor: 0.9 },
    },
    { id: 'ch', question: 'Strengths of ClickHouse for analytics?', agent: { capability: 'research' } },
  ],
  budget: { costUsd: 1 },
  // an identical subtask that succeeded in the last day is served from the record at $0
  cache: { ttlSeconds: 86_400, scope: 'tenant' },
  labels: { team: 'data' },
} satisfies z.input<typeof JobSpecSchema>;
