import { ApplicationFailure } from '@temporalio/activity';
import { ErrorType } from '../core/errors';
import type { ThrottleReason } from './throttle';
import { redact } from './redact';
import type { FailureDetails } from '../contracts/step';

/** An agent failure another attempt may fix (retried with backoff). */
export class AgentRetryableError extends Error {
  override readonly name = 'AgentRetryableError';
}

/** An agent failure no retry will fix. */
export class AgentFatalError extends Error {
  override readonly name = 'AgentFatalError';
}

/**
 * The provider refused the call for now (429, Anthropic's 529, Gemini's RESOURCE_EXHAUSTED, a 503
 * with Retry-After): back-pressure, not a failure. The provider gate waits and calls again.
 */
export class AgentThrottledError extends Error {
  override readonly name = 'AgentThrottledError';
  constructor(
    message: string,
    /** Why: rate_limited, overloaded, quota_exhausted or unavailable. */
    readonly reason: ThrottleReason,
    /** The wait the provider asked for (absent: a jittered backoff). */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** The remote agent canceled the task (an A2A `canceled` state): the subtask ends as cancelled, no retry. */
export class AgentCancelledError extends Error {
  override readonly name = 'AgentCancelledError';
}

/** Turns anything an agent threw into an ApplicationFailure whose type the workflow branches on. */
export function toFailure(err: unknown, attempt: number): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  // an agent's own error may quote a URL or a key: the message goes into results and histories
  const message = redact(err instanceof Error ? err.message : String(err));
  if (err instanceof AgentCancelledError) {
    return ApplicationFailure.create({ type: ErrorType.RemoteCancelled, message, nonRetryable: true, details: [{ attempt }] });
  }
  if (err instanceof AgentFatalError) {
    return ApplicationFailure.create({ type: ErrorType.AgentFatal, message, nonRetryable: true, details: [{ attempt }] });
  }
  return ApplicationFailure.create({ type: ErrorType.AgentError, message, details: [{ attempt }] });
}

/** A non-retryable failure of the given type, carrying the attempt (and any details) for the subtask. */
export function fatal(type: ErrorType, message: string, attempt = 1, details: FailureDetails = {}): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true, details: [{ attempt, ...details }] });
}
