/** What a pattern hands back to the job workflow, and what patterns share. */
import { CancellationScope } from '@temporalio/workflow';
import type { JobOutcome, VoteOutcome } from '../schemas';

/** A pattern's verdict: status, output and, for votes, the vote block. */
export interface PatternOutcome {
  status: JobOutcome;
  output: unknown;
  vote?: VoteOutcome;
}

/**
 * Waits for `p`, or rejects as soon as the job is cancelled. Children's results are
 * awaited non-cancellably (so none is lost), which alone would leave a Temporal cancel of
 * the job unheard while a pattern waits on them; the job workflow turns this rejection
 * into a hard stop of every child.
 */
export function untilCancelled<T>(p: Promise<T>): Promise<T> {
  return Promise.race([p, CancellationScope.current().cancelRequested]);
}
