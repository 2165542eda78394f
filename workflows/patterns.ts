/** What a pattern hands back to the job workflow. */
import type { JobOutcome, VoteOutcome } from '../schemas';

/** A pattern's verdict: status, output and, for votes, the vote block. */
export interface PatternOutcome {
  status: JobOutcome;
  output: unknown;
  vote?: VoteOutcome;
}
