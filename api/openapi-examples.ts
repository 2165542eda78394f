/**
 * One example per operation of the OpenAPI document (its request body, its success answers;
 * a problem+json for each error answer), the success ones typed against the schemas so an example that drifts from them fails to compile.
 * Attached to the document by operationId after the zod transform, so the routes keep their
 * schemas as they are and the examples live in one table.
 *
 *   swagger transformObject ──> document ──withExamples──> paths[…][op].requestBody/responses[…].content['application/json'].example
 */
import type { z } from 'zod';
import type { AgentManifest, BudgetTopUp, Estimate, JobPage, JobResult, JobSpecSchema, JobView, Ledger, ReportSummary } from '../schemas';
import type { ReportPageSchema } from '../schemas';
import type { ResearchSubtaskOutput, ResearchSubtaskRequest } from '../schemas/research-contract';
import type { ScoutReport, ScoutRequest } from '../schemas/scout';
import type { DoctorCheck, DoctorFix, DoctorReport } from '../schemas/doctor';
import type { JobComparison, ReplayRequest } from '../schemas/replay';

const orphanCheck: DoctorCheck = {
  id: 'orphan_scouts',
  status: 'advisory',
  count: 3,
  oldestAt: '2025-11-20T09:00:00.000Z',
  fixable: true,
  message:
    '3 scout(s) without a feature are older than 90 days (oldest 2025-11-20T09:00:00.000Z): delegate doctor --fix deletes them now, the prune schedule on its next run; scouts with a feature are kept',
};
const overdueCheck: DoctorCheck = {
  id: 'overdue_inbox',
  status: 'ok',
  count: 0,
  fixable: false,
  message: 'no approval or question is pending past its expiry',
};
const doctorReport: DoctorReport = {
  tenant: 'acme',
  checkedAt: '2026-03-02T10:15:00.000Z',
  status: 'advisory',
  checks: [orphanCheck, overdueCheck],
  prune: {
    scheduleId: 'delegate-record-prune-3f1c2a',
    exists: true,
    paused: false,
    every: '24h',
    nextRunAt: '2026-03-03T00:00:00.000Z',
    dryRun: false,
    keepLabels: ['feature'],
    jobsFinishedBefore: '2026-02-01T00:00:00.000Z',
    orphanScouts: 3,
    message:
      'next prune at 2026-03-03T00:00:00.000Z deletes 3 orphaned scout(s) of yours, and records of jobs finished before 2026-02-01T00:00:00.000Z without a label feature',
  },
};

/** An operation's examples: the JSON request body and the answer per status (an error status without one gets a generic problem). */
export interface OperationExamples {
  request?: unknown;
  responses: Record<string, unknown>;
}

const at = '2026-03-02T10:15:00.000Z';
const done = '2026-03-02T10:15:04.210Z';
const axis = (limit: number | null, spent: number) => ({ limit, spent, reserved: 0, remaining: limit === null ? null : limit - spent });
const ledger: Ledger = { costUsd: axis(1, 0.02), tokens: axis(null, 200), toolCalls: axis(null, 0), latencySeconds: axis(null, 4.2) };
const links = (jobId: string) => ({
  self: `https://delegate.example.com/v1/jobs/${jobId}`,
  result: `https://delegate.example.com/v1/jobs/${jobId}/result`,
  temporalUi: `http://localhost:8233/namespaces/default/workflows/job%2Facme%2F${jobId}`,
});
const metrics = {
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

const spec = {
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

const result: JobResult = {
  jobId: 'compare-dbs-1',
  pattern: 'fanout',
  status: 'success',
  output: { pg: 'Rich SQL, extensions, good up to a few TB.', ch: 'Columnar, very fast scans and aggregations.' },
  results: ['pg', 'ch'].map((id) => ({
    id,
    agentId: 'researcher',
    status: 'success' as const,
    summary: `What ${id} does well for analytics.`,
    evidence: [],
    citations: [],
    followUps: [],
    confidence: 0.8,
    metrics,
    failureReason: null,
    errors: [],
  })),
  evidence: [{ id: 'e1', source: 'web', url: 'https://clickhouse.com/docs', snippet: 'ClickHouse is a column-oriented database.' }],
  followUps: [],
  metrics: {
    ...metrics,
    latencyMs: 4210,
    costUsd: 0.02,
    tokens: 200,
    inputTokens: 160,
    outputTokens: 40,
    steps: 2,
    attempts: 2,
    subtasks: 2,
    savedUsd: 0,
  },
  budget: { ledger, clipped: [], refused: [] },
};

const view: JobView = {
  jobId: 'compare-dbs-1',
  workflowId: 'job/acme/compare-dbs-1',
  state: 'running',
  pattern: 'fanout',
  startedAt: at,
  progress: { total: 2, pending: 0, running: 1, completed: 1, succeeded: 1, partial: 0, failed: 0 },
  subtasks: [
    { id: 'pg', state: 'completed', workflowId: 'job/acme/compare-dbs-1/pg', agentId: 'researcher', status: 'success', metrics },
    { id: 'ch', state: 'running', workflowId: 'job/acme/compare-dbs-1/ch', agentId: 'researcher' },
  ],
  ledger,
  links: links('compare-dbs-1'),
};

const accepted = (status: string) => ({
  jobId: 'compare-dbs-1',
  workflowId: 'job/acme/compare-dbs-1',
  status,
  links: links('compare-dbs-1'),
});
const replayRequest: ReplayRequest = { agent: 'researcher-mini', tasks: ['pg'] };
const replayAccepted = {
  jobId: 'compare-dbs-1-replay-1',
  workflowId: 'job/acme/compare-dbs-1-replay-1',
  status: 'running',
  replayOf: 'compare-dbs-1',
  links: { ...links('compare-dbs-1-replay-1'), comparison: 'https://delegate.example.com/v1/jobs/compare-dbs-1-replay-1/comparison' },
};
const side = (agentId: string, costUsd: number, tokens: number, latencyMs: number) => ({
  agentId,
  status: 'success' as const,
  failureReason: null,
  costUsd,
  tokens,
  latencyMs,
});
const sideTotals = (costUsd: number, tokens: number, latencyMs: number) => ({
  status: 'success' as const,
  subtasks: 1,
  succeeded: 1,
  costUsd,
  tokens,
  latencyMs,
  jobLatencyMs: latencyMs + 60,
});
const comparison: JobComparison = {
  jobId: 'compare-dbs-1-replay-1',
  replayOf: 'compare-dbs-1',
  overrides: { agent: 'researcher-mini' },
  subtasks: [
    { taskId: 'pg', source: side('researcher', 0.01, 100, 2100), replay: side('researcher-mini', 0.0012, 96, 1300), outputsEqual: true },
  ],
  totals: {
    source: sideTotals(0.01, 100, 2100),
    replay: sideTotals(0.0012, 96, 1300),
    compared: 1,
    outputsEqual: 1,
    costRatio: 0.12,
    latencyRatio: 0.619,
  },
};
const topUp: BudgetTopUp = { add: { costUsd: 0.5 } };
/** A top-up past the axis's largest budget: refused whole at its field. */
const topUpPastMax = (whose: string) => {
  const message = `would take ${whose} costUsd limit past 1000000000; nothing changed`;
  return {
    type: 'https://delegate.dev/problems/unprocessable',
    title: 'Update rejected',
    status: 422,
    detail: message,
    errors: [{ path: 'body.add.costUsd', message }],
  };
};
const agent: AgentManifest = {
  id: 'researcher',
  version: '1.0.0',
  description: 'Answers research questions with sources',
  kind: 'http',
  capabilities: ['research'],
  inputSchema: { type: 'object' },
  limits: { timeoutSeconds: 60, maxSteps: 50 },
  retry: { maxAttempts: 3, initialIntervalSeconds: 1, backoffCoefficient: 2, maximumIntervalSeconds: 30 },
  tools: [],
};
const reports: z.output<typeof ReportPageSchema> = {
  reports: [
    {
      jobId: 'compare-dbs-1',
      workflowId: 'job/acme/compare-dbs-1',
      pattern: 'fanout',
      status: 'success',
      labels: { team: 'data' },
      objective: 'Compare two databases for analytics',
      startedAt: at,
      closedAt: done,
      subtasks: 2,
      agents: ['researcher'],
      spend: { costUsd: 0.02, tokens: 200, toolCalls: 0 },
      digest: 'What pg does well for analytics. What ch does well…',
    },
  ],
  nextPageToken: null,
  nextCursor: null,
};
const jobs: JobPage = {
  jobs: [
    {
      jobId: 'compare-dbs-2',
      workflowId: 'job/acme/compare-dbs-2',
      state: 'running',
      status: 'running',
      pattern: 'vote',
      startedAt: '2026-03-02T10:20:00.000Z',
    },
    {
      jobId: 'compare-dbs-1',
      workflowId: 'job/acme/compare-dbs-1',
      state: 'completed',
      status: 'success',
      pattern: 'fanout',
      startedAt: at,
    },
  ],
  // (startedAt, jobId) of the page's last job, opaque
  nextPageToken: 'ajEuMTc3MjQ0NjUwMDAwMC5jb21wYXJlLWRicy0x',
};
const summary: ReportSummary = {
  from: '2026-02-01T00:00:00.000Z',
  to: '2026-03-03T00:00:00.000Z',
  jobs: 1,
  subtasks: 2,
  spend: { costUsd: 0.02, tokens: 200, toolCalls: 0 },
  byStatus: [{ status: 'success', jobs: 1, costUsd: 0.02 }],
  byAgent: [{ agentId: 'researcher', subtasks: 2, costUsd: 0.02, tokens: 200, cacheHitRate: 0 }],
  byRole: [{ role: 'critic', subtasks: 4, inputTokens: 12_000, cachedInputTokens: 9_000, cacheHitRate: 0.75 }],
  topLabels: [{ label: 'team=data', jobs: 1 }],
};

/** The examples, by operationId. */
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

const scoutRequest: ScoutRequest = {
  question: 'where is the circuit breaker opened',
  scopePaths: ['activities', 'workflows'],
  parentAgent: 'claude-code',
  parentSessionId: 'sess-42',
  featureSlug: 'breaker-tuning',
  parentSessionExcerpt: 'The user wants the breaker to open after five failures instead of three; find where it opens before editing.',
};
const scoutId = 'scout-breaker-tuning-20260302-k3x9qa';
const scoutCaps = { perSession: { limit: 10, remaining: 9 }, perScope: { limit: 3, remaining: 2 } };
const scoutReport: ScoutReport = {
  id: scoutId,
  parent_agent: 'claude-code',
  parent_session_id: 'sess-42',
  parent_session_excerpt: scoutRequest.parentSessionExcerpt,
  feature_slug: 'breaker-tuning',
  question: scoutRequest.question,
  scope: { paths: ['activities', 'workflows'] },
  findings: [
    {
      file: 'activities/circuit-breaker.ts',
      line: 69,
      evidence: 's.openUntil = now() + cooldownMs;',
      relevance: 'high',
      explanation: 'failed() opens the circuit here once the failures in a row reach the threshold.',
    },
  ],
  confidence: 'high',
  recommendation: 'Change the threshold passed to createCircuitBreaker; failed() in activities/circuit-breaker.ts opens the circuit.',
  files_inspected: ['activities/circuit-breaker.ts'],
  status: 'success',
  completed_at: done,
  dropped_findings: 0,
  tokens: 231,
};
const scoutView = {
  id: scoutId,
  state: 'committed',
  jobId: scoutId,
  parentAgent: 'claude-code',
  parentSessionId: 'sess-42',
  featureSlug: 'breaker-tuning',
  question: scoutRequest.question,
  scopePaths: ['activities', 'workflows'],
  report: scoutReport,
  createdAt: at,
  committedAt: done,
};
const scoutLinks = {
  self: `https://delegate.example.com/v1/scouts/${scoutId}`,
  job: `https://delegate.example.com/v1/jobs/${scoutId}`,
  events: `https://delegate.example.com/v1/jobs/${scoutId}/events`,
};

const q = (p50: number | null, p90: number | null) => ({ p50, p90 });
const taskForecast = (id: string, agent: string, runs: number, cost: [number, number]) => ({
  id,
  kind: 'task' as const,
  agent,
  runs,
  history: runs > 0,
  basis:
    runs > 0
      ? `agent ${agent} in fanout jobs, last 30 days`
      : `no history of agent ${agent} in the last 30 days: the manifest limits and the task budget`,
  ...(runs > 0 ? { successRate: 0.95 } : {}),
  predicted: { costUsd: q(...cost), tokens: q(1800, 3100), toolCalls: q(2, 4), steps: q(3, 5), latencySeconds: q(8.4, 14.1) },
});
const estimate: Estimate = {
  job: {
    id: 'job',
    kind: 'job',
    runs: 0,
    history: false,
    basis: 'fanout of 2: 1 with history',
    predicted: { costUsd: q(0.62, 0.74), tokens: q(3600, 5300), toolCalls: q(4, 7), steps: q(6, 9), latencySeconds: q(9.8, 15.2) },
    budgetSuffices: 0.93,
    children: [taskForecast('pg', 'researcher', 42, [0.12, 0.24]), taskForecast('ch', 'researcher', 0, [0.5, 0.5])],
  },
  budgetSuffices: 0.93,
  byAxis: { costUsd: 0.93 },
  notes: [],
  samples: 1000,
  windowDays: 30,
};
/** A pending approval (an inbox item) and the same, approved. */
const approval = {
  id: '6f1c2a4e-8d0b-4f7e-9a51-3c2d1e0f9b77',
  kind: 'approval',
  reason: 'before_start',
  state: 'pending',
  jobId: 'compare-dbs-1',
  taskId: 'pg',
  workflowId: 'job/acme/compare-dbs-1/pg',
  labels: { team: 'research' },
  detail: { agentId: 'researcher' },
  onTimeout: 'fail',
  requestedAt: at,
  expiresAt: '2026-03-03T10:15:00.000Z',
  tokenUrl: 'https://delegate.example.com/v1/approvals/token/eyJ0IjoiYWNtZSIs….Qm9v…',
};
const { tokenUrl: _link, ...approvalSeen } = approval;
const decided = { ...approvalSeen, state: 'approved', decidedAt: done, decidedBy: 'key:acme', note: 'within the quarter budget' };
const { note: _note, ...decidedByToken } = decided;

export const OPENAPI_EXAMPLES: Record<string, OperationExamples> = {
  estimateJob: { request: spec, responses: { 200: estimate } },
  prepScout: {
    request: scoutRequest,
    responses: {
      200: {
        id: scoutId,
        prompt: 'You are a read-only code scout…',
        scopePaths: ['activities', 'workflows'],
        tools: ['read_file', 'grep'],
        maxTokens: 500,
        caps: { perSession: { limit: 10, remaining: 10 }, perScope: { limit: 3, remaining: 3 } },
        report: scoutLinks.self,
      },
    },
  },
  dispatchScout: {
    request: scoutRequest,
    responses: { 201: { id: scoutId, jobId: scoutId, status: 'dispatched', caps: scoutCaps, links: scoutLinks } },
  },
  getScout: { responses: { 200: scoutView } },
  commitScout: { request: {}, responses: { 200: { committed: true, report: scoutReport, caps: scoutCaps } } },
  reportScout: {
    // the JSON a harness's own sub-agent wrote after POST /v1/scouts/prep with harness: true
    request: {
      findings: scoutReport.findings,
      confidence: scoutReport.confidence,
      recommendation: scoutReport.recommendation,
      files_inspected: scoutReport.files_inspected,
      status: scoutReport.status,
    },
    responses: { 200: { valid: true, committed: true, report: scoutReport, cut: [], caps: scoutCaps } },
  },
  closeFeature: {
    request: {},
    responses: {
      200: {
        featureSlug: 'breaker-tuning',
        closedAt: done,
        alreadyClosed: false,
        added: 1,
        pending: [],
        entries: [
          {
            scoutId,
            question: scoutRequest.question,
            confidence: 'high',
            recommendation: scoutReport.recommendation,
            status: 'success',
            settledAt: done,
            link: scoutLinks.self,
          },
        ],
        markdown: `# breaker-tuning\n\n- **${scoutRequest.question}** (confidence high): ${scoutReport.recommendation} [${scoutId}](${scoutLinks.self})\n`,
      },
    },
  },
  listScouts: { responses: { 200: { scouts: [scoutView], nextPageToken: null } } },
  doctor: { responses: { 200: doctorReport } },
  doctorFix: {
    request: {},
    responses: {
      200: {
        fixed: { scouts: 3 },
        report: { ...doctorReport, status: 'ok', checks: [{ ...orphanCheck, status: 'ok', count: 0, oldestAt: null }, overdueCheck] },
      } satisfies DoctorFix,
    },
  },
  submitResearchSubtask: { request: researchInput, responses: { 200: researchOutput, 202: researchRunning } },
  getResearchSubtask: { responses: { 200: researchOutput, 202: researchRunning } },
  healthz: { responses: { 200: { ok: true } } },
  readyz: { responses: { 200: { ok: true, temporal: 'localhost:7233', auth: 'on' } } },
  listAgents: {
    responses: {
      200: {
        agents: [agent],
        roles: [
          {
            id: 'review',
            agent: 'researcher',
            requiredSkills: ['review-checklist'],
            tools: ['search'],
            outputKinds: { code_review: ['review'], risk_scan: ['report'] },
            maxOutputTokens: 16384,
            maxDepth: 1,
          },
        ],
      },
    },
  },
  getAgent: {
    responses: {
      200: {
        ...agent,
        breaker: {
          state: 'open',
          consecutiveFailures: 5,
          failureThreshold: 5,
          cooldownSeconds: 30,
          openedAt: '2026-03-02T10:15:03.000Z',
          openUntil: '2026-03-02T10:15:33.000Z',
          lastFailure: { at: '2026-03-02T10:15:03.000Z', error: 'agent "researcher" answered 503' },
        },
      },
    },
  },
  submitJob: { request: spec, responses: { 201: accepted('running'), 200: accepted('existing') } },
  listJobs: { responses: { 200: jobs } },
  getJob: { responses: { 200: view } },
  getJobResult: { responses: { 200: result, 202: view } },
  replayJob: { request: replayRequest, responses: { 202: replayAccepted } },
  getJobComparison: { responses: { 200: comparison, 202: { ...view, jobId: 'compare-dbs-1-replay-1' } } },
  stopJob: { request: { reason: 'enough is known' }, responses: { 202: accepted('stopping') } },
  cancelJob: { request: { reason: 'no longer needed' }, responses: { 202: accepted('cancelling') } },
  topUpJobBudget: {
    request: topUp,
    responses: {
      200: { jobId: 'compare-dbs-1', ledger: { ...ledger, costUsd: axis(1.5, 0.02) } },
      409: {
        type: 'https://delegate.dev/problems/conflict',
        title: 'Conflict',
        status: 409,
        detail: 'the job has no limit on tokens to raise; nothing changed',
      },
      422: topUpPastMax("the job's"),
    },
  },
  setJobModel: {
    request: { model: 'gpt-4.1-mini', maxOutputTokens: 4096 },
    responses: { 200: { jobId: 'compare-dbs-1', model: 'gpt-4.1-mini', maxOutputTokens: 4096 } },
  },
  topUpSubtaskBudget: {
    request: topUp,
    responses: {
      200: { taskId: 'ch', granted: { costUsd: 0.5 }, ledger: { ...ledger, costUsd: axis(1, 0.02) } },
      422: topUpPastMax('subtask "ch"\'s'),
    },
  },
  getWebhookSecret: { responses: { 200: { tenant: 'acme', scheme: 'standard', secret: 'whsec_O7Hx…(44 base64 characters)' } } },
  streamJobEvents: {
    responses: {
      200: [
        'id: 1\nevent: job.started\ndata: {"seq":1,"type":"job.started","at":"2026-11-30T10:00:00.000Z","data":{"pattern":"fanout","tasks":2}}\n',
        'id: 2\nevent: subtask.started\ndata: {"seq":2,"type":"subtask.started","at":"2026-11-30T10:00:00.050Z","data":{"taskId":"pg","workflowId":"job/acme/compare-dbs-1/pg","agentId":"researcher"}}\n',
        'id: 3\nevent: subtask.step\ndata: {"seq":3,"type":"subtask.step","at":"2026-11-30T10:00:02.000Z","data":{"taskId":"pg","step":1,"attempt":1,"done":true,"usage":{"costUsd":0.01,"tokens":900,"toolCalls":1}}}\n',
        'id: 9\nevent: job.finished\ndata: {"seq":9,"type":"job.finished","at":"2026-11-30T10:00:05.000Z","data":{"status":"success"}}\n',
      ].join('\n'),
    },
  },
  searchReports: { responses: { 200: reports } },
  summarizeReports: { responses: { 200: summary } },
  listApprovals: { responses: { 200: { items: [approval] } } },
  getApproval: { responses: { 200: approval } },
  decideApproval: { request: { decision: 'approve', note: 'within the quarter budget' }, responses: { 200: decided } },
  getApprovalByToken: { responses: { 200: approvalSeen } },
  decideApprovalByToken: { request: { decision: 'approve' }, responses: { 200: { ...decidedByToken, decidedBy: 'token' } } },
  steerSubtask: {
    request: { text: 'focus on releases after 2024', from: 'parent' },
    responses: { 202: { taskId: 'pg', workflowId: 'job/acme/compare-dbs-1/pg', status: 'queued' } },
  },
};

/** Problem titles by status, for the error answers' examples. */
const PROBLEMS: Record<string, [title: string, detail: string]> = {
  400: ['Invalid request', '1 invalid field(s) in the body'],
  401: ['Unauthorized', 'send Authorization: Bearer <key>'],
  404: ['Not found', 'no job "compare-dbs-1"'],
  409: ['Conflict', 'job "compare-dbs-1" already exists with another spec, or has already finished'],
  410: ['Gone', 'this approval link has expired'],
  415: ['Unsupported media type', 'POST routes take application/json'],
  422: ['Unprocessable', 'no agent has capability "research"'],
  429: ['Too many requests', 'at most 100 requests a minute; retry after 12 s'],
  503: ['Temporal unavailable', 'the workflow service did not answer; retry'],
};

/** A problem+json example for an error status. */
function problemExample(status: string) {
  const [title, detail] = PROBLEMS[status] ?? ['Error', 'the request failed'];
  const slug = title.toLowerCase().replace(/ /g, '-');
  return {
    type: `https://delegate.dev/problems/${status === '503' ? 'unavailable' : slug}`,
    title,
    status: Number(status),
    detail,
    ...(status === '400' ? { errors: [{ path: 'body.tasks[0].agent', message: 'a task needs an agent or a job' }] } : {}),
  };
}

type Doc = { paths?: Record<string, Record<string, { operationId?: string; requestBody?: Media; responses?: Record<string, Media> }>> };
type Media = { content?: Record<string, { example?: unknown }> };

/** Wraps swagger's `transformObject`: the document it builds, with each operation's examples attached. */
export function withExamples<I, O>(transformObject: (input: I) => O): (input: I) => O {
  return (input) => {
    const doc = transformObject(input) as Doc;
    for (const ops of Object.values(doc.paths ?? {})) {
      for (const op of Object.values(ops)) {
        const ex = op.operationId ? OPENAPI_EXAMPLES[op.operationId] : undefined;
        if (!ex) continue;
        const body = op.requestBody?.content?.['application/json'];
        if (body && ex.request !== undefined) body.example = ex.request;
        for (const [status, res] of Object.entries(op.responses ?? {})) {
          const media = res.content?.['application/json'] ?? res.content?.['application/problem+json'];
          const value = ex.responses[status] ?? (Number(status) >= 400 ? problemExample(status) : undefined);
          if (media && value !== undefined) media.example = value;
        }
      }
    }
    return doc as O;
  };
}
