/**
 * Counting subtasks by state and outcome, one way everywhere: the job's own counts, a
 * finished job's view, a running batch's counts folded into its job's. Pure.
 */
import type { TaskResult, TaskStatus } from '../schemas/result';
import type { Progress, SubtaskState } from '../schemas/status';

/** The count keys that add up (everything but `total`). */
const PARTS = ['pending', 'running', 'completed', 'succeeded', 'partial', 'failed'] as const;

/** Counts of nothing. */
export function emptyProgress(): Progress {
  return { total: 0, pending: 0, running: 0, completed: 0, succeeded: 0, partial: 0, failed: 0 };
}

/** Adds `n` subtasks in `state` (with `status` once they have one) to `c`, in place. */
export function tally(c: Progress, state: SubtaskState, status: TaskStatus | undefined, n = 1): Progress {
  c.total += n;
  c[state] += n;
  if (status === 'success') c.succeeded += n;
  else if (status === 'partial') c.partial += n;
  else if (status === 'failure') c.failed += n;
  return c;
}

/** Counts of finished results: all completed, split by outcome. */
export function progressOfResults(results: TaskResult[]): Progress {
  const c = emptyProgress();
  for (const r of results) tally(c, 'completed', r.status);
  return c;
}

/** The job's counts with a running batch's own counts in place of its tasks all counted as running. */
export function withBatchProgress(job: Progress, batch: Progress): Progress {
  const c = { ...job, running: job.running - batch.total };
  for (const k of PARTS) c[k] += batch[k];
  return c;
}
