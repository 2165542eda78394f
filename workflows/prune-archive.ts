/**
 * One run of the record's retention: the prune schedule starts it (every
 * DELEGATE_RECORD_PRUNE_EVERY), `npm run record:prune` too (with --dry-run to only list).
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities, PruneInput } from '../activities';
import type { PruneOutcome } from '../record';

const { pruneRecords } = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '1 minute',
  summary: 'prune old job records',
  retry: { maximumAttempts: 5, initialInterval: '10 seconds', backoffCoefficient: 2 },
});

/** Deletes (or, dry, lists) the records past their age, keeping those with a keep-label. The name is the workflow type. */
export async function pruneArchive(input: PruneInput): Promise<PruneOutcome> {
  return pruneRecords(input);
}
