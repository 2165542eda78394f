/**
 * Reading jobs: one job's view (live detail while it runs, the stitched result once done),
 * its result with a bounded wait, and a tenant's list. A spilled result's children are
 * fetched here and stitched by the pure `stitchBatches`.
 */
import type { Client } from '@temporalio/client';
import type { JobProgress, JobResult, JobView, Ledger, SubtaskProgress, TaskResult } from '../../schemas';
import { delegationJob } from '../../workflows/delegation-job';
import { jobStatusQuery, subtaskStatusQuery } from '../../workflows/messages';
import { progressOfResults, withBatchProgress } from '../../workflows/progress';
import { PATTERN_KEY, STATUS_KEY } from '../../workflows/search-attributes';
import { batchesToFetch, stitchBatches } from '../../workflows/stitching';
import type { subtask } from '../../workflows/subtask';
import { HttpProblem } from '../errors';
import { stateOf, type JobHandles } from './handles';

/** Children fetched at once while stitching. */
const FETCH_AT_ONCE = 8;
/** Running children asked for live detail, at most. */
const LIVE_QUERIES = 100;

/** The read operations. */
export function createReads(client: Client, { describe, handleOf }: JobHandles) {
  /** The full result: a spilled one's children fetched (recursively), then stitched. */
  async function stitched(r: JobResult): Promise<JobResult> {
    const tasks = new Map<string, TaskResult>();
    const jobs = new Map<string, JobResult>();
    const todo = batchesToFetch(r);
    for (let i = 0; i < todo.length; i += FETCH_AT_ONCE) {
      await Promise.all(
        todo.slice(i, i + FETCH_AT_ONCE).map(async (b) => {
          if (b.kind === 'subtask') tasks.set(b.id, await client.workflow.getHandle<typeof subtask>(b.workflowId).result());
          else jobs.set(b.id, await stitched(await client.workflow.getHandle<typeof delegationJob>(b.workflowId).result()));
        }),
      );
    }
    return stitchBatches(r, { tasks, jobs });
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
      const handle = handleOf(tenant, jobId);
      if (state === 'running') {
        const p = await handle.query(jobStatusQuery).catch(() => undefined);
        if (!p) return base;
        return { ...base, pattern: p.pattern, ...(await liveDetail(p)), ledger: p.ledger };
      }
      if (state !== 'completed') return base;
      const result = await stitched(await handle.result());
      // in a batched job, subtask i lives under the batch that held it
      const parents = (result.batches ?? []).filter((b) => b.kind === 'batch').flatMap((b) => Array<string>(b.tasks).fill(b.workflowId));
      const subtasks: SubtaskProgress[] = result.results.map((r, i) => ({
        id: r.id, state: 'completed', workflowId: `${parents[i] ?? d.workflowId}/${r.id}`, agentId: r.agentId,
        status: r.status, failureReason: r.failureReason, metrics: r.metrics,
      }));
      return { ...base, status: result.status, pattern: result.pattern, progress: progressOfResults(result.results), subtasks, result };
    },

    /** The result, waiting up to `waitSeconds` for it; undefined while the job still runs. */
    async result(tenant: string, jobId: string, waitSeconds: number): Promise<JobResult | undefined> {
      const d = await describe(tenant, jobId);
      const state = stateOf(d.status.name);
      if (state !== 'running' && state !== 'completed') {
        throw new HttpProblem(409, 'Conflict', `job "${jobId}" ended without a result (${state})`);
      }
      const handle = handleOf(tenant, jobId);
      if (state === 'completed') return stitched(await handle.result());
      if (waitSeconds <= 0) return undefined;
      try {
        const r = await client.connection.withDeadline(Date.now() + waitSeconds * 1000, () => handle.result());
        return await stitched(r);
      } catch (err) {
        // the deadline surfaces in several shapes (DEADLINE_EXCEEDED, a cancelled call, a wrapped
        // ServiceError): what matters is whether the job is still running
        const now = await describe(tenant, jobId);
        if (now.status.name === 'RUNNING') return undefined;
        if (now.status.name === 'COMPLETED') return stitched(await handle.result());
        throw err;
      }
    },

    /** Jobs of a tenant, newest first, filtered by pattern, status and labels. */
    async list(tenant: string, filter: { pattern?: string; status?: string; label?: string[]; limit: number }) {
      const q = [`DelegateTenant = ${JSON.stringify(tenant)}`];
      if (filter.pattern) q.push(`DelegatePattern = ${JSON.stringify(filter.pattern)}`);
      if (filter.status) q.push(`DelegateStatus = ${JSON.stringify(filter.status)}`);
      for (const l of filter.label ?? []) q.push(`DelegateLabels = ${JSON.stringify(l)}`);
      const jobs = [];
      for await (const wf of client.workflow.list({ query: q.join(' AND ') })) {
        // nested jobs and batches share the tenant; only root jobs (`job/<tenant>/<jobId>`) are listed
        if (wf.type !== delegationJob.name || wf.workflowId.split('/').length !== 3) continue;
        jobs.push({
          jobId: String(wf.memo?.jobId ?? wf.workflowId.split('/').slice(2).join('/')),
          workflowId: wf.workflowId,
          state: stateOf(wf.status.name),
          status: wf.typedSearchAttributes.get(STATUS_KEY),
          pattern: wf.typedSearchAttributes.get(PATTERN_KEY),
          startedAt: wf.startTime.toISOString(),
        });
        if (jobs.length >= filter.limit) break;
      }
      return jobs;
    },
  };
}
