/**
 * Fan-out: every task runs in parallel (at most `maxParallel` at once), results are
 * aggregated when the last one is in, or as soon as the quorum is reached.
 *
 *            ┌─> task 1 ─┐
 *   job ─────┼─> task 2 ─┼──> aggregate (merge | best_confidence | first_success)
 *            └─> task n ─┘    quorum reached? cancel the rest
 */
import { condition } from '@temporalio/workflow';
import { batchedOutput, effectiveQuorum, fanoutOutput, fanoutStatus, mergeOutputs } from './aggregate';
import { DEFAULT_MAX_PARALLEL, type JobRuntime } from '../job/runtime';
import { flattenBatches, realTaskCount } from './batching';
import type { PatternOutcome } from './outcome';

/** Runs the tasks of a fan-out job. */
export async function runFanout(rt: JobRuntime): Promise<PatternOutcome> {
  const { spec } = rt;
  const quorum = effectiveQuorum(spec.aggregation);
  const maxParallel = spec.maxParallel ?? DEFAULT_MAX_PARALLEL;
  let succeeded = 0;
  let quorumReached = false;
  const inFlight: Promise<unknown>[] = [];
  const room = () => rt.children.inFlightCount() < maxParallel || rt.halted || quorumReached;
  for (const task of spec.tasks) {
    // a wait only when there is no room: each awaited condition costs the workflow thread promises
    if (!room()) await condition(room);
    if (rt.halted || quorumReached) break;
    inFlight.push(
      rt.runTask(task, {}, (r) => {
        if (quorum === undefined || quorumReached) return;
        // a batch of a wide fan-out counts every success inside it
        const wins = rt.records.isBatch(task.id)
          ? (rt.records.nestedResult(task.id)?.results.filter((x) => x.status === 'success').length ?? 0)
          : r.status === 'success'
            ? 1
            : 0;
        if ((succeeded += wins) >= quorum) {
          quorumReached = true;
          rt.children.cancelInFlight();
        }
      }),
    );
  }
  await Promise.all(inFlight);
  if (quorumReached) rt.recordNotRun('cancelled', 'not started: quorum reached');
  if (rt.records.batches().size === 0) {
    return {
      status: fanoutStatus(rt.records.results(), spec.aggregation, spec.tasks.length),
      output: fanoutOutput(
        rt.records.results(),
        spec.aggregation,
        spec.tasks.map((t) => t.id),
      ),
    };
  }
  // batched: judge over every real task; merge the batches' outputs (dropped later if too big for one payload)
  const all = flattenBatches(spec.tasks, rt.records.nestedResults());
  const merge = (spec.aggregation?.strategy ?? 'merge') === 'merge';
  const nested = (ids: string[]) => ids.map((id) => rt.records.nestedResult(id)).filter((n) => n !== undefined);
  // a merged output keys its tasks in task order, as a flat job's does; first_success takes the batch that finished first
  const output = merge
    ? mergeOutputs(nested(spec.tasks.map((t) => t.id)).map((b) => b.output))
    : batchedOutput(nested(rt.records.results().map((r) => r.id)), spec.aggregation);
  return { status: fanoutStatus(all, spec.aggregation, realTaskCount(spec.tasks, rt.records.batches())), output };
}
