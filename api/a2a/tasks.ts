/**
 * A2A tasks read from Delegate's own record and Temporal (never an in-memory store), so any API
 * replica answers: a task is a job of the caller's tenant, its id the job id.
 *
 *   GetTask  ──jobs.view (404: TaskNotFound)──> state, result artifact; contextId from the job's label
 *            running, and a subtask waits in the inbox ──> input-required, the oldest item as the status message
 *   ListTasks ──jobs.list (label a2a.context=…, status)──> tasks, newest first, paged by the job list's token
 *             a contextId no label can hold ──> invalid params, before any visibility query
 */
import { TaskState, type ListTasksRequest, type ListTasksResponse, type Task } from '@a2a-js/sdk';
import { RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import type { FastifyInstance } from 'fastify';
import { A2A_CONTEXT_LABEL, a2aContextOf, stateOfView, taskOfJob, taskOfResult } from '../../activities/a2a-task';
import { LABELS_KEY } from '../../core/search-attributes';
import type { JobListItem, Ledger } from '../../schemas';
import { HttpProblem } from '../errors';
import { decodeJobPageToken } from '../jobs/page-token';
import { inputOfItem, isInput, promptOf, type PendingInput, type Refusal } from './input';
import { CONTEXT_ID_RULE, isContextId } from './messages';

/** Turns the job service's 404 into A2A's TaskNotFound (another tenant's task is not found either). */
export async function orNotFound<T>(jobId: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof HttpProblem && err.status === 404) throw new TaskNotFoundError(`no task "${jobId}"`);
    throw err;
  }
}

/** A2A's list filter as the job list's status (undefined: no filter there; `completed` covers success and partial). */
const STATUS_FILTER: Partial<Record<TaskState, 'running' | 'failure' | 'cancelled'>> = {
  [TaskState.TASK_STATE_WORKING]: 'running',
  [TaskState.TASK_STATE_INPUT_REQUIRED]: 'running',
  [TaskState.TASK_STATE_FAILED]: 'failure',
  [TaskState.TASK_STATE_CANCELED]: 'cancelled',
};

/** The task readers over one app's job service. */
export function createTaskReads(app: FastifyInstance) {
  const svc = app.jobs;
  const links = { self: '', result: '', temporalUi: '' };

  /** The task's contextId: the job's label (the record once finished, the search attribute while it runs), else the job id. */
  async function contextOf(tenant: string, jobId: string): Promise<string> {
    const rec = await app.record.get(tenant, jobId);
    if (rec) return a2aContextOf(jobId, rec.labels);
    const d = await app.temporal.workflow
      .getHandle(svc.workflowIdOf(tenant, jobId))
      .describe()
      .catch(() => undefined);
    const keywords = d?.typedSearchAttributes.get(LABELS_KEY) ?? [];
    const label = keywords.find((k) => k.startsWith(`${A2A_CONTEXT_LABEL}=`));
    return label ? label.slice(A2A_CONTEXT_LABEL.length + 1) : jobId;
  }

  /** What the job's subtasks wait on in the inbox (approvals and questions), oldest first. */
  async function pendingOf(tenant: string, jobId: string): Promise<PendingInput[]> {
    const items = await app.inbox.list(tenant, { jobId, state: 'pending' });
    return items.filter((i) => isInput(i.kind)).map(inputOfItem);
  }

  /** A running task: input-required while something waits in the inbox (the oldest as its message, after a refusal when given). */
  async function runningTask(
    tenant: string,
    jobId: string,
    contextId: string,
    at: string | undefined,
    refusal?: Refusal,
    ledger?: Ledger,
  ): Promise<Task> {
    const pending = await pendingOf(tenant, jobId);
    const waiting = pending.find((p) => p.id === refusal?.id) ?? pending[0];
    if (!waiting) return taskOfJob(jobId, contextId, TaskState.TASK_STATE_WORKING, { at, ledger });
    return taskOfJob(jobId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, {
      at,
      ledger,
      message: promptOf(jobId, contextId, waiting, refusal),
    });
  }

  /** The task of a job of the tenant; TaskNotFound when the tenant has no such job. A refusal goes in an input-required status message. */
  async function getTask(tenant: string, jobId: string, refusal?: Refusal): Promise<Task> {
    const view = await orNotFound(jobId, () => svc.view(tenant, jobId, links));
    const contextId = await contextOf(tenant, jobId);
    if (view.result) return taskOfResult(jobId, contextId, view.result, view.closedAt);
    const state = stateOfView(view);
    const at = view.closedAt ?? view.startedAt;
    if (state === TaskState.TASK_STATE_WORKING) return runningTask(tenant, jobId, contextId, at, refusal, view.ledger);
    return taskOfJob(jobId, contextId, state, { at });
  }

  /** A listed job as a task (no artifacts: GetTask reads them); a running one asks the inbox whether it waits. */
  const listed = async (tenant: string, item: JobListItem, contextId: string): Promise<Task> => {
    const state = stateOfView({ state: item.state, status: item.status === 'running' ? undefined : item.status });
    if (state === TaskState.TASK_STATE_WORKING) return runningTask(tenant, item.jobId, contextId, item.startedAt);
    return taskOfJob(item.jobId, contextId, state, { at: item.startedAt });
  };

  /** A page of the tenant's tasks, newest first: those of one context, in one state, when asked (invalid params: a bad contextId). */
  async function listTasks(tenant: string, p: ListTasksRequest): Promise<ListTasksResponse> {
    // the label filter goes into a visibility query: what SendMessage would refuse never gets that far
    if (p.contextId && !isContextId(p.contextId)) throw new RequestMalformedError(`contextId: ${CONTEXT_ID_RULE}`);
    const pageSize = Math.min(100, Math.max(1, p.pageSize ?? 50));
    const state = p.status ? p.status : undefined;
    const status = state === undefined ? undefined : STATUS_FILTER[state];
    const page = await svc.list(tenant, {
      label: p.contextId ? [`${A2A_CONTEXT_LABEL}=${p.contextId}`] : [],
      pageSize,
      ...(status ? { status } : {}),
      ...(p.pageToken ? { after: decodeJobPageToken(p.pageToken) } : {}),
    });
    // a job started over A2A without a context has its id as the context: a context filter finds it only by label
    const tasks = await Promise.all(page.jobs.map(async (j) => listed(tenant, j, p.contextId || (await contextOf(tenant, j.jobId)))));
    const filtered = state === undefined ? tasks : tasks.filter((t) => t.status?.state === state);
    return { tasks: filtered, nextPageToken: page.nextPageToken ?? '', pageSize, totalSize: filtered.length };
  }

  return { getTask, listTasks, contextOf, pendingOf };
}
