/** What a pattern hands back to the job workflow. */
import type { JobOutcome, VoteOutcome } from '../../schemas';

/** A pattern's verdict: status, output and, for votes, the vote block. */
export interface PatternOutcome {
  status: JobOutcome;
  output: unknown;
  vote?: VoteOutcome;
  /** The task whose data is the output, when it is one task's (the API re-reads it when dropped). */
  outputTaskId?: string;
}
