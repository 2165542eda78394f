/**
 * Delegate's A2A request handler: the SDK's `A2ARequestHandler` over the job service, with no
 * store or event bus of its own (the SDK's default keeps both in memory, so only the replica that
 * took a message could answer for it). Every operation is the caller's tenant's, as on REST.
 *
 *   SendMessage ──submissionOf──> jobs.submit (id: spec.jobId, else from the messageId) ──> task (waits up to 30 s)
 *       refused (400/413/422, invalid part) ──> rejected task, the field paths in its status message
 *   SendStreamingMessage ──submit──> task, then the job's events (stream.ts)
 *   GetTask / ListTasks (tasks.ts) · CancelTask ──jobs.cancel──> canceled · SubscribeToTask ──> task, then events
 *   push config: SendMessage's configuration.taskPushNotificationConfig ──> the job's completion webhook (A2A body)
 */
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { TaskState, type Message, type SendMessageRequest, type StreamResponse, type Task } from '@a2a-js/sdk';
import {
  ExtendedAgentCardNotConfiguredError,
  RequestMalformedError,
  TaskNotCancelableError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { FastifyInstance } from 'fastify';
import { A2A_CONTEXT_LABEL, agentMessage, dataPart, taskOfJob, textPart } from '../../activities/a2a-task';
import type { JobSpec } from '../../schemas';
import { HttpProblem } from '../errors';
import { researchRoutingOf, submitResearchSubtask } from '../jobs/research';
import { agentCardOf, CARD_VERSION } from './card';
import { checkContextId, jobIdOfMessage, Rejection, submissionOf } from './messages';
import { followTask, isTerminal, lastSeq } from './stream';
import { createTaskReads, orNotFound } from './tasks';

/** Keys of the call context's state the route sets. */
export const CALLER_TENANT = 'delegate.tenant';
export const CALLER_SIGNAL = 'delegate.signal';

/** How long a blocking SendMessage waits for the job before it answers with the running task. */
const BLOCKING_WAIT_SECONDS = 30;

const tenantOf = (ctx: ServerCallContext) => ctx.state.get(CALLER_TENANT) as string;
const signalOf = (ctx: ServerCallContext) => (ctx.state.get(CALLER_SIGNAL) as AbortSignal | undefined) ?? new AbortController().signal;

/** A submission the API refused before dispatch, as A2A's `rejected` task. */
function rejectedTask(jobId: string, contextId: string, detail: string, errors: { path: string; message: string }[]): Task {
  const message = agentMessage(jobId, contextId, `${jobId}:rejected`, [
    textPart([detail, ...errors.map((e) => `${e.path}: ${e.message}`)].join('\n')),
    dataPart({ detail, errors }),
  ]);
  return taskOfJob(jobId, contextId, TaskState.TASK_STATE_REJECTED, { message });
}

/** The job spec's webhook from the push config (A2A body, the config's token). */
function pushOf(params: SendMessageRequest): Pick<JobSpec, 'callbackUrl' | 'callbackFormat' | 'callbackToken'> {
  const push = params.configuration?.taskPushNotificationConfig;
  if (!push?.url) return {};
  return { callbackUrl: push.url, callbackFormat: 'a2a', ...(push.token ? { callbackToken: push.token } : {}) };
}

/** A problem's field path in the message's terms: the spec is the data part, the callback the push config. */
function a2aPath(path: string, params: SendMessageRequest): string {
  if (path === 'body.callbackUrl' && params.configuration?.taskPushNotificationConfig?.url)
    return 'configuration.taskPushNotificationConfig.url';
  return path.replace(/^body\.?/, 'data.');
}

/** Creates the handler over the app's job service. */
export function createA2aHandler(app: FastifyInstance): A2ARequestHandler {
  const svc = app.jobs;
  const reads = createTaskReads(app);
  const card = agentCardOf(app.publicUrl, CARD_VERSION);

  /** Starts (or finds) the message's job; a refused one is a rejected task. */
  async function start(params: SendMessageRequest, ctx: ServerCallContext): Promise<{ task: Task; started: boolean }> {
    const message: Message | undefined = params.message;
    if (!message?.messageId) throw new RequestMalformedError('a message with a messageId is required');
    if (message.taskId) {
      // Delegate's tasks take no further turns: a message to an existing task is refused, to another tenant's not found
      const existing = await reads.getTask(tenantOf(ctx), message.taskId);
      throw new UnsupportedOperationError(
        `task "${existing.id}" takes no further messages (${isTerminal(existing.status?.state) ? 'it has finished' : 'it runs'}): send a new message`,
      );
    }
    const tenant = tenantOf(ctx);
    let jobId = jobIdOfMessage(message.messageId);
    const contextId = message.contextId || jobId;
    try {
      if (message.contextId) checkContextId(message.contextId);
      const sub = submissionOf(message);
      const labels: Record<string, string> = message.contextId ? { [A2A_CONTEXT_LABEL]: message.contextId } : {};
      if (sub.kind === 'job') jobId = sub.spec.jobId ?? jobId;
      const { created } =
        sub.kind === 'job'
          ? await svc.submit(tenant, { ...sub.spec, ...pushOf(params), labels: { ...sub.spec.labels, ...labels } }, jobId)
          : await submitResearchSubtask(svc, researchRoutingOf(app), tenant, sub.input, jobId, { ...pushOf(params), labels });
      // a job just started is working: no read before the stream begins, whose first events would wait for it
      if (created) return { task: taskOfJob(jobId, contextId, TaskState.TASK_STATE_WORKING), started: true };
    } catch (err) {
      if (err instanceof Rejection) return { task: rejectedTask(jobId, contextId, err.detail, err.errors), started: false };
      // refused before dispatch (invalid, too large, over a quota, no worker on the lane): nothing started, the same message may be sent again
      if (err instanceof HttpProblem && err.status !== 409 && (err.status < 500 || err.status === 503))
        return {
          task: rejectedTask(
            jobId,
            contextId,
            err.detail ?? err.title,
            (err.errors ?? []).map((e) => ({ ...e, path: a2aPath(e.path, params) })),
          ),
          started: false,
        };
      if (err instanceof HttpProblem && err.status === 409)
        throw new RequestMalformedError(`messageId "${message.messageId}" already started job "${jobId}" with a different message`);
      throw err;
    }
    return { task: await reads.getTask(tenant, jobId), started: true };
  }

  return {
    getAgentCard: async () => card,
    getAuthenticatedExtendedAgentCard: async () => {
      throw new ExtendedAgentCardNotConfiguredError('Delegate has no extended card');
    },

    async sendMessage(params, ctx) {
      const { task, started } = await start(params, ctx);
      if (!started || params.configuration?.returnImmediately || isTerminal(task.status?.state)) return task;
      // blocking: the result when it comes within the wait, else the running task (GetTask or SubscribeToTask follow it)
      await svc.result(tenantOf(ctx), task.id, BLOCKING_WAIT_SECONDS).catch(() => undefined);
      return reads.getTask(tenantOf(ctx), task.id);
    },

    async *sendMessageStream(params, ctx): AsyncGenerator<StreamResponse> {
      const { task, started } = await start(params, ctx);
      yield { payload: { $case: 'task', value: task } };
      if (!started || isTerminal(task.status?.state)) return;
      yield* followTask(app, reads, tenantOf(ctx), task, 0, signalOf(ctx));
    },

    getTask: async (params, ctx) => reads.getTask(tenantOf(ctx), params.id),
    listTasks: async (params, ctx) => reads.listTasks(tenantOf(ctx), params),

    async cancelTask(params, ctx) {
      const tenant = tenantOf(ctx);
      const before = await reads.getTask(tenant, params.id);
      if (isTerminal(before.status?.state)) throw new TaskNotCancelableError(`task "${params.id}" has finished`);
      await orNotFound(params.id, () => svc.cancel(tenant, params.id)).catch((err: unknown) => {
        if (err instanceof HttpProblem && err.status === 409) throw new TaskNotCancelableError(`task "${params.id}" has finished`);
        throw err;
      });
      // the job keeps what its children produced and closes: answer with the canceled task when it has
      const deadline = Date.now() + 10_000;
      for (;;) {
        const now = await reads.getTask(tenant, params.id);
        if (isTerminal(now.status?.state) || Date.now() > deadline) return now;
        await new Promise((r) => setTimeout(r, 200));
      }
    },

    async *resubscribe(params, ctx): AsyncGenerator<StreamResponse> {
      const tenant = tenantOf(ctx);
      // the seq first: an event written between the two reads is streamed, not lost
      const seq = await orNotFound(params.id, async () => {
        await svc.requireJob(tenant, params.id);
        return lastSeq(app, tenant, params.id);
      });
      const task = await reads.getTask(tenant, params.id);
      yield { payload: { $case: 'task', value: task } };
      if (isTerminal(task.status?.state)) return;
      yield* followTask(app, reads, tenant, task, seq, signalOf(ctx));
    },

    async createTaskPushNotificationConfig() {
      throw new UnsupportedOperationError(
        "set the push config with the message (SendMessage configuration.taskPushNotificationConfig): it becomes the job's completion webhook",
      );
    },
    async getTaskPushNotificationConfig() {
      throw new UnsupportedOperationError('push configs are set with the message and delivered with the job: there is none to read');
    },
    listTaskPushNotificationConfigs: async () => ({ configs: [], nextPageToken: '' }),
    async deleteTaskPushNotificationConfig() {
      throw new UnsupportedOperationError('a push config set with the message lasts as long as its job');
    },
  };
}
