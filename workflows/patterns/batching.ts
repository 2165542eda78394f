/**
 * Wide fan-outs as a tree: above `BATCH_THRESHOLD` tasks, a fan-out runs its tasks in
 * batch jobs of at most `BATCH_SIZE`, so no run holds more than a few hundred children,
 * a few thousand history events, or a result payload near the 2 MiB limit. Since
 * `MIDDLE_BATCH_PATCH`, a fan-out of more than `MIDDLE_THRESHOLD` tasks is a tree too, of up to
 * `MIDDLE_BATCHES` batches all running at once: the engine records every child's start and
 * end on its parent, one transaction at a time under the parent's lock, so one parent of 400
 * children ran well behind eight parents of 50 on the cluster (bench/history/2026-12-05-diary.md).
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

/** Fan-outs with more tasks than this (up to BATCH_THRESHOLD) run as batches since MIDDLE_BATCH_PATCH. */
export const MIDDLE_THRESHOLD = 100;
/** At most this many batches for such a fan-out, all at once (each gets its share of `maxParallel`). */
export const MIDDLE_BATCHES = 8;
/** And at least this many tasks in each. */
export const MIDDLE_MIN_BATCH = 50;
/** The patch id of the middle band's batches (jobs that began flat replay flat): do not change. */
export const MIDDLE_BATCH_PATCH = 'fanout-middle-batches';

/**
 * Whether a job is in the middle band: batched since MIDDLE_BATCH_PATCH, flat before. `flatMax`: the
 * deployment's width up to which a fan-out stays flat (EngineLimits.fanoutFlatMax; MIDDLE_THRESHOLD
 * when the job's input does not say, as in every run begun before the setting).
 */
export const inMiddleBand = (spec: Pick<JobSpec, 'pattern' | 'tasks'>, flatMax = MIDDLE_THRESHOLD): boolean =>
  spec.pattern === 'fanout' && spec.tasks.length > Math.max(MIDDLE_THRESHOLD, flatMax) && spec.tasks.length <= BATCH_THRESHOLD;

/** How a fan-out is cut: tasks per batch, batches at once, and each batch's parallelism out of the job's. */
interface Cut {
  size: number;
  atOnce: number;
  perBatch: number;
}

/** The cut of a fan-out of `total` tasks with `maxParallel`, or undefined when it runs flat. */
function cutOf(total: number, maxParallel: number, middle: boolean): Cut | undefined {
  if (total > BATCH_THRESHOLD)
    return { size: BATCH_SIZE, atOnce: BATCHES_AT_ONCE, perBatch: Math.max(1, Math.ceil(maxParallel / BATCHES_AT_ONCE)) };
  if (!middle || total <= MIDDLE_THRESHOLD) return undefined;
  const batches = Math.min(MIDDLE_BATCHES, Math.max(1, Math.floor(total / MIDDLE_MIN_BATCH)));
  // every batch at once, and never more in flight than the job's maxParallel
  const atOnce = Math.max(1, Math.min(batches, maxParallel));
  return { size: Math.ceil(total / batches), atOnce, perBatch: Math.max(1, Math.floor(maxParallel / atOnce)) };
}

/** A fan-out rewritten as batches. */
export interface BatchPlan {
  spec: JobSpec & { jobId: string };
  batchIds: string[];
}

/** The batched form of a wide fan-out (and with `middle`, of one in the middle band), or undefined when the job runs flat. */
export function planBatches(spec: JobSpec & { jobId: string }, defaultParallel: number, middle = false): BatchPlan | undefined {
  if (spec.pattern !== 'fanout') return undefined;
  const total = spec.tasks.length;
  const cut = cutOf(total, spec.maxParallel ?? defaultParallel, middle);
  if (!cut) return undefined;
  const { size, atOnce, perBatch } = cut;
  const batches: TaskSpec[] = [];
  for (let start = 0, k = 1; start < total; start += size, k++) {
    const chunk = spec.tasks.slice(start, start + size);
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
  return { spec: { ...spec, tasks: batches, maxParallel: atOnce }, batchIds: batches.map((b) => b.id) };
}

/** How many real tasks a (possibly batched) spec stands for. */
export function realTaskCount(tasks: TaskSpec[], batchIds: Set<string>): number {
  return tasks.reduce((n, t) => n + (batchIds.has(t.id) ? (t.job?.tasks.length ?? 0) : 1), 0);
}

/** Every real task's result, in task order, from the batches' results. */
export function flattenBatches(tasks: TaskSpec[], nested: Map<string, { results: TaskResult[] }>): TaskResult[] {
  return tasks.flatMap((t) => nested.get(t.id)?.results ?? []);
}
