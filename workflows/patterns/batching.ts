/**
 * Wide fan-outs as a tree: above `BATCH_THRESHOLD` tasks, a fan-out runs its tasks in
 * batch jobs of at most `BATCH_SIZE`, so no run holds more than a few hundred children,
 * a few thousand history events, or a result payload near the 2 MiB limit.
 *
 *   job (10,000 tasks) ──> batch-0001 (250 tasks) ──> subtasks
 *                     ├──> batch-0002 (250 tasks) ──> subtasks
 *                     └──> ...   results stay in the batches; the API stitches them back (stitching.ts)
 */
import type { JobSpec, TaskResult, TaskSpec } from '../../schemas';

/** Fan-outs with more tasks than this are batched. */
export const BATCH_THRESHOLD = 500;
/** Tasks per batch job. */
export const BATCH_SIZE = 250;
/** Batches running at once (each gets its share of `maxParallel`). */
export const BATCHES_AT_ONCE = 2;

/** A fan-out rewritten as batches. */
export interface BatchPlan {
  spec: JobSpec & { jobId: string };
  batchIds: string[];
}

/** The batched form of a wide fan-out, or undefined when the job runs flat. */
export function planBatches(spec: JobSpec & { jobId: string }, defaultParallel: number): BatchPlan | undefined {
  if (spec.pattern !== 'fanout' || spec.tasks.length <= BATCH_THRESHOLD) return undefined;
  const total = spec.tasks.length;
  const perBatch = Math.max(1, Math.ceil((spec.maxParallel ?? defaultParallel) / BATCHES_AT_ONCE));
  const batches: TaskSpec[] = [];
  for (let start = 0, k = 1; start < total; start += BATCH_SIZE, k++) {
    const chunk = spec.tasks.slice(start, start + BATCH_SIZE);
    batches.push({
      id: `batch-${String(k).padStart(4, '0')}`,
      question: `tasks ${start + 1}-${start + chunk.length} of ${total}`,
      job: {
        pattern: 'fanout',
        objective: spec.objective,
        tasks: chunk,
        // each batch stops at the quorum on its own; the root stops the rest once the sum reaches it
        aggregation: {
          strategy: spec.aggregation?.strategy ?? 'merge',
          ...(spec.aggregation?.quorum !== undefined ? { quorum: Math.min(spec.aggregation.quorum, chunk.length) } : {}),
        },
        maxParallel: perBatch,
      },
    });
  }
  return { spec: { ...spec, tasks: batches, maxParallel: BATCHES_AT_ONCE }, batchIds: batches.map((b) => b.id) };
}

/** How many real tasks a (possibly batched) spec stands for. */
export function realTaskCount(tasks: TaskSpec[], batchIds: Set<string>): number {
  return tasks.reduce((n, t) => n + (batchIds.has(t.id) ? (t.job?.tasks.length ?? 0) : 1), 0);
}

/** Every real task's result, in task order, from the batches' results. */
export function flattenBatches(tasks: TaskSpec[], nested: Map<string, { results: TaskResult[] }>): TaskResult[] {
  return tasks.flatMap((t) => nested.get(t.id)?.results ?? []);
}
