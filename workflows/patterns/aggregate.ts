/**
 * Fan-out aggregation: pure functions from the children's results to the job's output
 * and status.
 *
 *   results (completion order) ──strategy──> output
 *                              ──counts────> success | partial | failure
 */
import type { Aggregation, JobOutcome, TaskResult } from '../../schemas';
import { progressOfResults } from '../../core/progress';

/** The quorum in force: explicit, or 1 for `first_success` (stop at the first answer). */
export function effectiveQuorum(agg: Aggregation | undefined): number | undefined {
  if (agg?.quorum !== undefined) return agg.quorum;
  return agg?.strategy === 'first_success' ? 1 : undefined;
}

/** The job's output under the aggregation strategy. `results` are in completion order. */
export function fanoutOutput(results: TaskResult[], agg: Aggregation | undefined, taskOrder: string[]): unknown {
  const strategy = agg?.strategy ?? 'merge';
  const usable = results.filter((r) => r.status !== 'failure' && r.data !== undefined);
  if (strategy === 'first_success') {
    return (results.find((r) => r.status === 'success') ?? usable[0])?.data ?? null;
  }
  if (strategy === 'best_confidence') {
    const rank = (r: TaskResult) => (r.status === 'success' ? 1 : 0);
    const order = new Map(taskOrder.map((id, i) => [id, i]));
    const best = [...usable].sort(
      (a, b) => rank(b) - rank(a) || b.confidence - a.confidence || (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0),
    )[0];
    return best?.data ?? null;
  }
  const byId = new Map(usable.map((r) => [r.id, r.data]));
  return Object.fromEntries(taskOrder.filter((id) => byId.has(id)).map((id) => [id, byId.get(id)]));
}

/** The job's status from its children's results. */
export function fanoutStatus(results: TaskResult[], agg: Aggregation | undefined, total: number): JobOutcome {
  const { succeeded, partial } = progressOfResults(results);
  const quorum = effectiveQuorum(agg);
  if (quorum !== undefined) {
    if (succeeded >= quorum) return 'success';
    return agg?.minSuccess !== undefined && succeeded >= agg.minSuccess ? 'partial' : 'failure';
  }
  if (agg?.minSuccess !== undefined && succeeded < agg.minSuccess) return 'failure';
  if (succeeded === total) return 'success';
  return succeeded + partial > 0 ? 'partial' : 'failure';
}

/**
 * The output of a batched fan-out under `best_confidence` / `first_success`: each batch
 * already applied the strategy to its own tasks, so pick among the batches' outputs, using
 * their (possibly compact) results to rank them. `batches` are in completion order.
 */
export function batchedOutput(batches: { results: TaskResult[]; output: unknown }[], agg: Aggregation | undefined): unknown {
  const withOutput = batches.filter((b) => b.output !== null && b.output !== undefined);
  if (agg?.strategy === 'first_success') {
    return (withOutput.find((b) => b.results.some((r) => r.status === 'success')) ?? withOutput[0])?.output ?? null;
  }
  const rank = (b: { results: TaskResult[] }) => {
    const usable = b.results.filter((r) => r.status !== 'failure');
    const success = usable.some((r) => r.status === 'success') ? 1 : 0;
    const confidence = Math.max(0, ...usable.filter((r) => (success ? r.status === 'success' : true)).map((r) => r.confidence));
    return success * 2 + confidence;
  };
  let best: (typeof withOutput)[number] | undefined;
  for (const b of withOutput) if (!best || rank(b) > rank(best)) best = b;
  return best?.output ?? null;
}

/** The batches' merged outputs as one map; null when a batch kept none (it was too big, or failed). */
export function mergeOutputs(outputs: unknown[]): Record<string, unknown> | null {
  if (!outputs.every((o) => o !== null && typeof o === 'object' && !Array.isArray(o))) return null;
  return Object.assign({}, ...(outputs as object[]));
}
