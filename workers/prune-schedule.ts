/**
 * The record's retention as a Temporal Schedule, created at worker start whichever worker
 * starts first (the others update it to their configuration): operators see, pause and
 * trigger it in the Temporal UI like any schedule.
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleOptions } from '@temporalio/client';
import type { PruneInput } from '../activities';
import type { Config } from '../schemas';
import type { pruneArchive } from '../workflows/prune-archive';

/** The schedule's id (one per namespace). */
export const PRUNE_SCHEDULE_ID = 'delegate-record-prune';

/** The prune run the configuration asks for. */
export function pruneInputOf(
  config: Pick<Config, 'DELEGATE_RECORD_MAX_AGE_DAYS' | 'DELEGATE_RECORD_KEEP_LABELS' | 'DELEGATE_RECORD_PRUNE_DRY_RUN'>,
): PruneInput {
  return {
    maxAgeDays: config.DELEGATE_RECORD_MAX_AGE_DAYS,
    keepLabels: config.DELEGATE_RECORD_KEEP_LABELS,
    dryRun: config.DELEGATE_RECORD_PRUNE_DRY_RUN,
  };
}

/** Creates the prune schedule, or brings an existing one to this configuration. */
export async function ensurePruneSchedule(client: Client, config: Config): Promise<'created' | 'updated'> {
  const options = {
    scheduleId: PRUNE_SCHEDULE_ID,
    spec: { intervals: [{ every: config.DELEGATE_RECORD_PRUNE_EVERY as `${number}h` }] },
    action: {
      type: 'startWorkflow',
      workflowType: 'pruneArchive',
      taskQueue: config.DELEGATE_TASK_QUEUE,
      args: [pruneInputOf(config)] as Parameters<typeof pruneArchive>,
      // the server appends each run's time: runs never collide
      workflowId: PRUNE_SCHEDULE_ID,
      workflowRunTimeout: '1 hour',
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
  } satisfies ScheduleOptions;
  try {
    await client.schedule.create(options);
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule
      .getHandle(PRUNE_SCHEDULE_ID)
      .update((prev) => ({ ...prev, spec: options.spec, action: options.action, policies: options.policies }));
    return 'updated';
  }
}
