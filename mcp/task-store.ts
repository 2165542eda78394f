/**
 * MCP Tasks (2025-11-25) kept in Delegate's own record: a task is a job, and its id says which
 * (`job:<jobId>` for a pattern tool, `research:<jobId>` for a research subtask, `scout:<id>`
 * for a scout), so nothing is stored beside the job and any API replica answers. The store is
 * bound to one caller's backend: another tenant's id is a job the backend does not find, so
 * the task is not found.
 *
 *   getTask ──view / scout──> working | completed | failed | cancelled
 *   getTaskResult ──result / research output / scout report──> the tool's own answer
 *   updateTaskStatus(cancelled) ──cancel the job──> wait (≤ 15 s) until it has ended
 */
import type { Result, Task } from '@modelcontextprotocol/sdk/types.js';
import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { JobView } from '../schemas';
import { DelegateError, type DelegateBackend } from './backend';
import { jobAnswer, scoutAnswer, subtaskAnswer } from './answers';
import { failed } from './tool-helpers';

/** What a task is: the job of a pattern tool, a research subtask's job, or a scout. */
export type TaskKind = 'job' | 'research' | 'scout';

/** How often a client should ask `tasks/get`, and how often the server checks while it waits. */
export const TASK_POLL_MS = 1000;
/** Longest wait of a cancel for its job to end (a cancelled job keeps what finished; that takes a moment). */
const CANCEL_WAIT_MS = 15_000;

/** A task id for a job or a scout. */
export const taskIdOf = (kind: TaskKind, id: string) => `${kind}:${id}`;

/** The kind and job (or scout) id a task id names; undefined for an id Delegate never made. */
export function parseTaskId(taskId: string): { kind: TaskKind; id: string } | undefined {
  const at = taskId.indexOf(':');
  const kind = taskId.slice(0, at);
  if (at < 1 || !['job', 'research', 'scout'].includes(kind)) return undefined;
  return { kind: kind as TaskKind, id: taskId.slice(at + 1) };
}

/** A job's state as a task status: running → working; success/partial → completed; failure and abnormal ends → failed. */
export function taskStatusOf(view: Pick<JobView, 'state' | 'status'>): Task['status'] {
  if (view.state === 'running' || view.state === 'continued_as_new') return 'working';
  if (view.status === 'cancelled' || view.state === 'cancelled') return 'cancelled';
  if (view.status === 'success' || view.status === 'partial') return 'completed';
  return 'failed';
}

/** What a running job has done, or how it ended, in words. */
function statusMessageOf(view: JobView): string {
  if (view.state !== 'running') return view.status ? `job ${view.status}` : `job ${view.state}`;
  return view.progress ? `${view.progress.completed} of ${view.progress.total} subtasks finished` : 'running';
}

/** The task of a job view. */
function jobTask(taskId: string, view: JobView): Task {
  const createdAt = view.startedAt ?? new Date().toISOString();
  return {
    taskId,
    status: taskStatusOf(view),
    // the record keeps finished jobs past Temporal's retention: no expiry of its own
    ttl: null,
    createdAt,
    lastUpdatedAt: view.closedAt ?? new Date().toISOString(),
    pollInterval: TASK_POLL_MS,
    statusMessage: statusMessageOf(view),
  };
}

/** Runs `read`; a 404 (no such job or scout for this tenant) is undefined. */
async function found<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof DelegateError && err.status === 404) return undefined;
    throw err;
  }
}

/** The job behind a task id (a scout's job once dispatched), or undefined when the tenant has none such. */
export async function jobOfTask(backend: DelegateBackend, taskId: string): Promise<string | undefined> {
  const t = parseTaskId(taskId);
  if (!t) return undefined;
  if (t.kind !== 'scout') return t.id;
  return (await found(() => backend.scout(t.id, 0)))?.jobId ?? undefined;
}

/** Creates the task store of one caller. */
export function createDelegateTaskStore(backend: DelegateBackend): TaskStore {
  const getTask = async (taskId: string): Promise<Task | null> => {
    const t = parseTaskId(taskId);
    if (!t) return null;
    if (t.kind !== 'scout') {
      const view = await found(() => backend.view(t.id));
      return view ? jobTask(taskId, view) : null;
    }
    const scout = await found(() => backend.scout(t.id, 0));
    if (!scout) return null;
    const view = scout.jobId ? await found(() => backend.view(scout.jobId!)) : undefined;
    const status: Task['status'] =
      scout.state === 'committed'
        ? 'completed'
        : scout.state === 'error'
          ? view?.status === 'cancelled'
            ? 'cancelled'
            : 'failed'
          : view && taskStatusOf(view) === 'cancelled'
            ? 'cancelled'
            : 'working';
    return {
      taskId,
      status,
      ttl: null,
      createdAt: scout.createdAt,
      lastUpdatedAt: scout.committedAt ?? new Date().toISOString(),
      pollInterval: TASK_POLL_MS,
      statusMessage: status === 'working' ? 'scout running' : `scout ${scout.state}`,
    };
  };

  return {
    // the tool's createTask has started the job already and passes its task id
    async createTask(params: CreateTaskOptions): Promise<Task> {
      const taskId = String(params.context?.taskId ?? '');
      const task = await getTask(taskId);
      if (!task) throw new Error(`task ${taskId} was started but cannot be read`);
      return task;
    },
    getTask,
    async getTaskResult(taskId: string): Promise<Result> {
      const t = parseTaskId(taskId);
      try {
        if (!t) return failed(`unknown task ${taskId}`);
        if (t.kind === 'scout') return scoutAnswer(await backend.scout(t.id, 0));
        if (t.kind === 'research') return subtaskAnswer(await backend.researchSubtask(t.id, 0));
        const result = await backend.result(t.id, 0);
        return result ? jobAnswer(t.id, result) : failed(`job "${t.id}" is still running`);
      } catch (err) {
        if (err instanceof DelegateError) return failed(err.message);
        throw err;
      }
    },
    // results live in the job's record: nothing to store
    async storeTaskResult(): Promise<void> {},
    async updateTaskStatus(taskId: string, status: Task['status']): Promise<void> {
      // the SDK moves a task only to cancelled (tasks/cancel) or input_required (never asked here)
      if (status !== 'cancelled') return;
      const jobId = await jobOfTask(backend, taskId);
      if (!jobId) return;
      await backend.cancel(jobId);
      const deadline = Date.now() + CANCEL_WAIT_MS;
      while (Date.now() < deadline) {
        const task = await getTask(taskId);
        if (!task || task.status !== 'working') return;
        await sleep(250);
      }
    },
    async listTasks(): Promise<{ tasks: Task[] }> {
      throw new Error('tasks/list is not offered: list jobs with the REST API (GET /v1/jobs) or call job_status with a task id');
    },
  };
}
