/**
 * The step's event writer: `subtask.retried`, `subtask.step` and its progress notes, appended
 * to the root job's stream in the record. The stream must match the result, so a refused write
 * is tried again, and one the record keeps refusing fails the attempt (retryable) rather than
 * vanish from the stream; a retry after an unacknowledged commit writes an event once (its key).
 *
 *   step ──tell(event)──> appendUntilWritten (100 ms doubling to 2 s, within 60 s) ──> record: job events
 */
import pRetry from 'p-retry';
import { log } from '@temporalio/activity';
import type { JobEvents } from '../../record';
import type { NewJobEvent } from '../../schemas';
import type { EventTarget } from '../../contracts/step';
import { toFailure } from '../errors';

/** How long a step keeps trying to write one of its events before its attempt fails. */
const EVENT_RETRY_MS = 60_000;

/**
 * Appends `list` to a job's stream, trying again with backoff (100 ms doubling to 2 s, up to
 * EVENT_RETRY_MS; the step heartbeats meanwhile) while the record refuses (locked, connection
 * lost), as Temporal retries the job's lifecycle events. A written event is skipped by its key: a
 * retry after an unacknowledged commit writes it once.
 */
async function appendUntilWritten(
  events: JobEvents,
  tenant: string,
  jobId: string,
  list: NewJobEvent[],
  cancelled: AbortSignal,
): Promise<void> {
  await pRetry(() => events.append(tenant, jobId, list), {
    retries: Number.POSITIVE_INFINITY,
    minTimeout: 100,
    maxTimeout: 2000,
    maxRetryTime: EVENT_RETRY_MS,
    shouldRetry: () => !cancelled.aborted,
    onFailedAttempt: ({ error, attemptNumber }) =>
      log.warn('job event not written yet; trying again', { jobId, type: list[0]?.type, attempt: attemptNumber, error: String(error) }),
  });
}

/** Writes one event of the step (nothing when the step has no stream or the worker no record). */
export type Tell = (e: NewJobEvent) => Promise<void>;

/** The event writer of one attempt: to `target` in `events`, until written or the attempt is cancelled. */
export function eventWriter(events: JobEvents | undefined, target: EventTarget | undefined, cancelled: AbortSignal, attempt: number): Tell {
  return async (e) => {
    if (!target || !events) return;
    const { tenant, jobId } = target;
    try {
      await appendUntilWritten(events, tenant, jobId, [e], cancelled);
    } catch (err) {
      throw toFailure(new Error(`job event ${e.type} not written to the record: ${String(err)}`), attempt);
    }
  };
}
