/**
 * The examples of the scout operations: prep, dispatch, read, commit, a harness's report,
 * the list, and closing a feature. They follow one scout (breaker-tuning) from its request
 * to the feature's closing notes, so its id, report and links match in every answer.
 */
import type { ScoutReport, ScoutRequest } from '../../schemas/scout';
import { at, done, type OperationExamples } from './common';

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

/** The scout operations' examples, by operationId. */
export const SCOUT_EXAMPLES: Record<string, OperationExamples> = {
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
};
