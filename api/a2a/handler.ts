/**
 * Delegate's A2A request handler: the SDK's `A2ARequestHandler` over the job service, with no
 * store or event bus of its own (the SDK's default keeps both in memory, so only the replica that
 * took a message could answer for it). Every operation is the caller's tenant's, as on REST.
 *
 *   SendMessage ──submissionOf──> jobs.submit (id: spec.jobId, else from the messageId) ──> task (waits up to 30 s,
 *       or until a subtask waits in the inbox: input-required)
 *       refused (400/413/422, invalid part) ──> rejected task, the field paths in its status message
 *   SendMessage with the taskId of an input-required task ──answerOf──> inbox.decide (same checks, same tenant) ──> task
 *       refused (the answer schema, not approve/reject) ──> still input-required, the field paths in its status message
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
import { budgetOfMetadata, capBudget } from '../../activities/a2a-cost';
import { researchRoutingOf, submitResearchSubtask } from '../jobs/research';
import { agentCardOf, CARD_VERSION } from './card';
import { answerOf, inMessage, inputOfEvent, targetOf, type AnswerAt, type PendingInput } from './input';
import { checkContextId, jobIdOfMessage, Rejection, submissionOf, type Submission } from './messages';
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

/** The fields of a refusal that the message has: a text message has no `agent` (its detail says what to configure). */
const errorsOf = (err: HttpProblem, sub: Submission | undefined) =>
  (err.errors ?? []).filter((e) => !(sub?.kind === 'research' && sub.text && e.path === 'body.agent'));

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

  /** What a message gets back: the task; whether there is a job to follow, from `seq` on; what waited in the inbox when it was read. */
  type Turn = { task: Task; seq: number; started: boolean; pending: PendingInput[] };

  /** Answers what the message's task waits on through the inbox; a refused answer leaves it input-required with the refusal. */
  async function answer(message: Message, ctx: ServerCallContext): Promise<Turn> {
    const tenant = tenantOf(ctx);
    const jobId = message.taskId;
    const task = await reads.getTask(tenant, jobId);
    if (isTerminal(task.status?.state))
      throw new UnsupportedOperationError(`task "${jobId}" has finished and takes no further messages: send a new message`);
    const pending = await reads.pendingOf(tenant, jobId);
    if (pending.length === 0)
      throw new UnsupportedOperationError(
        `task "${jobId}" waits on no input (it is working): a message with its taskId answers a question or an approval; send a new message for a new job`,
      );
    // the seq first: the decision's events come after it
    const seq = await lastSeq(app, tenant, jobId);
    let target: PendingInput | undefined;
    let at: AnswerAt | undefined;
    try {
      target = targetOf(message, pending)!;
      const got = answerOf(message, target);
      at = got.at;
      await app.inbox.decide(tenant, target.id, got.decision, `a2a:${tenant}`);
    } catch (err) {
      const refusal =
        err instanceof Rejection
          ? { detail: err.detail, errors: err.errors }
          : err instanceof HttpProblem && (err.status === 400 || err.status === 422) && at
            ? { detail: err.detail ?? err.title, errors: inMessage(err.errors ?? [], at) }
            : undefined;
      if (refusal) return { task: await reads.getTask(tenant, jobId, { ...refusal, id: target?.id }), seq, started: false, pending };
      // decided elsewhere meanwhile, or its subtask ended
      if (err instanceof HttpProblem && err.status === 409) throw new UnsupportedOperationError(err.detail ?? err.title);
      throw err;
    }
    const now = await reads.pendingOf(tenant, jobId);
    return { task: await reads.getTask(tenant, jobId), seq, started: true, pending: now };
  }

  /** The job under the budget its caller passed (the cost extension, in the message's metadata): the lower cap per axis. */
  function withCallerBudget(spec: JobSpec, message: Message): JobSpec {
    const budget = capBudget(spec.budget, budgetOfMetadata(message.metadata));
    return budget ? { ...spec, budget } : spec;
  }

  /** Starts (or finds) the message's job; a refused one is a rejected task. */
  async function start(params: SendMessageRequest, ctx: ServerCallContext): Promise<Turn> {
    const message: Message | undefined = params.message;
    if (!message?.messageId) throw new RequestMalformedError('a message with a messageId is required');
    // a message to an existing task answers what it waits on (another tenant's task is not found)
    if (message.taskId) return answer(message, ctx);
    const tenant = tenantOf(ctx);
    let jobId = jobIdOfMessage(message.messageId);
    const contextId = message.contextId || jobId;
    let sub: Submission | undefined;
    try {
      if (message.contextId) checkContextId(message.contextId);
      sub = submissionOf(message);
      const labels: Record<string, string> = message.contextId ? { [A2A_CONTEXT_LABEL]: message.contextId } : {};
      if (sub.kind === 'job') jobId = sub.spec.jobId ?? jobId;
      const { created } =
        sub.kind === 'job'
          ? await svc.submit(
              tenant,
              { ...withCallerBudget(sub.spec, message), ...pushOf(params), labels: { ...sub.spec.labels, ...labels } },
              jobId,
            )
          : await submitResearchSubtask(svc, researchRoutingOf(app), tenant, sub.input, jobId, { ...pushOf(params), labels });
      // a job just started is working: no read before the stream begins, whose first events would wait for it
      if (created) return { task: taskOfJob(jobId, contextId, TaskState.TASK_STATE_WORKING), seq: 0, started: true, pending: [] };
    } catch (err) {
      const rejected = (detail: string, errors: { path: string; message: string }[]): Turn => ({
        task: rejectedTask(jobId, contextId, detail, errors),
        seq: 0,
        started: false,
        pending: [],
      });
      if (err instanceof Rejection) return rejected(err.detail, err.errors);
      // refused before dispatch (invalid, too large, over a quota, no worker on the lane): nothing started, the same message may be sent again
      if (err instanceof HttpProblem && err.status !== 409 && (err.status < 500 || err.status === 503))
        return rejected(
          err.detail ?? err.title,
          errorsOf(err, sub).map((e) => ({ ...e, path: a2aPath(e.path, params) })),
        );
      if (err instanceof HttpProblem && err.status === 409)
        throw new RequestMalformedError(`messageId "${message.messageId}" already started job "${jobId}" with a different message`);
      throw err;
    }
    // the same message again: its job as it is now
    const seq = await lastSeq(app, tenant, jobId);
    const pending = await reads.pendingOf(tenant, jobId);
    return { task: await reads.getTask(tenant, jobId), seq, started: true, pending };
  }

  /** Waits (at most BLOCKING_WAIT_SECONDS) until the job ends or one of its subtasks asks for input after `seq`. */
  async function untilTurnEnds(tenant: string, jobId: string, seq: number, signal: AbortSignal): Promise<void> {
    const stop = AbortSignal.any([signal, AbortSignal.timeout(BLOCKING_WAIT_SECONDS * 1000)]);
    let events;
    try {
      events = svc.events(tenant, jobId, seq, stop);
    } catch (err) {
      // past the tenant's cap of open streams: the task as it is now, at once (GetTask follows it)
      if (err instanceof HttpProblem && err.status === 429) return;
      throw err;
    }
    for await (const e of events) if (inputOfEvent(e)) return;
  }

  /**
   * The task, then its updates until it ends. The job's events are opened first: past the tenant's
   * cap of open streams the 429 comes before the first event, so the route answers it as such (a
   * streamed message refused so has started its job: the same message again follows it).
   */
  async function* taskThenUpdates(tenant: string, task: Task, seq: number, signal: AbortSignal, pending: PendingInput[]) {
    const events = svc.events(tenant, task.id, seq, signal);
    try {
      yield { payload: { $case: 'task', value: task } } as StreamResponse;
      yield* followTask(app, reads, tenant, task, events, signal, pending);
    } finally {
      await events.return(undefined);
    }
  }

  return {
    getAgentCard: async () => card,
    getAuthenticatedExtendedAgentCard: async () => {
      throw new ExtendedAgentCardNotConfiguredError('Delegate has no extended card');
    },

    async sendMessage(params, ctx) {
      const { task, started, seq } = await start(params, ctx);
      if (!started || params.configuration?.returnImmediately || task.status?.state !== TaskState.TASK_STATE_WORKING) return task;
      // blocking: until the job ends or asks for input, within the wait; else the running task (GetTask or SubscribeToTask follow it)
      await untilTurnEnds(tenantOf(ctx), task.id, seq, signalOf(ctx));
      return reads.getTask(tenantOf(ctx), task.id);
    },

    async *sendMessageStream(params, ctx): AsyncGenerator<StreamResponse> {
      const { task, started, seq, pending } = await start(params, ctx);
      if (!started || isTerminal(task.status?.state)) {
        yield { payload: { $case: 'task', value: task } };
        return;
      }
      yield* taskThenUpdates(tenantOf(ctx), task, seq, signalOf(ctx), pending);
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
      const pending = await reads.pendingOf(tenant, params.id);
      const task = await reads.getTask(tenant, params.id);
      if (isTerminal(task.status?.state)) {
        yield { payload: { $case: 'task', value: task } };
        return;
      }
      yield* taskThenUpdates(tenant, task, seq, signalOf(ctx), pending);
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
