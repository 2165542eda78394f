/**
 * The agent's call, as the host runs it: paced through its provider's gate, cut at the subtask's
 * latency budget, its usage and text streamed into the heartbeat; and when it fails, what the
 * failure is (spent budget, throttling past the attempt, a cancel, an agent error), what the
 * breaker hears of it and what the subtask is told.
 *
 *   gate (wait while throttled) ──> def.step(request) ──race── latency cut
 *        └ failure ──> BudgetExceeded | Throttled (next retry after the wait) | Cancelled (with spend) | the agent's error (RETRY line)
 */
import { ApplicationFailure, CancelledFailure, Context, log } from '@temporalio/activity';
import type { AgentStepInput } from '../../contracts/step';
import { ErrorType } from '../../core/errors';
import type { Usage } from '../../schemas';
import type { AgentService, PacedCallOptions, StepReply } from '../agents/types';
import { fatal, toFailure } from '../errors';
import { ACTIVITY_QUEUE } from '../load-router';
import { ThrottledPastDeadline, type ProviderGates, type ThrottleWait } from '../provider-gate';
import { redact } from '../redact';
import type { StepObserver } from '../../telemetry/metrics';
import type { createStepStream } from '../step-stream';
import type { Tell } from './events';
import type { Preflight } from './gates';

/** How long after the subtask's latency budget a step cuts itself: the workflow's timer fires first and asks for the cancel. */
const LATENCY_CUT_GRACE_MS = 200;

/** What a throttled step keeps of its attempt's time for the call after a wait. */
const PACING_MARGIN_MS = 5000;

/**
 * The step's own cut at the subtask's latency budget (measured from when the step was first
 * scheduled): the agent's signal aborts and the attempt ends with what it spent, without
 * waiting for the cancel to arrive with a heartbeat (the SDK throttles them to seconds apart).
 */
export function latencyCut(
  ctx: Context,
  latencySeconds: number | undefined,
): { signal: AbortSignal; reached?: Promise<never>; clear(): void } {
  // no latency budget, no cut: the agent's signal is the cancellation's own (an AbortController,
  // its listener and a pending race cost every step's main thread CPU, bench/history/2026-12-05-diary.md)
  if (latencySeconds === undefined) return { signal: ctx.cancellationSignal, clear: () => {} };
  const ctl = new AbortController();
  const onCancel = () => ctl.abort(ctx.cancellationSignal.reason);
  ctx.cancellationSignal.addEventListener('abort', onCancel, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const reached = new Promise<never>((_, reject) => {
    const at = ctx.info.scheduledTimestampMs + latencySeconds * 1000 + LATENCY_CUT_GRACE_MS;
    timer = setTimeout(
      () => {
        ctl.abort(new Error('latency budget'));
        reject(new Error('latency budget'));
      },
      Math.max(0, at - Date.now()),
    );
  });
  reached.catch(() => undefined);
  return {
    signal: ctl.signal,
    reached,
    clear: () => {
      clearTimeout(timer);
      ctx.cancellationSignal.removeEventListener('abort', onCancel);
    },
  };
}

/** The worker processes (distinct identities) that polled an activity queue in the last minute; at least 1 (this one). */
async function pollingProcesses(ctx: Context, queue: string): Promise<number> {
  const { client } = ctx;
  const res = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: queue },
    taskQueueType: ACTIVITY_QUEUE,
  });
  const recent = Date.now() - 60_000;
  const seen = new Set(
    (res.pollers ?? [])
      .filter((p) => !p.lastAccessTime || Number(p.lastAccessTime.seconds ?? 0) * 1000 >= recent)
      .map((p) => p.identity ?? ''),
  );
  return Math.max(1, seen.size);
}

/**
 * A step's way through its agent's provider gate: the gate bound to the step's signal and to its
 * attempt's deadline (its timeout, the job's deadline), the waits summed for the step's event.
 */
function pacing(
  gates: ProviderGates,
  ctx: Context,
  service: AgentService | undefined,
  signal: AbortSignal,
  told: (w: ThrottleWait) => void,
) {
  let waited: ThrottleWait | undefined;
  if (!service) return { label: '', paced: undefined, observe: undefined, waited: () => waited };
  const gate = gates.gateFor(service);
  const { info } = ctx;
  const ends = [
    info.startToCloseTimeoutMs ? info.currentAttemptScheduledTimestampMs + info.startToCloseTimeoutMs : Infinity,
    info.scheduleToCloseTimeoutMs ? info.scheduledTimestampMs + info.scheduleToCloseTimeoutMs : Infinity,
  ];
  // a wait must end before the attempt does, with time left for the call it waits for
  const deadline = Math.min(...ends) - PACING_MARGIN_MS;
  const onWait = (w: ThrottleWait) => {
    waited = { waitMs: (waited?.waitMs ?? 0) + w.waitMs, reason: w.reason };
    told(w);
  };
  // on a provider's queue, the worker processes polling it share its declared rate
  const queue = info.taskQueue;
  const pollers = service.limits?.requestsPerMinute !== undefined ? () => pollingProcesses(ctx, queue) : undefined;
  const paced = <T>(call: () => Promise<T>, o: PacedCallOptions<T> = {}) =>
    gate.run(call, { ...o, signal, deadline, onWait, ...(pollers ? { pollers } : {}) });
  return { label: gate.label, paced, observe: (h: Headers) => gate.observe(h), waited: () => waited };
}

/** A cancellation-aware sleep for agents (the host's own heartbeat keeps the step alive meanwhile). */
const agentSleep = (ms: number): Promise<void> => Context.current().sleep(ms);

/**
 * A failure carrying what its attempt spent (unless it says already): a retried step's next attempt
 * reads it from the heartbeat, a final one is booked from the failure (classify.ts).
 */
function withUsage(failure: ApplicationFailure, spent: Usage | undefined): ApplicationFailure {
  const d = failure.details?.[0] as { usage?: Usage } | undefined;
  if (!spent || d?.usage || !failure.details) return failure;
  (failure.details as unknown[])[0] = { ...(d ?? {}), usage: spent };
  return failure;
}

/** What one call of the agent needs besides the step's input and its preflight. */
export interface CallContext {
  ctx: Context;
  attempt: number;
  gates: ProviderGates;
  observer?: StepObserver;
  stream: ReturnType<typeof createStepStream>;
  tell: Tell;
  /** The heartbeat's hook: what to clear when the attempt ends. */
  live: { done: () => void };
}

/** The agent's reply and the step's provider waits, or the attempt's failure (thrown). */
export async function callAgent(
  input: AgentStepInput,
  { def, params, guard }: Preflight,
  { ctx, attempt, gates, observer, stream, tell, live }: CallContext,
): Promise<{ reply: StepReply; waited: () => ThrottleWait | undefined }> {
  const taskId = input.task.id;
  const subtask = input.stepKey.slice(0, input.stepKey.lastIndexOf('#'));
  let notes = 0;
  const began = performance.now();
  const cut = latencyCut(ctx, input.budgetLeft.latencySeconds);
  live.done = cut.clear;
  const throttle = pacing(gates, ctx, def.service, cut.signal, (w) => {
    observer?.stepThrottled?.(throttle.label, input.agentId, w.waitMs, w.reason);
    log.info('provider throttled: the step waits', {
      agentId: input.agentId,
      provider: throttle.label,
      waitMs: w.waitMs,
      reason: w.reason,
    });
  });
  try {
    const stepping = def.step({
      ...input,
      params,
      attempt,
      state: input.state,
      sleep: agentSleep,
      signal: cut.signal,
      ...(throttle.paced ? { paced: throttle.paced, observeHeaders: throttle.observe } : {}),
      tenant: input.events?.tenant,
      onUsage: stream.onUsage,
      onText: stream.onText,
      // each note once per attempt: a retried attempt's notes are its own
      progress: (p) =>
        tell({
          key: `progress:${input.stepKey}#${attempt}#${++notes}`,
          type: 'subtask.step',
          data: { taskId, workflowId: subtask, agentId: input.agentId, step: input.step, attempt, done: false, progress: p },
        }),
    });
    const reply = await (cut.reached ? Promise.race([stepping, cut.reached]) : stepping);
    observer?.stepEnded(input.agentId, true, (performance.now() - began) / 1000);
    return { reply, waited: throttle.waited };
  } catch (err) {
    observer?.stepEnded(input.agentId, false, (performance.now() - began) / 1000);
    await stream.flush();
    if (cut.signal.aborted && !ctx.cancellationSignal.aborted)
      throw fatal(ErrorType.BudgetExceeded, `the latency budget ran out during step ${input.step}`, attempt, {
        ...(stream.details() ? { usage: stream.total() } : {}),
      });
    if (err instanceof ThrottledPastDeadline) {
      // back-pressure longer than this attempt may wait: the next attempt starts after the provider's wait,
      // and the breaker hears nothing (the agent did not fail)
      log.warn('provider throttles past the step timeout: the step goes again after the wait', {
        agentId: input.agentId,
        waitMs: err.waitMs,
      });
      throw ApplicationFailure.create({
        type: ErrorType.Throttled,
        message: `${err.message} (${err.reason})`,
        nextRetryDelay: err.waitMs,
        details: [{ attempt }],
      });
    }
    log.warn('agent step failed', { agentId: input.agentId, stepKey: input.stepKey, attempt, error: redact(String(err)) });
    const spent = stream.details()?.usage;
    const failure = withUsage(toFailure(err, attempt), spent);
    const max = input.maxAttempts ?? ctx.info.retryPolicy?.maximumAttempts ?? 0;
    const final = failure.nonRetryable || (ctx.info.retryPolicy?.nonRetryableErrorTypes ?? []).includes(failure.type ?? '');
    if (guard) {
      // a cancelled step says nothing about the agent's health: just free a half-open trial. Nor does an
      // attempt that will be retried: a transient fault (a 5xx among many successes) is told by its retry.
      // The breaker hears a step that failed for good (its last attempt, or a non-retryable error), or
      // its third attempt when retries are unlimited: counting retried attempts, a 10% transient 5xx
      // over 200 steps in flight reached the breaker as runs of failures and opened it
      const retried = !final && (max === 0 ? attempt < 3 : attempt < max);
      if (ctx.cancellationSignal.aborted || retried) await guard.breaker.abandoned(guard.circuit, guard.ticket);
      else await guard.breaker.failed(guard.circuit, redact(String(err)));
    }
    // a cancelled step says what it spent: the workflow awaits the cancellation and books it (hostRules 2)
    if (ctx.cancellationSignal.aborted && ctx.cancellationDetails?.cancelRequested)
      throw new CancelledFailure('step cancelled', [{ attempt, ...(spent ? { usage: spent } : {}) }]);
    // Temporal retries the step on the server: the line is written here, where the error is
    // known, once per attempt (activities are not replayed)
    if (!final && !ctx.cancellationSignal.aborted && (max === 0 || attempt < max)) {
      log.info('RETRY', {
        event: 'RETRY',
        step: input.step,
        attempt: attempt + 1,
        maxAttempts: max || 'unlimited',
        error: redact(String(err)).slice(0, 500),
      });
    }
    throw failure;
  }
}
