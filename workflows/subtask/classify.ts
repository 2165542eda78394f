/**
 * A step's (or a look-up's) failure as the loop reads it: the reason, the attempts it took,
 * its spend, and whether a re-prompt may help. Branches on the failure's `type`, never on an
 * error class of ours (STYLE 8); the SDK's own failure classes are the sandbox's.
 */
import { ActivityFailure, ApplicationFailure, CancelledFailure, isCancellation, TimeoutFailure } from '@temporalio/workflow';
import type { FailureDetails } from '../../contracts/step';
import type { FailureReason, Usage } from '../../schemas';
import { ErrorType } from '../../core/errors';
import type { StepFailure } from './step';

/** Failure reasons by the application failure's type; any other type is the agent's error. */
const REASONS: ReadonlyMap<string | undefined | null, FailureReason> = new Map([
  [ErrorType.ToolDenied, 'tool_denied'],
  [ErrorType.ApprovalRequired, 'tool_denied'],
  [ErrorType.InvalidOutput, 'invalid_output'],
  [ErrorType.NoAgent, 'no_agent'],
  [ErrorType.BudgetExceeded, 'budget_exhausted'],
  [ErrorType.CircuitOpen, 'circuit_open'],
  [ErrorType.RemoteCancelled, 'cancelled'],
]);

/** The failure reason, attempts and spend of an activity that did not complete (`maxAttempts`: its retry policy's). */
export function classify(err: unknown, maxAttempts: number): StepFailure {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (isCancellation(err)) {
    // a step that acknowledged its cancel says what it spent (agentStep throws CancelledFailure with it)
    const usage = cause instanceof CancelledFailure ? usageIn(cause.details?.[0]) : undefined;
    return { reason: 'cancelled', attempts: 1, message: 'cancelled', ...(usage ? { usage } : {}) };
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  if (cause instanceof TimeoutFailure && cause.timeoutType === 'SCHEDULE_TO_START')
    return { reason: 'agent_unavailable', attempts: 1, message };
  if (cause instanceof TimeoutFailure) {
    // a step cut by its timeout or a lost worker: the last heartbeat said what it had spent
    const usage = usageIn(cause.lastHeartbeatDetails);
    return { reason: 'timeout', attempts: maxAttempts, message: `step timed out: ${message}`, ...(usage ? { usage } : {}) };
  }
  if (cause instanceof ApplicationFailure) {
    const details = cause.details?.[0] as (FailureDetails & { attempt?: number }) | undefined;
    const reason = REASONS.get(cause.type) ?? 'agent_error';
    return {
      reason,
      attempts: details?.attempt ?? maxAttempts,
      message,
      usage: details?.usage,
      noReprompt: details?.noReprompt,
      ...(cause.type === ErrorType.ApprovalRequired ? { approvalTools: details?.tools ?? [] } : {}),
    };
  }
  return { reason: 'agent_error', attempts: maxAttempts, message };
}

/** The usage a step's heartbeat or cancellation details carry (`{usage}`), if any. */
function usageIn(details: unknown): Usage | undefined {
  const u = (details as { usage?: Usage } | undefined)?.usage;
  return u && typeof u.tokens === 'number' && typeof u.costUsd === 'number' ? u : undefined;
}
