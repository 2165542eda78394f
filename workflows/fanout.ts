/**
 * Fan-out: every task runs in parallel (at most `maxParallel` at once), results are
 * aggregated when the last one is in, or as soon as the quorum is reached.
 *
 *            ┌─> task 1 ─┐
 *   job ─────┼─> task 2 ─┼──> aggregate (merge | best_confidence | first_success)
 *            └─> task n ─┘    quorum reached? cancel the rest
 */
import { condition } from '@temporalio/workflow';
import { effectiveQuorum, fanoutOutput, fanoutStatus } from './aggregate';
import { DEFAULT_MAX_PARALLEL, type JobRuntime } from './job-runtime';
import type { PatternOutcome } from './patterns';

/** Runs the tasks of a fan-out job. */
export async function runFanout(rt: JobRuntime): Promise<PatternOutcome> {
  const { spec } = rt;
  const quorum = effectiveQuorum(spec.aggregation);
  const maxParallel = spec.maxParallel ?? DEFAULT_MAX_PARALLEL;
  let succeeded = 0;
  let quorumReached = false;
  const inFlight: Promise<unknown>[] = [];
  for (const task of spec.tasks) {
    await condition(() => rt.active < maxParallel || rt.halted || quorumReached);
    if (rt.halted || quorumReached) break;
    inFlight.push(
      rt.runTask(task).then((r) => {
        if (r.status !== 'success' || quorum === undefined || quorumReached) return;
        if (++succeeded >= quorum) {
          quorumReached = true;
          rt.cancelSome([...rt.running.keys()]);
        }
      }),
    );
  }
  await Promise.all(inFlight);
  if (quorumReached) rt.recordNotRun('cancelled', 'not started: quorum reached');
  const results = rt.completed;
  return {
    status: fanoutStatus(results, spec.aggregation, spec.tasks.length),
    output: fanoutOutput(results, spec.aggregation, spec.tasks.map((t) => t.id)),
  };
}
