/**
 * Custom search attributes: listing and filtering jobs and subtasks in the API and the
 * Temporal UI. Jobs and subtasks carry the same keys, so one query finds either:
 *
 *   DelegateStatus = "failure" AND DelegateAgent = "web-search"     failed subtasks of one agent
 *   DelegateFailureReason = "budget_exhausted"                       budget halts
 *   DelegateTenant = "acme" AND ExecutionStatus = "Running"          one tenant's running work
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { TaskResult } from '../schemas/result';

/** `fanout` | `pipeline` | `vote`: the job's own pattern; on a subtask, its job's. */
export const PATTERN_KEY = defineSearchAttributeKey('DelegatePattern', SearchAttributeType.KEYWORD);
/** `running`, then the outcome: `success` | `partial` | `failure` | `cancelled` | `stopped`. */
export const STATUS_KEY = defineSearchAttributeKey('DelegateStatus', SearchAttributeType.KEYWORD);
/** The tenant that submitted the job. */
export const TENANT_KEY = defineSearchAttributeKey('DelegateTenant', SearchAttributeType.KEYWORD);
/** The job's labels as `key=value` keywords (a subtask carries its job's). */
export const LABELS_KEY = defineSearchAttributeKey('DelegateLabels', SearchAttributeType.KEYWORD_LIST);
/** The agent a subtask ran on (the reference until it is resolved, e.g. `capability:research`). */
export const AGENT_KEY = defineSearchAttributeKey('DelegateAgent', SearchAttributeType.KEYWORD);
/** Why a subtask did not succeed (`timeout`, `budget_exhausted`, ...); unset on success. */
export const FAILURE_REASON_KEY = defineSearchAttributeKey('DelegateFailureReason', SearchAttributeType.KEYWORD);

/** `name=Type` pairs, as `temporal server start-dev --search-attribute` and `operator` take them. */
export const SEARCH_ATTRIBUTE_DEFINITIONS = {
  DelegatePattern: 'Keyword',
  DelegateStatus: 'Keyword',
  DelegateTenant: 'Keyword',
  DelegateLabels: 'KeywordList',
  DelegateAgent: 'Keyword',
  DelegateFailureReason: 'Keyword',
} as const;

/** Labels as the keyword list the UI can filter on. */
export function labelKeywords(labels: Record<string, string> = {}): string[] {
  return Object.entries(labels).map(([k, v]) => `${k}=${v}`);
}

/**
 * A subtask's status as a search attribute: its outcome, except that one which did nothing
 * because it was cancelled or stopped on purpose (an early vote decision, a stop) says so
 * instead of `failure`.
 */
export function taskOutcome(r: Pick<TaskResult, 'status' | 'failureReason'>): string {
  if (r.status === 'failure' && (r.failureReason === 'cancelled' || r.failureReason === 'stopped')) return r.failureReason;
  return r.status;
}
