/**
 * The examples of the job operations: submit and estimate, read, list, replay and compare,
 * stop, cancel, budget top-ups, model switch, events and steering. All tell the one job of
 * common.ts, so its view, result and comparison agree with the spec that started it.
 */
import type { BudgetTopUp, Estimate, JobPage, JobResult, JobView } from '../../schemas';
import type { JobComparison, ReplayRequest } from '../../schemas/replay';
import { at, axis, ledger, links, metrics, spec, type OperationExamples } from './common';

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

/** The job operations' examples, by operationId. */
export const JOB_EXAMPLES: Record<string, OperationExamples> = {
  estimateJob: { request: spec, responses: { 200: estimate } },
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
  steerSubtask: {
    request: { text: 'focus on releases after 2024', from: 'parent' },
    responses: { 202: { taskId: 'pg', workflowId: 'job/acme/compare-dbs-1/pg', status: 'queued' } },
  },
};
