/**
 * The examples of the operations about the deployment rather than a job: the agents and
 * roles it offers, its health and readiness, and the doctor's checks and fixes. The doctor's
 * report before and after a fix differ only in what the fix changed, so one check serves both.
 */
import type { AgentManifest } from '../../schemas';
import type { DoctorCheck, DoctorFix, DoctorReport } from '../../schemas/doctor';
import type { OperationExamples } from './common';

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

/** The agent, health and doctor operations' examples, by operationId. */
export const AGENT_AND_SYSTEM_EXAMPLES: Record<string, OperationExamples> = {
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
};
