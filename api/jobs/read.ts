/**
 * Reading jobs: one job's view (live detail while it runs, the whole result once done),
 * its result with a bounded wait, and a tenant's list (list.ts). A finished job is read from the
 * record (it outlives Temporal's retention); a running one from Temporal.
 *
 *   record has it? ── yes ──> completed view from the record
 *        │ no
 *   describe (404) ── running ──> live view (status queries)
 *                  ── completed, no record (finished before the record existed) ──> whole result from Temporal
 */
import type { Client } from '@temporalio/client';
import type { JobRecord, RecordStore } from '../../record';
import { wholeResult } from '../../activities/whole-result';
import type { JobProgress, JobResult, JobView, Ledger, SubtaskProgress } from '../../schemas';
import { jobStatusQuery, subtaskStatusQuery } from '../../contracts/messages';
import { progressOfResults, withBatchProgress } from '../../core/progress';
import { HttpProblem } from '../errors';
import { stateOf, type JobHandles } from './handles';
import { createJobList } from './list';

/** Running children asked for live detail, at most. */
const LIVE_QUERIES = 100;

/** A finished job's view: the same whether its result comes from the record or from Temporal. */
function completedView(
  jobId: string,
  at: { workflowId: string; startedAt: Date; closedAt: Date },
  result: JobResult,
  links: JobView['links'],
): JobView {
  // in a batched job, subtask i lives under the batch that held it
  const parents = (result.batches ?? []).filter((b) => b.kind === 'batch').flatMap((b) => Array<string>(b.tasks).fill(b.workflowId));
  const subtasks: SubtaskProgress[] = result.results.map((r, i) => ({
    id: r.id,
    state: 'completed',
    workflowId: `${parents[i] ?? at.workflowId}/${r.id}`,
    agentId: r.agentId,
    status: r.status,
    failureReason: r.failureReason,
    metrics: r.metrics,
    ...(r.priority !== undefined ? { priority: r.priority } : {}),
  }));
  return {
    jobId,
    workflowId: at.workflowId,
    state: 'completed',
    startedAt: at.startedAt.toISOString(),
    closedAt: at.closedAt.toISOString(),
    links,
    status: result.status,
    pattern: result.pattern,
    progress: progressOfResults(result.results),
    subtasks,
    result,
  };
}

/** A finished job's view from its record. */
const recordView = (rec: JobRecord, links: JobView['links']): JobView =>
  completedView(
    rec.jobId,
    { workflowId: rec.workflowId, startedAt: new Date(rec.startedAt), closedAt: new Date(rec.closedAt) },
    rec.result,
    links,
  );

/** The read operations. */
export function createReads(client: Client, record: RecordStore, { describe, handleOf }: JobHandles) {
  /** The result of a job Temporal reports completed: the record's, else Temporal's (a job that finished before the record existed). */
  async function finishedResult(tenant: string, jobId: string): Promise<JobResult> {
    const rec = await record.get(tenant, jobId);
    return rec ? rec.result : wholeResult(client, await handleOf(tenant, jobId).result());
  }

  /**
   * Live detail from the running children, one status query each (the first 100): every
   * subtask's own ledger, and a running batch's counts in place of "all of it running".
   */
  async function liveDetail(p: JobProgress): Promise<Pick<JobView, 'progress' | 'subtasks'>> {
    const running = p.subtasks.filter((s) => s.state === 'running').slice(0, LIVE_QUERIES);
    const answers = await Promise.all(
      // one query name ('status') for every child: a subtask answers its SubtaskStatus, a batch or a
      // nested job its JobProgress; both carry a ledger, and only a batch's counts are read
      running.map((s): Promise<{ ledger: Ledger; progress?: JobProgress['progress'] } | undefined> => {
        const handle = client.workflow.getHandle(s.workflowId);
        return (s.batch ? handle.query(jobStatusQuery) : handle.query(subtaskStatusQuery)).catch(() => undefined);
      }),
    );
    const live = new Map(running.map((s, i) => [s.id, answers[i]]));
    let progress = p.progress;
    for (const s of running) {
      const b = s.batch ? live.get(s.id)?.progress : undefined;
      if (b) progress = withBatchProgress(progress, b);
    }
    const subtasks = p.subtasks.map((s) => {
      const ledger = live.get(s.id)?.ledger;
      return ledger ? { ...s, ledger } : s;
    });
    return { progress, subtasks };
  }

  return {
    /** The job's state, progress, ledger, and result when done. */
    async view(tenant: string, jobId: string, links: JobView['links']): Promise<JobView> {
      const rec = await record.get(tenant, jobId);
      if (rec) return recordView(rec, links);
      const d = await describe(tenant, jobId);
      const state = stateOf(d.status.name);
      const base: JobView = {
        jobId,
        workflowId: d.workflowId,
        state,
        startedAt: d.startTime.toISOString(),
        ...(d.closeTime ? { closedAt: d.closeTime.toISOString() } : {}),
        links,
      };
      if (state === 'running') {
        const p = await handleOf(tenant, jobId)
          .query(jobStatusQuery)
          .catch(() => undefined);
        if (!p) return base;
        return { ...base, pattern: p.pattern, ...(await liveDetail(p)), ledger: p.ledger };
      }
      if (state !== 'completed') return base;
      // it finished since the record was asked: the record has it now (or never will, for a job older than the record)
      const late = await record.get(tenant, jobId);
      if (late) return recordView(late, links);
      return completedView(
        jobId,
        { workflowId: d.workflowId, startedAt: d.startTime, closedAt: d.closeTime ?? new Date() },
        await wholeResult(client, await handleOf(tenant, jobId).result()),
        links,
      );
    },

    /** The result, waiting up to `waitSeconds` for it; undefined while the job still runs. */
    async result(tenant: string, jobId: string, waitSeconds: number): Promise<JobResult | undefined> {
      const rec = await record.get(tenant, jobId);
      if (rec) return rec.result;
      const d = await describe(tenant, jobId);
      const state = stateOf(d.status.name);
      if (state !== 'running' && state !== 'completed') {
        throw new HttpProblem(409, 'Conflict', `job "${jobId}" ended without a result (${state})`);
      }
      const handle = handleOf(tenant, jobId);
      if (state === 'completed') return finishedResult(tenant, jobId);
      if (waitSeconds <= 0) return undefined;
      try {
        await client.connection.withDeadline(Date.now() + waitSeconds * 1000, () => handle.result());
        return await finishedResult(tenant, jobId);
      } catch (err) {
        // the deadline surfaces in several shapes (DEADLINE_EXCEEDED, a cancelled call, a wrapped
        // ServiceError): what matters is whether the job is still running
        const now = await describe(tenant, jobId);
        if (now.status.name === 'RUNNING') return undefined;
        if (now.status.name === 'COMPLETED') return finishedResult(tenant, jobId);
        throw err;
      }
    },

    /** Jobs of a tenant, newest start first, a page at a time (see list.ts). */
    list: createJobList(client, record),
  };
}
