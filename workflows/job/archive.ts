/**
 * The last step of a root job before it reports finished: its record, written by a retried,
 * idempotent activity. Retried without end (a database that is down delays the job's
 * completion, it never loses the record); nested jobs and batches are part of their root's.
 *
 * Jobs that were already running when this step was deployed replay without it (`patched`).
 */
import { CancellationScope, patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { JobResult, JobSpec } from '../../schemas';

/** The patch id of the archive step: do not change. */
export const ARCHIVE_PATCH = 'durable-record';
/** Characters of task questions handed to the record for search (the activity's input stays small). */
const QUESTIONS_MAX = 32_000;

const { archiveJob } = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  // a worker killed mid-archive is noticed this soon, and another worker writes the record
  heartbeatTimeout: '20 seconds',
  summary: 'archive the job record',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** The questions of a job's tasks, nested jobs' objectives and tasks included, at most `QUESTIONS_MAX` characters. */
export function questionsOf(spec: JobSpec): string[] {
  const out: string[] = [];
  let left = QUESTIONS_MAX;
  const walk = (s: JobSpec) => {
    for (const t of s.tasks) {
      if (left <= 0) return;
      const q = t.question.slice(0, left);
      out.push(q);
      left -= q.length;
      if (t.job?.objective && left > 0) {
        const o = t.job.objective.slice(0, left);
        out.push(o);
        left -= o.length;
      }
      if (t.job) walk(t.job);
    }
  };
  walk(spec);
  return out;
}

/** Writes a root job's record (nothing for a nested job or a batch, nor for a run that predates the record). */
export async function archiveIfRoot(spec: JobSpec & { jobId: string }, tenant: string, result: JobResult): Promise<void> {
  const info = workflowInfo();
  if (info.parent || !patched(ARCHIVE_PATCH)) return;
  const memo = info.memo as { specHash?: unknown } | undefined;
  await CancellationScope.nonCancellable(() =>
    archiveJob({
      tenant,
      jobId: spec.jobId,
      workflowId: info.workflowId,
      specHash: typeof memo?.specHash === 'string' ? memo.specHash : null,
      closedAt: Date.now(),
      ...(spec.objective ? { objective: spec.objective } : {}),
      ...(spec.labels ? { labels: spec.labels } : {}),
      questions: questionsOf(spec),
      result,
    }),
  );
}
