/**
 * The examples of the operations over what jobs left behind and what they wait on: the
 * report search and summary of finished jobs, and the approval inbox (by key and by token
 * link). The approval is shown pending, then approved, with the fields each route drops.
 */
import type { z } from 'zod';
import type { ReportPageSchema, ReportSummary } from '../../schemas';
import { at, done, type OperationExamples } from './common';

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

/** The report and approval operations' examples, by operationId. */
export const REPORT_AND_APPROVAL_EXAMPLES: Record<string, OperationExamples> = {
  searchReports: { responses: { 200: reports } },
  summarizeReports: { responses: { 200: summary } },
  listApprovals: { responses: { 200: { items: [approval] } } },
  getApproval: { responses: { 200: approval } },
  decideApproval: { request: { decision: 'approve', note: 'within the quarter budget' }, responses: { 200: decided } },
  getApprovalByToken: { responses: { 200: approvalSeen } },
  decideApprovalByToken: { request: { decision: 'approve' }, responses: { 200: { ...decidedByToken, decidedBy: 'token' } } },
};
