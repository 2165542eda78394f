/**
 * A job's durable events as an A2A stream: every open stream of a task reads the same record,
 * so they all get the same events in the same order, on whichever API replica they landed.
 *
 *   task (current) ──> statusUpdate working (each event: job.started, subtask.*, budget.changed, vote.decided)
 *                  ──> approval.requested: input-required (the question or the approval as its message; every update
 *                      while anything waits is input-required with the oldest item) ──> approval.decided of the last: working
 *                  ──> job.finished: artifactUpdate (the result) ──> statusUpdate final (completed | failed | canceled)
 *   a job that ended without job.finished (terminated): the final statusUpdate from its view
 */
import { TaskState, type StreamResponse, type Task, type TaskStatusUpdateEvent } from '@a2a-js/sdk';
import type { FastifyInstance } from 'fastify';
import { agentMessage, dataPart, resultArtifact, stateOfOutcome, textPart } from '../../activities/a2a-task';
import type { JobEvent } from '../../schemas';
import { inputOfEvent, promptOf, type PendingInput } from './input';
import type { createTaskReads } from './tasks';

/** The text of a status update a person reads. */
function eventText(e: JobEvent): string {
  const d = e.data;
  const task = typeof d.taskId === 'string' ? d.taskId : '';
  const progress = (d.progress as { text?: string } | undefined)?.text;
  switch (e.type) {
    case 'subtask.finished':
      return `${task} finished: ${String(d.status)}${d.failureReason ? ` (${String(d.failureReason)})` : ''}`;
    case 'subtask.step':
      return progress ? `${task}: ${progress}` : `${task} step ${String(d.step)}${d.done ? ' (done)' : ''}`;
    case 'subtask.started':
      return `${task} started`;
    case 'subtask.retried':
      return `${task} step ${String(d.step)} attempt ${String(d.attempt)}`;
    case 'approval.decided':
      return `${task ? `${task}: ` : ''}${String(d.kind)} ${String(d.approvalId)} ${String(d.state)} by ${String(d.by)}`;
    default:
      return e.type;
  }
}

/**
 * One durable event as a status update: `working`, the event itself in its data part and metadata;
 * while `waiting` is set, `input-required` with what waits as the message (the event in metadata).
 */
export function statusOfEvent(taskId: string, contextId: string, e: JobEvent, waiting?: PendingInput): StreamResponse {
  const update: TaskStatusUpdateEvent = {
    taskId,
    contextId,
    status: waiting
      ? { state: TaskState.TASK_STATE_INPUT_REQUIRED, message: promptOf(taskId, contextId, waiting), timestamp: e.at }
      : {
          state: TaskState.TASK_STATE_WORKING,
          message: agentMessage(taskId, contextId, `${taskId}:event:${e.seq}`, [textPart(eventText(e)), dataPart(e)]),
          timestamp: e.at,
        },
    metadata: { delegate: waiting ? { seq: e.seq, type: e.type, awaiting: waiting.id, event: e } : { seq: e.seq, type: e.type } },
  };
  return { payload: { $case: 'statusUpdate', value: update } };
}

/** The final status update of a task. */
const finalStatus = (task: Task): StreamResponse => ({
  payload: { $case: 'statusUpdate', value: { taskId: task.id, contextId: task.contextId, status: task.status, metadata: undefined } },
});

/** Whether a state is one a task never leaves. */
export const isTerminal = (s: TaskState | undefined) =>
  s === TaskState.TASK_STATE_COMPLETED ||
  s === TaskState.TASK_STATE_FAILED ||
  s === TaskState.TASK_STATE_CANCELED ||
  s === TaskState.TASK_STATE_REJECTED;

/** The last seq of a job's stream so far (a subscriber starts after it: the task it gets first says what came before). */
export async function lastSeq(app: FastifyInstance, tenant: string, jobId: string): Promise<number> {
  let seq = 0;
  for (;;) {
    const page = await app.record.events.after(tenant, jobId, seq);
    if (page.length === 0) return seq;
    seq = page[page.length - 1]!.seq;
  }
}

/**
 * The task's updates from `events` (the job's, `app.jobs.events` after the seq the task was read
 * at) until it ends: one status update per event, then the result artifact and the final status.
 * `pending` is what waited in the inbox when the task was read (its events came before). Ends
 * early when `signal` aborts (the client went away). The caller opens `events` before it sends
 * anything, so a stream over the tenant's cap is refused (429) before it starts.
 */
export async function* followTask(
  app: FastifyInstance,
  reads: ReturnType<typeof createTaskReads>,
  tenant: string,
  task: Pick<Task, 'id' | 'contextId'>,
  events: AsyncIterable<JobEvent>,
  signal: AbortSignal,
  pending: PendingInput[] = [],
): AsyncGenerator<StreamResponse> {
  // the job's inbox as its events tell it, oldest first (the record writes each item before its event)
  const waiting = new Map(pending.map((p) => [p.id, p]));
  for await (const e of events) {
    if (e.type !== 'job.finished') {
      const asked = inputOfEvent(e);
      if (asked && !waiting.has(asked.id)) waiting.set(asked.id, asked);
      if (e.type === 'approval.decided') waiting.delete(String(e.data.approvalId));
      yield statusOfEvent(task.id, task.contextId, e, waiting.values().next().value);
      continue;
    }
    // job.finished is written once the record holds the result
    const rec = await app.record.get(tenant, task.id);
    if (rec) {
      yield {
        payload: {
          $case: 'artifactUpdate',
          value: {
            taskId: task.id,
            contextId: task.contextId,
            artifact: resultArtifact(rec.result),
            append: false,
            lastChunk: true,
            metadata: undefined,
          },
        },
      };
      const final = await reads.getTask(tenant, task.id);
      yield finalStatus({ ...final, status: { ...final.status!, state: stateOfOutcome(rec.result.status, rec.result.results) } });
      return;
    }
  }
  if (signal.aborted) return;
  // ended without job.finished (terminated, timed out): its view says how
  const final = await reads.getTask(tenant, task.id);
  if (isTerminal(final.status?.state)) yield finalStatus(final);
}
