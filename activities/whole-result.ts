/**
 * The whole result of a job from Temporal: a spilled result lists its batches (children
 * that keep their own results); they are fetched here (recursively, a few at once) and
 * stitched by the pure `stitchBatches`. The API reads jobs without a record this way, the
 * archive activity before it writes one.
 */
import type { Client } from '@temporalio/client';
import type { JobResult, TaskResult } from '../schemas';
import type { DelegationJobWorkflow } from '../contracts/job';
import { batchesToFetch, stitchBatches } from '../core/stitching';
import type { SubtaskWorkflow } from '../contracts/subtask';

/** Children fetched at once while stitching. */
const FETCH_AT_ONCE = 8;

/** `r` with every spilled child's result fetched and stitched in; `onFetched` after each group (heartbeats). */
export async function wholeResult(client: Client, r: JobResult, onFetched?: () => void): Promise<JobResult> {
  const tasks = new Map<string, TaskResult>();
  const jobs = new Map<string, JobResult>();
  const todo = batchesToFetch(r);
  for (let i = 0; i < todo.length; i += FETCH_AT_ONCE) {
    await Promise.all(
      todo.slice(i, i + FETCH_AT_ONCE).map(async (b) => {
        if (b.kind === 'subtask') tasks.set(b.id, await client.workflow.getHandle<SubtaskWorkflow>(b.workflowId).result());
        else
          jobs.set(
            b.id,
            await wholeResult(client, await client.workflow.getHandle<DelegationJobWorkflow>(b.workflowId).result(), onFetched),
          );
      }),
    );
    onFetched?.();
  }
  return stitchBatches(r, { tasks, jobs });
}
