import pRetry from 'p-retry';
import { CancelledFailure, Context, log } from '@temporalio/activity';
import { appendFileSync } from 'node:fs';
import type { JobEvents, TaskStatsStore } from '../record';
import type { AgentManifest, AgentRef, Budget, Evidence, NewJobEvent, TaskSpec, Usage } from '../schemas';
import { ErrorType } from '../core/errors';
import { MAX_FALLBACKS } from '../schemas/job';
import { refusal, type AgentRegistry, type TaskFit } from './agents/registry';
import { semanticText } from './agents/semantic-router';
import type { AgentService, PacedCallOptions } from './agents/types';
import type { EventTarget, PreviousStage, RouteDecision, SteeringNote, StepAnswer, StepAsk } from '../contracts/step';
import { processGates, ThrottledPastDeadline, type ProviderGates, type ThrottleWait, type ThrottleWhy } from './provider-gate';
import type { CircuitBreaker } from './circuit-breaker';
import { fatal, toFailure } from './errors';
import { ApplicationFailure } from '@temporalio/activity';
import { schemaThreads } from './schema-thread';
import { ACTIVITY_QUEUE, createLoadRouter, describeWithClient, type LoadRouter } from './load-router';
import { createAdaptiveRouter, type AdaptiveRouter } from './adaptive-router';
import { DEFAULT_POOL_SLOTS } from '../schemas/pools';
import { redact } from './redact';
import { createStepStream } from './step-stream';
import type { RoleStepContext } from '../contracts/role';
import { spendAttributes, tagActiveSpan } from '../telemetry/tracing';

/** Input of `resolveAgent`: the task's reference and params. */
export interface ResolveAgentInput {
  agent: AgentRef;
  question: string;
  params?: Record<string, unknown>;
  /** The task's scope: capability routing only picks agents whose tools it allows. */
  scope?: string[];
  /** The lane the subtask's steps run on, whose pool queues capability routing reads (absent: this activity's queue). */
  lane?: string;
}

/** What `resolveAgent` answers: the agent's manifest, and which agent was chosen why. */
export interface ResolvedAgent {
  manifest: AgentManifest;
  routing: RouteDecision;
  /** A capability routed by load: its other agents that take the params and scope (id order, at most MAX_FALLBACKS), the task's fallbacks when it names none. */
  fallbacks?: string[];
}

/** Input of one `agentStep`. */
export interface AgentStepInput {
  agentId: string;
  task: TaskSpec;
  step: number;
  state?: unknown;
  budgetLeft: Budget;
  reprompt?: string;
  stepKey: string;
  /** The root job's event stream: the step writes `subtask.step` (and `subtask.retried` on a retry) there. */
  events?: EventTarget;
  /** In a pipeline: the previous stage's result, handed on to the agent as `StepRequest.previous`. */
  previous?: PreviousStage;
  /** The step's retry policy's attempts (for the RETRY log line; the policy itself is Temporal's). */
  maxAttempts?: number;
  /** A role task's policy and protocol answers (see role-protocol-tools.ts). */
  role?: RoleStepContext;
  /** The job's model for llm agents (set when the job has one). */
  model?: string;
  /** Output-token cap of one model turn, after routing. */
  maxOutputTokens?: number;
  /** The job's W3C trace context: HTTP and A2A agents receive it (`StepRequest.traceparent`), the step's log lines its trace id. */
  traceparent?: string;
  /** The answer to the previous step's question. */
  answer?: StepAnswer;
  /** Steering messages for this step. */
  messages?: SteeringNote[];
  /** Tools of `task.approval.tools` approved so far: a step calling another one is refused with ApprovalRequired first. */
  approvedTools?: string[];
}

/** Output of one `agentStep`, normalised by the host. */
export interface AgentStepOutput {
  done: boolean;
  usage: Usage;
  summary: string;
  data?: unknown;
  confidence: number;
  evidence: Evidence[];
  citations: string[];
  followUps: string[];
  channelsHit: string[];
  state?: unknown;
  attempt: number;
  /** Whether the step's data satisfies the task's outputSchema (set when the task has one and the step gave data). */
  schemaValid?: boolean;
  /** The agent asked a question instead of answering (never with `done`). */
  ask?: StepAsk;
  /** How long the step waited on its provider's throttling (absent: not at all). */
  throttledMs?: number;
}

/** What the agent activities need from their host. */
export interface AgentActivityDeps {
  registry: AgentRegistry;
  /** Append-only file recording each completed step (`<stepKey>\t<attempt>`), for audits. */
  stepLogPath?: string;
  /** Opens per remote agent after failed steps in a row, on any worker (builtin agents are never cut off). @default none: no breaker */
  breaker?: CircuitBreaker;
  /** Where jobs' live events are written (the record). */
  events?: JobEvents;
  /** Told of every step's retry and outcome (the worker's metrics). */
  observer?: StepObserver;
  /** Picks among a capability's agents by load. @default a router reading the worker's own Temporal client, every pool DEFAULT_POOL_SLOTS wide */
  router?: LoadRouter;
  /** The record's task statistics, which `{ capability, routing: 'adaptive' }` routes by. @default none: adaptive routing falls back on load */
  stats?: Pick<TaskStatsStore, 'window'>;
  /** Picks among a capability's agents by measured quality. @default one over `stats` */
  adaptive?: AdaptiveRouter;
  /** The process's provider gates: each remote agent's calls go through its service's. @default gates of this module's own */
  gates?: ProviderGates;
}

/** How long a step keeps trying to write one of its events before its attempt fails. */
const EVENT_RETRY_MS = 60_000;

/**
 * Appends `list` to a job's stream, trying again with backoff (100 ms doubling to 2 s, up to
 * EVENT_RETRY_MS; the step heartbeats meanwhile) while the record refuses (locked, connection
 * lost), as Temporal retries the job's lifecycle events. A written event is skipped by its key: a
 * retry after an unacknowledged commit writes it once.
 */
async function appendUntilWritten(
  events: JobEvents,
  tenant: string,
  jobId: string,
  list: NewJobEvent[],
  cancelled: AbortSignal,
): Promise<void> {
  await pRetry(() => events.append(tenant, jobId, list), {
    retries: Number.POSITIVE_INFINITY,
    minTimeout: 100,
    maxTimeout: 2000,
    maxRetryTime: EVENT_RETRY_MS,
    shouldRetry: () => !cancelled.aborted,
    onFailedAttempt: ({ error, attemptNumber }) =>
      log.warn('job event not written yet; trying again', { jobId, type: list[0]?.type, attempt: attemptNumber, error: String(error) }),
  });
}

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

/** How long after the subtask's latency budget a step cuts itself: the workflow's timer fires first and asks for the cancel. */
const LATENCY_CUT_GRACE_MS = 200;

/**
 * The step's own cut at the subtask's latency budget (measured from when the step was first
 * scheduled): the agent's signal aborts and the attempt ends with what it spent, without
 * waiting for the cancel to arrive with a heartbeat (the SDK throttles them to seconds apart).
 */
function latencyCut(ctx: Context, latencySeconds: number | undefined): { signal: AbortSignal; reached?: Promise<never>; clear(): void } {
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

/** What the step activity tells the worker's metrics. */
export interface StepObserver {
  /** A step's attempt after the first began. */
  stepRetried(agentId: string): void;
  /** An agent's step call ended, well or not, after `seconds`. */
  stepEnded(agentId: string, ok: boolean, seconds: number): void;
  /** A call of the agent waited `waitMs` on its provider (throttled, or pacing its tokens per minute). */
  stepThrottled?(provider: string, agentId: string, waitMs: number, reason: ThrottleWhy): void;
}

/** Largest step output the host accepts (JSON bytes); keeps every result well under Temporal's 2 MiB payload cap. */
export const MAX_STEP_OUTPUT_BYTES = 256 * 1024;

/** What a throttled step keeps of its attempt's time for the call after a wait. */
const PACING_MARGIN_MS = 5000;

/** How often the host heartbeats while an agent step runs. */
const HEARTBEAT_EVERY_MS = 2000;

/** A load router reading queues through the running activity's Temporal client (the worker's). */
function defaultRouter(): LoadRouter {
  return createLoadRouter({ describe: (queue) => describeWithClient(Context.current().client)(queue), slotsOf: () => DEFAULT_POOL_SLOTS });
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

/** The tenant of a subtask's workflow id (`job/<tenant>/<jobId>/<taskId>`); undefined for one started otherwise. */
export function tenantOf(workflowId: string): string | undefined {
  const m = /^job\/([^/]+)\//.exec(workflowId);
  return m?.[1];
}

/** A cancellation-aware sleep for agents (the host's own heartbeat keeps the step alive meanwhile). */
const agentSleep = (ms: number): Promise<void> => Context.current().sleep(ms);

/** Creates the activities that find agents and run their steps. */
export function createAgentActivities({
  registry,
  stepLogPath,
  breaker,
  events,
  observer,
  router = defaultRouter(),
  stats,
  adaptive = stats ? createAdaptiveRouter({ stats }) : undefined,
  gates = processGates,
}: AgentActivityDeps) {
  function validateParams(agentId: string, params: unknown): Record<string, unknown> {
    const def = registry.get(agentId);
    if (!def) throw fatal(ErrorType.NoAgent, `no agent "${agentId}"`);
    const parsed = def.params.safeParse(params ?? {});
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `params.${i.path.join('.')}: ${i.message}`).join('; ');
      throw fatal(ErrorType.InvalidInput, `invalid params for agent "${agentId}": ${issues}`);
    }
    return parsed.data;
  }

  /**
   * A semantic reference by the registry's router (embeddings when configured), among the agents
   * that take the task's params and scope; NoAgent, with the router's reason, below its threshold.
   */
  async function routeSemantic(ref: Extract<AgentRef, { route: 'semantic' }>, question: string, task: TaskFit) {
    const routed = await registry.semantic.route(semanticText(ref, question), registry.takes(task));
    if (routed.fallback) log.warn('semantic routing: the embeddings endpoint failed, BM25 decided', { error: redact(routed.fallback) });
    if (routed.id === undefined) throw fatal(ErrorType.NoAgent, `no agent matches ${JSON.stringify(ref)}: ${routed.reason}`);
    log.info('semantic routing', { agentId: routed.id, reason: routed.reason });
    return { def: registry.get(routed.id), reason: routed.reason };
  }

  /** A capability's agent: the only one, or among those that accept the params the least loaded. */
  async function routeCapability(
    ref: Extract<AgentRef, { capability: string }>,
    params: Record<string, unknown> | undefined,
    scope: string[] | undefined,
    lane?: string,
  ): Promise<ResolvedAgent> {
    const { capability } = ref;
    const all = registry.candidates(capability);
    if (all.length === 0) throw fatal(ErrorType.NoAgent, `no agent matches ${JSON.stringify({ capability })}`);
    const fit = all.filter((d) => refusal(d, params, scope) === undefined);
    // none takes the task: the first one's complaint says why
    if (fit.length === 0)
      throw fatal(ErrorType.InvalidInput, refusal(all[0], params, scope) ?? `no agent of capability ${capability} takes the task`);
    const only = (why: string): ResolvedAgent => ({ manifest: fit[0].manifest, routing: { agent: fit[0].manifest.id, reason: why } });
    if (all.length === 1) return only(`only agent with capability ${capability}`);
    if (fit.length === 1) return only(`only agent with capability ${capability} that takes the task`);
    const candidates = fit.map((d) => ({ agent: d.manifest.id, ...(d.manifest.pool ? { pool: d.manifest.pool } : {}) }));
    const byQuality = ref.routing === 'adaptive' && adaptive;
    const decision = byQuality
      ? await adaptive.route({
          tenant: tenantOf(Context.current().info.workflowExecution?.workflowId ?? ''),
          candidates,
          weights: ref.weights ?? {},
        })
      : await router.route({ capability, lane: lane ?? Context.current().info.taskQueue, candidates });
    log.info(`capability routed by ${byQuality ? 'measured quality' : 'load'}`, {
      capability,
      agentId: decision.agent,
      reason: decision.reason,
    });
    const fallbacks = fit
      .map((d) => d.manifest.id)
      .filter((id) => id !== decision.agent)
      .slice(0, MAX_FALLBACKS);
    return { manifest: registry.get(decision.agent)!.manifest, routing: decision, fallbacks };
  }

  return {
    /** Finds the agent a task names (a capability's by load, a semantic reference by ranking) and checks its params; NoAgent / InvalidInput otherwise. */
    async resolveAgent({ agent, question, params, scope, lane }: ResolveAgentInput): Promise<ResolvedAgent> {
      if (typeof agent === 'object' && 'capability' in agent) return routeCapability(agent, params, scope, lane);
      const { def, reason } =
        typeof agent !== 'string' && 'route' in agent
          ? await routeSemantic(agent, question, { params, scope })
          : { def: registry.resolve(agent, question), reason: 'named' };
      if (!def) throw fatal(ErrorType.NoAgent, `no agent matches ${JSON.stringify(agent)}`);
      validateParams(def.manifest.id, params);
      return { manifest: def.manifest, routing: { agent: def.manifest.id, reason } };
    },

    /** Runs one step of an agent, with the host's checks around it. */
    async agentStep(input: AgentStepInput): Promise<AgentStepOutput> {
      const ctx = Context.current();
      // the host heartbeats for the whole attempt (the breaker's checks, a wait for a schema
      // thread, the agent's call, the event writes), so a dead worker is noticed within the
      // heartbeat timeout and a cancelled step is told at once, however long any of them takes
      // every beat carries the step's spend so far: a heartbeat replaces the last one's details
      const live = { details: (): unknown => undefined, done: () => {} };
      const beat = setInterval(() => ctx.heartbeat(live.details()), HEARTBEAT_EVERY_MS);
      try {
        return await runStep(input, ctx, live);
      } finally {
        clearInterval(beat);
        live.done();
      }
    },
  };

  /**
   * A step's way through its agent's provider gate: the gate bound to the step's signal and to its
   * attempt's deadline (its timeout, the job's deadline), the waits summed for the step's event.
   */
  function pacing(ctx: Context, service: AgentService | undefined, signal: AbortSignal, told: (w: ThrottleWait) => void) {
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

  /** One attempt of a step, heartbeating meanwhile (agentStep). */
  async function runStep(
    input: AgentStepInput,
    ctx: Context,
    live: { details: () => unknown; done: () => void },
  ): Promise<AgentStepOutput> {
    const { attempt } = ctx.info;
    tagActiveSpan({
      'delegate.job_id': input.events?.jobId,
      'delegate.tenant': input.events?.tenant,
      'delegate.task_id': input.task.id,
      'delegate.agent_id': input.agentId,
      'delegate.step': input.step,
      'delegate.attempt': attempt,
    });
    const def = registry.get(input.agentId);
    if (!def) throw fatal(ErrorType.NoAgent, `no agent "${input.agentId}"`, attempt);
    const params = validateParams(input.agentId, input.task.params);
    const scope = new Set(input.task.scope ?? []);
    const denied = (def.toolsFor?.(params) ?? []).filter((t) => !scope.has(t));
    if (denied.length > 0) {
      throw fatal(ErrorType.ToolDenied, `tools not in the task scope: ${denied.join(', ')}`, attempt);
    }
    // a tool the approval policy names waits for a human before the agent runs: the workflow opens the approval
    const approved = new Set(input.approvedTools ?? []);
    const gated = (def.toolsFor?.(params) ?? []).filter((t) => input.task.approval?.tools?.includes(t) && !approved.has(t));
    if (gated.length > 0) {
      throw fatal(ErrorType.ApprovalRequired, `approval required before calling ${gated.join(', ')}`, attempt, {
        tools: gated,
        noReprompt: true,
      });
    }
    const guarded = breaker && def.manifest.kind !== 'builtin' ? breaker : undefined;
    // one tenant's failures (its own input may provoke them) open that tenant's circuit only
    const circuit = { agentId: def.manifest.id, ...(input.events?.tenant ? { tenant: input.events.tenant } : {}) };
    // a half-open trial is held by this attempt, on a lease as long as the attempt may take
    const ticket = { holder: `${input.stepKey}#${attempt}`, leaseMs: (ctx.info.startToCloseTimeoutMs || 60_000) + 5000 };
    const blocked = guarded ? await guarded.blockedFor(circuit, ticket) : 0;
    if (blocked > 0) {
      throw fatal(
        ErrorType.CircuitOpen,
        `circuit open for agent "${def.manifest.id}" after repeated failures; retry in ${Math.ceil(blocked / 1000)}s`,
        attempt,
      );
    }
    // a schema that cannot compile can never be satisfied: refuse before the agent spends anything.
    // Compiling and validating run in a schema thread, bounded in time and heap: a costly schema fails its own task only
    const schema = input.task.outputSchema;
    const schemaOwner = { owner: input.events?.tenant ?? 'unknown' };
    const compiled = schema ? await schemaThreads.compile(schema, schemaOwner) : undefined;
    if (compiled && !compiled.ok)
      throw fatal(ErrorType.InvalidOutput, `invalid outputSchema: ${compiled.error}`, attempt, { noReprompt: true });
    const taskId = input.task.id;
    const subtask = input.stepKey.slice(0, input.stepKey.lastIndexOf('#'));
    // the stream must match the result: a refused write is tried again, and one
    // the record keeps refusing fails the attempt (retryable) rather than vanish from the stream
    const tell = async (e: NewJobEvent) => {
      if (!input.events || !events) return;
      const { tenant, jobId } = input.events;
      try {
        await appendUntilWritten(events, tenant, jobId, [e], ctx.cancellationSignal);
      } catch (err) {
        throw toFailure(new Error(`job event ${e.type} not written to the record: ${String(err)}`), attempt);
      }
    };
    if (attempt > 1) observer?.stepRetried(input.agentId);
    if (attempt > 1)
      await tell({
        key: `retry:${input.stepKey}#${attempt}`,
        type: 'subtask.retried',
        data: { taskId, workflowId: subtask, step: input.step, attempt },
      });
    let reply;
    let notes = 0;
    const began = performance.now();
    const stream = createStepStream({
      ctx,
      ...(input.events && events ? { append: (e: NewJobEvent) => events.append(input.events!.tenant, input.events!.jobId, [e]) } : {}),
      fields: { taskId, workflowId: subtask, step: input.step, attempt },
      key: `${input.stepKey}#${attempt}`,
    });
    live.details = stream.details;
    const cut = latencyCut(ctx, input.budgetLeft.latencySeconds);
    live.done = cut.clear;
    const throttle = pacing(ctx, def.service, cut.signal, (w) => {
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
      reply = await (cut.reached ? Promise.race([stepping, cut.reached]) : stepping);
      observer?.stepEnded(input.agentId, true, (performance.now() - began) / 1000);
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
      if (guarded) {
        // a cancelled step says nothing about the agent's health: just free a half-open trial. Nor does an
        // attempt that will be retried: a transient fault (a 5xx among many successes) is told by its retry.
        // The breaker hears a step that failed for good (its last attempt, or a non-retryable error), or
        // its third attempt when retries are unlimited: counting retried attempts, a 10% transient 5xx
        // over 200 steps in flight reached the breaker as runs of failures and opened it
        const retried = !final && (max === 0 ? attempt < 3 : attempt < max);
        if (ctx.cancellationSignal.aborted || retried) await guarded.abandoned(circuit, ticket);
        else await guarded.failed(circuit, redact(String(err)));
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
    if (guarded) await guarded.succeeded(circuit);
    await stream.flush();
    // the step ran and spent: a refused output still carries its usage, so the subtask books it;
    // earlier attempts' spend (their last heartbeat's) is part of the step's
    const usage: Usage = stream.settle(reply.usage ?? {});
    tagActiveSpan(spendAttributes(usage));
    const size = Buffer.byteLength(JSON.stringify(reply) ?? '');
    if (size > MAX_STEP_OUTPUT_BYTES) {
      // a Temporal payload is capped at 2 MiB: refuse here, clearly, rather than fail the workflow later
      throw fatal(ErrorType.InvalidOutput, `step output of ${size} bytes exceeds the ${MAX_STEP_OUTPUT_BYTES}-byte limit`, attempt, {
        usage,
      });
    }
    // a final answer must satisfy the schema; an interim one is only checked, for "answer matches schema"
    let schemaValid: boolean | undefined;
    if (schema && (reply.done || reply.data !== undefined)) {
      const checked = await schemaThreads.validate(schema, reply.data, schemaOwner);
      // stopped at its bound: another answer would cost the same, so no re-prompt
      if (!checked.ok) throw fatal(ErrorType.InvalidOutput, checked.error, attempt, { usage, noReprompt: true });
      const why = checked.why;
      if (reply.done && why) throw fatal(ErrorType.InvalidOutput, `output does not satisfy outputSchema: ${why}`, attempt, { usage });
      schemaValid = !why;
    }
    if (stepLogPath) appendFileSync(stepLogPath, `${input.stepKey}\t${attempt}\n`);
    await tell({
      key: `step:${input.stepKey}`,
      type: 'subtask.step',
      data: {
        taskId,
        workflowId: subtask,
        agentId: input.agentId,
        step: input.step,
        attempt,
        done: reply.done,
        usage,
        ...(reply.tools?.length ? { tools: reply.tools } : {}),
        ...(throttle.waited() ? { throttled: throttle.waited() } : {}),
      },
    });
    return {
      done: reply.done,
      usage,
      summary: reply.summary ?? '',
      data: reply.data,
      confidence: Math.min(1, Math.max(0, reply.confidence ?? 0.5)),
      evidence: reply.evidence ?? [],
      citations: reply.citations ?? [],
      followUps: reply.followUps ?? [],
      channelsHit: reply.channelsHit ?? [],
      state: reply.state,
      attempt,
      ...(schemaValid !== undefined ? { schemaValid } : {}),
      ...(throttle.waited() ? { throttledMs: throttle.waited()!.waitMs } : {}),
      // a question is asked only by a step that is not done; its text and schema are bounded like any payload
      ...(reply.ask && !reply.done
        ? { ask: { question: String(reply.ask.question).slice(0, 10_000), answerSchema: reply.ask.answerSchema } }
        : {}),
    };
  }
}
