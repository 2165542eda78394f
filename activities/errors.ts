import { ApplicationFailure } from '@temporalio/activity';
import { ErrorType } from '../schemas/errors';
import { redact } from './redact';

/** An agent failure another attempt may fix (retried with backoff). */
export class AgentRetryableError extends Error {
  override readonly name = 'AgentRetryableError';
}

/** An agent failure no retry will fix. */
export class AgentFatalError extends Error {
  override readonly name = 'AgentFatalError';
}

/** Turns anything an agent threw into an ApplicationFailure whose type the workflow branches on. */
export function toFailure(err: unknown, attempt: number): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  // an agent's own error may quote a URL or a key: the message goes into results and histories
  const message = redact(err instanceof Error ? err.message : String(err));
  if (err instanceof AgentFatalError) {
    return ApplicationFailure.create({ type: ErrorType.AgentFatal, message, nonRetryable: true, details: [{ attempt }] });
  }
  return ApplicationFailure.create({ type: ErrorType.AgentError, message, details: [{ attempt }] });
}

/** A non-retryable failure of the given type, carrying the attempt for the subtask's metrics. */
export function fatal(type: ErrorType, message: string, attempt = 1): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true, details: [{ attempt }] });
}
