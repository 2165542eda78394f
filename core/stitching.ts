/**
 * Stitching a spilled job result back together: a wide fan-out (or a result too big for one
 * payload) lists its children in `batches` and keeps their full results there. Given what
 * the API fetched from those children, rebuild `results` in task order and the output.
 * Pure: the fetching stays in the API, this only combines.
 *
 *   JobResult { batches: [b1 (batch), b2 (notRun), ...] } + fetched { b1: JobResult, ... }
 *     ──> results: b1's results, b2's tasks as not run, ...   output: from outputRef
 */
import type { TaskSpec } from '../schemas/job';
import type { JobBatch, JobResult, TaskResult } from '../schemas/result';
import { jobAsTaskResult, notRunResult } from './task-results';

/** The children's full results as fetched, by batch entry id. */
export interface FetchedChildren {
  /** A `subtask` entry's TaskResult. */
  tasks: ReadonlyMap<string, TaskResult>;
  /** A `batch` or `nested` entry's JobResult, itself already stitched. */
  jobs: ReadonlyMap<string, JobResult>;
}

/** The entries whose workflows must be fetched: those that ran (a notRun entry has no result). */
export function batchesToFetch(r: JobResult): JobBatch[] {
  return (r.batches ?? []).filter((b) => !b.notRun);
}

/** One entry's results and output: a batch's results and merged map, else one task's result. */
function partOf(b: JobBatch, fetched: FetchedChildren): { results: TaskResult[]; output: unknown } {
  if (b.notRun) {
    const { reason, taskIds } = b.notRun;
    return { results: taskIds.map((id) => notRunResult({ id, question: '' }, reason, `not started: ${reason}`)), output: null };
  }
  if (b.kind === 'subtask') return { results: [required(fetched.tasks, b)], output: null };
  const job = required(fetched.jobs, b);
  if (b.kind === 'batch') return { results: job.results, output: job.output };
  // a nested job reads as the task that held it (its agent label `job:<pattern>` comes from the spec)
  const task: TaskSpec = { id: b.id, question: '', job: { pattern: job.pattern, tasks: [] } };
  return { results: [jobAsTaskResult(task, job)], output: null };
}

function required<T>(from: ReadonlyMap<string, T>, b: JobBatch): T {
  const v = from.get(b.id);
  if (v === undefined) throw new Error(`the ${b.kind} "${b.id}" (${b.workflowId}) was not fetched`);
  return v;
}

/** The job result with its children's results in task order and its output rebuilt (unchanged without `batches`). */
export function stitchBatches(r: JobResult, fetched: FetchedChildren): JobResult {
  if (!r.batches?.length) return r;
  const parts = r.batches.map((b) => partOf(b, fetched));
  const results = parts.flatMap((p) => p.results);
  let output = r.output;
  const ref = r.outputRef;
  if (ref && 'taskId' in ref) output = results.find((x) => x.id === ref.taskId)?.data ?? null;
  else if (ref?.merge) {
    // a batch's own output is its merged map (rebuilt the same way when it was dropped there too)
    output = r.batches.every((b) => b.kind === 'batch')
      ? Object.assign({}, ...parts.map((p) => p.output).filter((o) => o !== null && typeof o === 'object'))
      : Object.fromEntries(results.filter((x) => x.status !== 'failure' && x.data !== undefined).map((x) => [x.id, x.data]));
  }
  return { ...r, results, output };
}
