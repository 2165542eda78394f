/**
 * The record's retention as a Temporal Schedule, one per deployment (its record), created at
 * worker start whichever of its workers starts first (the others update it to their
 * configuration): operators see, pause and trigger it in the Temporal UI like any schedule.
 * Deployments sharing a namespace each keep their own.
 */
import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptions,
} from '@temporalio/client';
import type { PruneInput } from '../activities';
import type { Config } from '../schemas';
import type { pruneArchive } from '../workflows/prune-archive';
import { PRUNE_SCHEDULE_ID, pruneScheduleId } from '../core/prune-schedule';

// named in core/ so the API (delegate doctor) reads the schedule without importing a worker module
export { PRUNE_SCHEDULE_ID, pruneScheduleId };

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

/** Creates the deployment's prune schedule, or brings an existing one to this configuration. */
export async function ensurePruneSchedule(client: Client, config: Config, deploymentId: string): Promise<'created' | 'updated'> {
  const id = pruneScheduleId(deploymentId);
  const options = {
    scheduleId: id,
    spec: { intervals: [{ every: config.DELEGATE_RECORD_PRUNE_EVERY as `${number}h` }] },
    action: {
      type: 'startWorkflow',
      workflowType: 'pruneArchive',
      taskQueue: config.DELEGATE_TASK_QUEUE,
      args: [pruneInputOf(config)] as Parameters<typeof pruneArchive>,
      // the server appends each run's time: runs never collide
      workflowId: id,
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
      .getHandle(id)
      .update((prev) => ({ ...prev, spec: options.spec, action: options.action, policies: options.policies }));
    return 'updated';
  }
}

/**
 * The namespace's schedule of older releases (`PRUNE_SCHEDULE_ID`), once this deployment has its own: deleted
 * when it starts its runs on `taskQueue` (it was this deployment's, and would prune a second time), kept when
 * it serves another queue (another deployment's older release owns it).
 */
export async function retireLegacyPruneSchedule(client: Client, taskQueue: string): Promise<'deleted' | 'kept' | 'none'> {
  const handle = client.schedule.getHandle(PRUNE_SCHEDULE_ID);
  const legacy = await handle.describe().catch((err: unknown) => {
    if (err instanceof ScheduleNotFoundError) return undefined;
    throw err;
  });
  if (!legacy) return 'none';
  if (legacy.action.type !== 'startWorkflow' || legacy.action.taskQueue !== taskQueue) return 'kept';
  await handle.delete();
  return 'deleted';
}
