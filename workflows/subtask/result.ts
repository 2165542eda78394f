/**
 * The loop's end on the state: its outcome, then the TaskResult, with everything the
 * subtask produced kept (a halt keeps its work: `partial`), capped to a small payload.
 *
 *   reason null ──> success
 *   reason, work done (steps, evidence or data) ──> partial     (a budget halt also without: host rules 1)
 *   reason, nothing ──> failure (confidence 0)
 *   result ──role report──> research mapping (research tasks) ──> data dropped past MAX_RESULT_BYTES
 */
import type { AgentTry, TaskResult, TaskSpec } from '../../schemas';
import { usageOf } from '../../core/budget-ledger';
import { effectivePriority } from '../../core/priority';
import { originOfTask, toResearchOutput } from '../../core/research-output';
import { jsonBytes, notRunResult } from '../../core/task-results';
import { deprecationWarning } from '../../core/routing';
import type { HostRules } from './host-rules';
import type { StepFailure } from './step';
import { cappedErrors, cappedList, MAX_ERRORS, type SubtaskState } from './state';

/** A subtask result never passes this (Temporal refuses payloads over 2 MiB). */
export const MAX_RESULT_BYTES = 1_500_000;

/** How the loop ended: success without a halt; a skip (onTimeout "skip") partial; a halt is partial when it has work (or is a budget halt, host rules 1), failure otherwise. */
export function outcomeOf(s: SubtaskState, rules: HostRules): TaskResult['status'] {
  if (s.reason === null) return 'success';
  // an approval nobody decided, with onTimeout "skip": the task is skipped as partial, by the approver's policy
  if (s.reason === 'skipped') return 'partial';
  const hasWork = s.steps > 0 || s.evidence.length > 0 || s.data !== undefined;
  return hasWork || (rules.budgetHaltIsPartial && s.reason === 'budget_exhausted') ? 'partial' : 'failure';
}

/** The agents a task with fallbacks ran, the last one with the outcome. */
export function agentsTriedOf(s: SubtaskState, status: TaskResult['status']): AgentTry[] {
  if (s.triedAll) return s.agentsTried;
  return [...s.agentsTried, { agent: s.agentId, outcome: status, ...(s.reason ? { reason: s.reason } : {}) }];
}

/** What the result needs besides the state. */
export interface ResultContext {
  task: TaskSpec;
  rules: HostRules;
  /** The root job's id (the research mapping's `delegate.jobId`). */
  jobId: string;
  now: number;
  /** A role task's host adds its report (and may turn a decision into `partial`). */
  finishRole?: (result: TaskResult) => void;
}

/** The TaskResult of a loop that ran. */
export function taskResult(s: SubtaskState, { task, rules, jobId, now, finishRole }: ResultContext): TaskResult {
  const status = outcomeOf(s, rules);
  const reason = s.reason;
  const deprecated = s.manifest && deprecationWarning(s.manifest);
  const result: TaskResult = {
    id: task.id,
    agentId: s.agentId,
    status,
    summary: s.summary || (reason ? `no answer: ${reason}` : ''),
    data: s.data,
    evidence: s.evidence,
    // lists an agent adds to at every step are capped, so the result stays a small payload
    citations: cappedList(s.citations),
    followUps: cappedList(s.followUps),
    confidence: status === 'failure' ? 0 : s.confidence,
    metrics: {
      latencyMs: now - s.startedAt,
      ...usageOf(s.ledger.spent),
      steps: s.steps,
      attempts: s.attempts,
      channelsHit: [...s.channels],
      ...(s.throttledMs > 0 ? { throttledMs: s.throttledMs } : {}),
      ...(s.hedges > 0 ? { hedges: s.hedges, hedgeCostUsd: s.hedgeCostUsd } : {}),
    },
    failureReason: reason,
    errors: cappedErrors(s.errors),
    priority: effectivePriority(task),
    ...(s.stoppedBy !== undefined ? { stoppedBy: s.stoppedBy } : {}),
    ...(s.notes.length > 0 ? { notes: s.notes.slice(0, MAX_ERRORS) } : {}),
    ...(s.fallbacks.length > 0 ? { agentsTried: agentsTriedOf(s, status) } : {}),
    ...(s.routing ? { routing: s.routing } : {}),
    ...(deprecated ? { warnings: [deprecated] } : {}),
  };
  finishRole?.(result);
  if (task.research) {
    const ctx = { stoppedBy: s.stoppedBy ?? null, receivedAt: new Date(now).toISOString(), notes: result.notes, jobId };
    result.research = toResearchOutput(originOfTask(task), result, ctx);
  }
  if (jsonBytes(result) > MAX_RESULT_BYTES) {
    result.data = undefined;
    if (result.research) delete result.research.delegate.data;
    result.errors.push(`data dropped: the result passed ${MAX_RESULT_BYTES} bytes`);
  }
  return result;
}

/** The result of a subtask whose agent could not be resolved (and no fallback could be): it never ran a step. */
export function notResolvedResult(s: SubtaskState, task: TaskSpec, f: StepFailure, now: number): TaskResult {
  const r = notRunResult(task, f.reason, f.message);
  const tried = s.agentsTried.length > 0 ? { agentsTried: s.agentsTried, errors: s.errors.slice(0, MAX_ERRORS) } : {};
  return { ...r, metrics: { ...r.metrics, latencyMs: now - s.startedAt }, ...tried };
}
