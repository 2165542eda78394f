/**
 * A scout job's end: its report checked and committed to the record (or its failure recorded)
 * before the job's own record is written, so the job's stream says `scout.committed` before
 * `job.finished`. Retried without end like the archive: a database that is down delays it,
 * never loses it. Jobs without `scout` (every job before scouts) emit nothing new.
 */
import { CancellationScope, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { JobResult } from '../../schemas';
import type { JobInput } from '../../contracts/job';

const { finishScout } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  summary: 'commit the scout report',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Settles the scout of a root scout job (nothing for any other job). */
export async function finishScoutJob(input: JobInput, tenant: string, result: JobResult): Promise<void> {
  if (!input.scout || workflowInfo().parent) return;
  const scout = input.scout;
  await CancellationScope.nonCancellable(() => finishScout({ tenant, scout, result: result.results[0] }));
}
