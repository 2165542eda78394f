/**
 * The subtask: one agent working on one question, as a durable loop of steps.
 *
 *   resolve agent ──> [ stop? cancel? budget left? ──> step (activity, retried) ──> book spend ]* ──> TaskResult
 *
 * Every step is an activity with the task's timeout and retry policy. Between steps the
 * loop checks the stop/cancel signals and every budget axis; a slow step is cut when the
 * latency budget runs out. Whatever happens, the subtask returns a result with the work
 * done so far: it never throws the job's work away.
 */
import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  log,
  patched,
  proxyActivities,
  proxySinks,
  setCurrentDetails,
  setHandler,
  TimeoutFailure,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities, AgentStepOutput, PreviousStage } from '../activities';
import type { FailureDetails } from '../activities/errors';
import type { AgentManifest, AgentTry, Budget, Evidence, FailureReason, TaskResult, TaskSpec, Usage } from '../schemas';
import { ErrorType, NON_RETRYABLE_ERROR_TYPES } from '../core/errors';
import type { EventTarget } from './job/events';
import { cancelSignal, grantSignal, stopSignal, subtaskStatusQuery, type SubtaskStatus } from './messages';
import { charge, usageOf, exhaustedAxes, newLedger, remaining, snapshot, topUp, type LedgerState } from '../core/budget-ledger';
import { DEFAULT_STEP_CEILING_SECONDS, MAX_CARRY_BYTES, msLeft, pastHardMark, pastSoftMark } from '../core/engine-limits';
import { agentLabel, dedupe, dedupeEvidence, fitList, jsonBytes, notRunResult } from '../core/task-results';
import { clampStepPolicy, noWorkerMessage, scheduleToStartOption } from './step-policy';
import { setLogContext } from './log-context';
import { AGENT_KEY, FAILURE_REASON_KEY, STATUS_KEY, taskOutcome, TENANT_KEY } from '../core/search-attributes';
import type { DelegateMetricsSinks } from './telemetry-sinks';
import { staticSummary, subtaskDetails } from './ui-details';
import { subtaskMessages } from './messages';
import { evaluateStopConditions, parseStopConditions, rubrics, type StopCondition, type StopHit } from '../core/stop-conditions';
import { checkSummary } from '../core/summary-sentences';
import { effectivePriority } from '../core/priority';
import { originOfTask, toResearchOutput, withoutSeed } from '../core/research-output';
import { RoleHost, type RoleHostCarry } from './role-host';
import { FALLBACK_PATCH, fallsBack } from './fallbacks';
import { stepQueueFor } from '../core/names';
import { readResolved, submittedRouting, type Routing } from './routing';

/** A subtask keeps at most this much evidence (JSON bytes), so its result stays a small payload. */
const MAX_EVIDENCE_BYTES = 512 * 1024;
/** And at most this much of each list (follow-ups, citations). */
const MAX_LIST_BYTES = 64 * 1024;
/** A subtask result never passes this (Temporal refuses payloads over 2 MiB). */
const MAX_RESULT_BYTES = 1_500_000;

/**
 * The host rules jobs start subtasks with (input `hostRules`). 1: stop conditions are
 * enforced between steps, a budget halt is `partial` even before the first step, and a
 * research-contract summary gets its one re-prompt. Runs started without it (before these
 * rules) keep their old behaviour, so their histories replay.
 */
export const HOST_RULES = 1;

/** Starts the host's summary re-prompt (an agent's own re-prompts start otherwise). */
const SUMMARY_REPROMPT_PREFIX = 'Summary:';

/** Input of the subtask workflow. */
export interface SubtaskInput {
  task: TaskSpec;
  jobId: string;
  /** The budget this subtask may spend: the lower of its own and what its job had left. */
  allocation: Budget;
  /** In a pipeline: the previous stage's result, handed to the agent with every step. */
  previous?: PreviousStage;
  /** The tenant's agent lane: the task queue its steps run on (default: the workflow's own); a pooled agent's on `<lane>.pool-<pool>`. */
  agentQueue?: string;
  /** The agent's manifest, resolved at submission: no `resolveAgent` activity (absent: resolved here). */
  manifest?: AgentManifest;
  /** Wall-clock deadline (epoch ms, the job's): the subtask halts there with `timeout` and its work. */
  deadline?: number;
  /** Ceiling on one step's worst case (timeout × attempts + backoff); the policy is clamped to it. */
  stepCeilingSeconds?: number;
  /** Longest a step waits for a worker to start it, then `agent_unavailable` (0: no bound). @default 300 */
  stepScheduleToStartSeconds?: number;
  /** Continue as new after this many steps in one run (tests lower it); history size decides otherwise. */
  stepsPerRun?: number;
  /** Set by the previous run of a long loop (continue-as-new): everything the loop had. */
  carry?: SubtaskCarry;
  /** The root job's event stream: each step writes its event there. */
  events?: EventTarget;
  /**
   * Set by jobs since subtasks show their outcome in the UI: the run upserts its outcome's
   * search attributes, and a failure fails the run. Runs started before complete as they
   * always did, so their histories replay: the input decides, not a patch marker (which
   * would cost two events per subtask).
   */
  showOutcome?: boolean;
  /** The host rules this run enforces (HOST_RULES when a job starts it); absent: none of them. */
  hostRules?: number;
  /** The job's model when this subtask started: its llm agent runs on it (a later switch does not reach it). */
  model?: string;
  /** The job's output-token cap of one model turn (a role's lower cap stays). */
  maxOutputTokens?: number;
}

/** A subtask's loop state, carried whole into its next run; lists are capped as in its result. */
export interface SubtaskCarry {
  startedAt: number;
  manifest: AgentManifest;
  ledger: LedgerState;
  steps: number;
  attempts: number;
  evidence: Evidence[];
  citations: string[];
  followUps: string[];
  channels: string[];
  errors: string[];
  summary: string;
  data?: unknown;
  confidence: number;
  state?: unknown;
  reprompt?: string;
  stopRequested: boolean;
  cancelRequested: boolean;
  /** Runs so far (1 for the first), for logs and tests. */
  runs: number;
  stoppedBy?: string;
  notes?: string[];
  summaryReprompted?: boolean;
  schemaValid?: boolean | null;
  /** A role task's protocol state. */
  role?: RoleHostCarry;
  /** A task with fallbacks: the next fallback's index, the agents left behind, and the step the current agent began at. */
  fallbackAt?: number;
  agentsTried?: AgentTry[];
  agentStartStep?: number;
  routing?: Routing;
  /** The fallbacks a capability routed by load inherited (its other agents), when the task names none. */
  fallbacks?: string[];
}


const { resolveAgent } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3, nonRetryableErrorTypes: NON_RETRYABLE_ERROR_TYPES },
});

/** The judge of free-text stop conditions, on the lane the steps run on. */
const judgeActivity = (taskQueue?: string) =>
  proxyActivities<Activities>({
    startToCloseTimeout: '2 minutes',
    retry: { maximumAttempts: 2, nonRetryableErrorTypes: NON_RETRYABLE_ERROR_TYPES },
    ...(taskQueue ? { taskQueue } : {}),
  }).judgeRubrics;

type StepOutcome = { kind: 'ok'; out: AgentStepOutput } | { kind: 'failed'; err: unknown } | { kind: 'cancel' } | { kind: 'latency' };

/** What a failed step reports: why, after how many attempts, what it spent, and whether a re-prompt may help. */
interface StepFailure {
  reason: FailureReason;
  attempts: number;
  message: string;
  usage?: Usage;
  noReprompt?: boolean;
}

/** The failure reason, attempts and spend of a step that did not complete. */
function classify(err: unknown, maxAttempts: number): StepFailure {
  if (isCancellation(err)) return { reason: 'cancelled', attempts: 1, message: 'cancelled' };
  const cause = err instanceof ActivityFailure ? err.cause : err;
  const message = cause instanceof Error ? cause.message : String(cause);
  if (cause instanceof TimeoutFailure && cause.timeoutType === 'SCHEDULE_TO_START') return { reason: 'agent_unavailable', attempts: 1, message };
  if (cause instanceof TimeoutFailure) return { reason: 'timeout', attempts: maxAttempts, message: `step timed out: ${message}` };
  if (cause instanceof ApplicationFailure) {
    const details = cause.details?.[0] as (FailureDetails & { attempt?: number }) | undefined;
    const attempt = details?.attempt ?? maxAttempts;
    const reason: FailureReason =
      cause.type === ErrorType.ToolDenied ? 'tool_denied'
      : cause.type === ErrorType.InvalidOutput ? 'invalid_output'
      : cause.type === ErrorType.NoAgent ? 'no_agent'
      : cause.type === ErrorType.BudgetExceeded ? 'budget_exhausted'
      : cause.type === ErrorType.CircuitOpen ? 'circuit_open'
      : 'agent_error';
    return { reason, attempts: attempt, message, usage: details?.usage, noReprompt: details?.noReprompt };
  }
  return { reason: 'agent_error', attempts: maxAttempts, message };
}

/** Runs one subtask to a TaskResult. The function name is the workflow type: do not rename. */
export async function subtask(input: SubtaskInput): Promise<TaskResult> {
  const { task, jobId, allocation, previous, deadline, carry, agentQueue } = input;
  const started = carry?.startedAt ?? Date.now();
  const elapsed = () => (Date.now() - started) / 1000;
  const ledger = carry?.ledger ?? newLedger(allocation);
  let stopRequested = carry?.stopRequested ?? false;
  let cancelRequested = carry?.cancelRequested ?? false;
  let phase: SubtaskStatus['phase'] = 'resolving';
  let agentId = carry?.manifest.id ?? input.manifest?.id ?? agentLabel(task);
  let steps = carry?.steps ?? 0;
  const pastDeadline = () => msLeft(deadline, Date.now()) <= 0;
  const rules = input.hostRules ?? 0;
  // the API refused malformed conditions; a TaskSpec from elsewhere keeps the ones that parse
  const stops: StopCondition[] = rules >= 1 ? parseStopConditions(task.stopConditions ?? []).conditions : [];
  const haltOnBudget = stops.find((c) => c.kind === 'budget_exhausted');
  let stoppedBy: string | undefined = carry?.stoppedBy;
  const notes: string[] = [...(carry?.notes ?? [])];
  let summaryReprompted = carry?.summaryReprompted ?? false;
  let schemaValid: boolean | null = carry?.schemaValid ?? null;
  // fallback agents: where the task is in its list, the agents it left, the step the current agent began at
  // a capability routed by load inherits its other agents when the task names no fallbacks (set once resolved)
  let fallbacks = task.fallback ?? carry?.fallbacks ?? [];
  let fallbackAt = carry?.fallbackAt ?? 0;
  const tried: AgentTry[] = [...(carry?.agentsTried ?? [])];
  let agentStartStep = carry?.agentStartStep ?? 0;
  let triedAll = false;

  const tenant = workflowInfo().typedSearchAttributes.get(TENANT_KEY) ?? input.events?.tenant ?? 'default';
  setLogContext({ agent: agentId });
  setHandler(stopSignal, () => void (stopRequested = true), { description: subtaskMessages.stop });
  setHandler(cancelSignal, () => void (cancelRequested = true), { description: subtaskMessages.cancel });
  setHandler(grantSignal, ({ add }) => {
    topUp(ledger, add);
    showDetails();
  }, { description: subtaskMessages.grant });
  setHandler(subtaskStatusQuery, () => ({ id: task.id, agentId, phase, steps, ledger: snapshot(ledger, elapsed()) }), { description: subtaskMessages.status });

  let attempts = carry?.attempts ?? 0;
  let routing: Routing | undefined = carry?.routing;
  const errors: string[] = [...(carry?.errors ?? [])];
  /** The UI's current details: step, attempts, spend against the budget, the last error. */
  function showDetails(): void {
    setCurrentDetails(subtaskDetails({ taskId: task.id, agentId, phase, steps, attempts, ledger: snapshot(ledger, elapsed()), lastError: errors.at(-1), routing }));
  }
  showDetails();

  /** The next fallback agent's manifest; those that cannot be resolved are recorded and skipped. Undefined when none is left. */
  async function nextFallback(): Promise<AgentManifest | undefined> {
    while (fallbackAt < fallbacks.length) {
      const id = fallbacks[fallbackAt++];
      try {
        return readResolved(await resolveAgent({ agent: id, question: task.question, params: task.params, lane: agentQueue })).manifest;
      } catch (err) {
        const c = classify(err, 1);
        tried.push({ agent: id, outcome: 'failure', reason: c.reason, error: c.message.slice(0, 500) });
        errors.push(`fallback agent "${id}": ${c.message}`);
      }
    }
    return undefined;
  }

  let manifest: AgentManifest;
  // a role task: the role says which agent plays it, and the host holds the task until bootstrap
  let roleHost: RoleHost | undefined;
  try {
    if (task.role) roleHost = await RoleHost.open(task, { model: input.model, maxOutputTokens: input.maxOutputTokens, previous }, carry?.role);
    // a continued run keeps the agent it had: routing must not pick another one halfway
    if (carry) manifest = carry.manifest;
    else if (input.manifest) [manifest, routing] = [input.manifest, submittedRouting(task, input.manifest)];
    else if (roleHost?.manifest) [manifest, routing] = [roleHost.manifest, { agent: roleHost.manifest.id, reason: `plays role ${task.role}` }];
    else {
      const resolved = readResolved(await resolveAgent({ agent: task.agent ?? '', question: task.question, params: task.params, scope: task.scope, lane: agentQueue }));
      ({ manifest, routing } = resolved);
      if (!task.fallback && resolved.fallbacks) fallbacks = resolved.fallbacks;
    }
  } catch (err) {
    const { reason, message } = classify(err, 1);
    const next = fallbacks.length > 0 && fallsBack(reason, pastDeadline()) && patched(FALLBACK_PATCH)
      ? (tried.push({ agent: agentLabel(task), outcome: 'failure', reason, error: message.slice(0, 500) }), errors.push(message), await nextFallback())
      : undefined;
    if (!next) {
      const r = notRunResult(task, reason === 'agent_error' ? 'agent_error' : reason, message);
      return finish({ ...r, metrics: { ...r.metrics, latencyMs: Date.now() - started }, ...(tried.length > 0 ? { agentsTried: tried, errors: errors.slice(0, 50) } : {}) });
    }
    manifest = next;
    routing = { agent: next.id, reason: `fallback after ${reason} of ${agentLabel(task)}` };
  }
  agentId = manifest.id;
  phase = 'running';
  setLogContext({ agent: agentId });
  showDetails();
  // a step's worst case (timeout × attempts + backoff) stays under the operator's ceiling
  const policyOf = (m: AgentManifest) => clampStepPolicy(
    { timeoutSeconds: task.timeoutSeconds ?? m.limits.timeoutSeconds, retry: { ...m.retry, ...task.retry } },
    input.stepCeilingSeconds ?? DEFAULT_STEP_CEILING_SECONDS,
  );
  let policy = policyOf(manifest);
  let retry = policy.retry;
  // a pooled agent's steps go to its pool's queue on the lane: read from the manifest of the moment
  const stepQueue = () => (manifest.pool ? stepQueueFor(agentQueue ?? workflowInfo().taskQueue, manifest.pool) : agentQueue);
  // the deadline bounds a step with its retries (schedule-to-close): no timer, no extra history events
  const stepActivity = () => proxyActivities<Activities>({
    ...(deadline !== undefined ? { scheduleToCloseTimeout: Math.max(1, msLeft(deadline, Date.now())) } : {}),
    ...(stepQueue() ? { taskQueue: stepQueue() } : {}),
    // a step nobody polls for ends agent_unavailable: only the timeout differs, not the command replay compares
    ...scheduleToStartOption(input.stepScheduleToStartSeconds),
    // steps inherit the run's priority too; said here so a run continued as new keeps it for sure
    ...(task.priority !== undefined ? { priority: { priorityKey: task.priority } } : {}),
    startToCloseTimeout: `${policy.timeoutSeconds} seconds`,
    // the host heartbeats every 2 s while a step runs: a step on a dead worker is retried within 10 s
    heartbeatTimeout: '10 seconds',
    summary: staticSummary(task, manifest.id),
    retry: {
      maximumAttempts: retry.maxAttempts,
      initialInterval: `${retry.initialIntervalSeconds} seconds`,
      backoffCoefficient: retry.backoffCoefficient,
      maximumInterval: `${retry.maximumIntervalSeconds} seconds`,
      nonRetryableErrorTypes: NON_RETRYABLE_ERROR_TYPES,
    },
  });

  /**
   * With `budgetWaitSeconds`, a subtask whose budget ran out waits that long for a top-up
   * (the job's or its own) before halting; true when it may go on.
   */
  async function waitForTopUp(): Promise<boolean> {
    const wait = task.budgetWaitSeconds ?? 0;
    // delegated role children never wait for a human's approval (of more budget or anything else)
    if (wait <= 0 || roleHost) return false;
    phase = 'waiting_for_budget';
    log.info('subtask waiting for a budget top-up', { jobId, taskId: task.id, waitSeconds: wait });
    const refilled = () => exhaustedAxes(ledger, elapsed()).length === 0;
    const waitMs = Math.min(wait * 1000, msLeft(deadline, Date.now()));
    await condition(() => refilled() || stopRequested || cancelRequested, Math.max(1, waitMs)).catch(() => false);
    phase = 'running';
    return refilled() && !stopRequested && !cancelRequested;
  }

  /**
   * The run's end: the outcome for the UI and the metrics, then the result. A subtask that
   * failed ends its run as failed (a typed failure carrying the whole result, which the job
   * turns back into the TaskResult), so the UI lists it in red; one cancelled or stopped on
   * purpose completes, its search attributes say why.
   */
  function finish(result: TaskResult): TaskResult {
    phase = 'done';
    showDetails();
    const m = result.metrics;
    proxySinks<DelegateMetricsSinks>().delegateMetrics.subtaskFinished({
      tenant, agentId: result.agentId, status: result.status, failureReason: result.failureReason, attempts: m.attempts, steps: m.steps,
      costUsd: m.costUsd, tokens: m.tokens, toolCalls: m.toolCalls, latencyMs: m.latencyMs,
    });
    if (!input.showOutcome) return result;
    const outcome = taskOutcome(result);
    upsertSearchAttributes([
      { key: STATUS_KEY, value: outcome },
      { key: AGENT_KEY, value: result.agentId },
      ...(result.failureReason ? [{ key: FAILURE_REASON_KEY, value: result.failureReason }] : []),
    ]);
    if (outcome !== 'failure') return result;
    const failure = ApplicationFailure.create({
      type: ErrorType.SubtaskFailed,
      nonRetryable: true,
      message: `${result.failureReason ?? 'failure'}: ${result.errors.at(-1) ?? result.summary}`.slice(0, 500),
      details: [result],
    });
    // the result is the failure's payload; a stack trace of the SDK's internals would only add bytes
    failure.stack = '';
    throw failure;
  }

  /** One step, raced against the latency budget and the cancel signal. */
  async function runStep(input: Parameters<Activities['agentStep']>[0]): Promise<StepOutcome> {
    const { agentStep } = stepActivity();
    const stepScope = new CancellationScope();
    const step = stepScope.run(() => agentStep(input)).then(
      (out): StepOutcome => ({ kind: 'ok', out }),
      (err): StepOutcome => ({ kind: 'failed', err }),
    );
    const latencyLeft = remaining(ledger, elapsed()).latencySeconds;
    const watchScope = new CancellationScope();
    const watch = watchScope
      .run(() =>
        latencyLeft === undefined
          ? condition(() => cancelRequested).then(() => true)
          : condition(() => cancelRequested, Math.max(1, Math.round(latencyLeft * 1000))),
      )
      .then(
        (signalled): StepOutcome => (signalled ? { kind: 'cancel' } : { kind: 'latency' }),
        (): StepOutcome => ({ kind: 'cancel' }),
      );
    const first = await Promise.race([step, watch]);
    if (first.kind === 'ok' || first.kind === 'failed') {
      watchScope.cancel();
      return first;
    }
    stepScope.cancel();
    await step;
    return first;
  }

  let evidence: Evidence[] = carry?.evidence ?? [];
  const citations: string[] = [...(carry?.citations ?? [])];
  const followUps: string[] = [...(carry?.followUps ?? [])];
  const channels = new Set<string>(carry?.channels);
  let summary = carry?.summary ?? '';
  let data: unknown = carry?.data;
  let confidence = carry?.confidence ?? 0;
  let state: unknown = carry?.state;
  let reprompt: string | undefined = carry?.reprompt;
  let done = false;
  let reason: FailureReason | null = null;
  const stepsBefore = steps;

  /** The loop's whole state, lists capped as the result caps them (so nothing is lost by carrying). */
  const carryOn = (): SubtaskCarry => ({
    startedAt: started, manifest, ledger, steps, attempts, evidence,
    citations: fitList(dedupe(citations), MAX_LIST_BYTES),
    followUps: fitList(dedupe(followUps), MAX_LIST_BYTES),
    channels: [...channels],
    errors: errors.slice(0, 50).map((e) => e.slice(0, 2000)),
    summary, data, confidence, state, reprompt, stopRequested, cancelRequested,
    runs: (carry?.runs ?? 1) + 1,
    ...(rules >= 1 ? { stoppedBy, notes: notes.slice(0, 50), summaryReprompted, schemaValid } : {}),
    ...(roleHost ? { role: roleHost.carry() } : {}),
    ...(fallbacks.length > 0 ? { fallbackAt, agentsTried: tried, agentStartStep, ...(task.fallback ? {} : { fallbacks }) } : {}),
    ...(routing ? { routing } : {}),
  });

  /**
   * After the agent failed for good (or its circuit is open): the next fallback agent takes
   * over with the same ledger, evidence and deadline, from a fresh agent state. False when
   * the failure is not the agent's, or no fallback is left.
   */
  async function switchAgent(why: FailureReason, message: string): Promise<boolean> {
    if (fallbackAt >= fallbacks.length || !fallsBack(why, pastDeadline()) || !patched(FALLBACK_PATCH)) return false;
    tried.push({ agent: manifest.id, outcome: 'failure', reason: why, error: message.slice(0, 500) });
    const next = await nextFallback();
    if (!next) {
      // every fallback left failed to resolve: the list already ends with this agent and those
      triedAll = true;
      return false;
    }
    log.info('subtask falls back to another agent', { jobId, taskId: task.id, from: manifest.id, to: next.id, reason: why });
    routing = { agent: next.id, reason: `fallback after ${why} of ${manifest.id}` };
    manifest = next;
    agentId = next.id;
    policy = policyOf(next);
    retry = policy.retry;
    agentStartStep = steps;
    state = undefined;
    reprompt = undefined;
    setLogContext({ agent: agentId });
    showDetails();
    return true;
  }

  /** The first stop condition that holds after a step; rubrics go to the judge (booked here) when nothing else holds. */
  async function stopHit(): Promise<StopHit | null> {
    const state = {
      steps, confidence, schemaValid,
      evidence: withoutSeed(task.contextSeed ?? [], evidence).evidence.length,
      exhaustedAxes: exhaustedAxes(ledger, elapsed()),
    };
    const hit = evaluateStopConditions(stops.filter((c) => c.kind !== 'rubric'), state);
    const texts = rubrics(stops);
    if (hit || texts.length === 0) return hit;
    if (state.exhaustedAxes.length > 0) return null;
    try {
      const verdict = await judgeActivity(agentQueue)({
        taskId: task.id, question: task.question, rubrics: texts, summary, data,
        evidence: evidence.slice(0, 20).map((e) => ({ title: e.title, url: e.url, snippet: e.snippet.slice(0, 300) })),
        budgetLeft: remaining(ledger, elapsed()), stepKey: `${workflowInfo().workflowId}#${steps}`,
      });
      charge(ledger, verdict.usage);
      if (verdict.judge === null) {
        const note = 'rubric stop conditions not judged: no judge agent is configured (DELEGATE_JUDGE_AGENT)';
        if (!notes.includes(note)) notes.push(note);
        return null;
      }
      const held = evaluateStopConditions(stops, { ...state, rubricVerdicts: verdict.verdicts });
      if (held?.condition.kind === 'rubric') notes.push(`judge ${verdict.judge}: "${held.condition.text}" holds${verdict.reasons[held.condition.text] ? ` (${verdict.reasons[held.condition.text]})` : ''}`);
      return held;
    } catch (err) {
      notes.push(`judge failed after step ${steps}: ${classify(err, 2).message}`.slice(0, 500));
      return null;
    }
  }

  while (!done) {
    if (cancelRequested) reason = 'cancelled';
    else if (stopRequested) reason = 'stopped';
    else if (pastDeadline()) {
      reason = 'timeout';
      errors.push('the job reached its maximum duration');
    }
    else if (exhaustedAxes(ledger, elapsed()).length > 0 && (haltOnBudget !== undefined || !(await waitForTopUp()))) {
      reason = cancelRequested ? 'cancelled' : stopRequested ? 'stopped' : 'budget_exhausted';
      if (reason === 'budget_exhausted' && rules >= 1) {
        if (haltOnBudget) stoppedBy = haltOnBudget.text;
        errors.push(`${exhaustedAxes(ledger, elapsed()).join(', ')} budget spent ${steps === 0 ? 'before the first step' : `after step ${steps}`}`);
      }
    }
    else if (steps - agentStartStep >= manifest.limits.maxSteps) {
      errors.push(`agent did not finish within its ${manifest.limits.maxSteps} steps`);
      if (await switchAgent('agent_error', errors.at(-1)!)) continue;
      reason = 'agent_error';
    }
    if (reason) break;
    if (pastSoftMark(workflowInfo(), steps - stepsBefore, input.stepsPerRun)) {
      // a long loop goes on in a fresh run before its history nears Temporal's limits
      await condition(allHandlersFinished);
      const next: SubtaskInput = { ...input, carry: carryOn() };
      if (jsonBytes(next) <= MAX_CARRY_BYTES) {
        log.info('subtask continues as new', { jobId, taskId: task.id, steps, runs: next.carry!.runs });
        await continueAsNew<typeof subtask>(next);
      }
      if (pastHardMark(workflowInfo())) {
        reason = 'agent_error';
        errors.push(`halted at step ${steps}: its history is near Temporal's limit and its state (${jsonBytes(next)} bytes) is too big to carry`);
        break;
      }
    }
    const awaitingSummary = reprompt?.startsWith(SUMMARY_REPROMPT_PREFIX) ?? false;
    const outcome = await runStep({
      agentId: manifest.id,
      task: { ...task, job: undefined },
      step: steps,
      state,
      budgetLeft: remaining(ledger, elapsed()),
      reprompt,
      // a fallback agent's steps have keys of their own: the failed agent's step had this number too
      stepKey: `${workflowInfo().workflowId}#${steps}${reprompt ? ':reprompt' : ''}${agentStartStep > 0 || tried.length > 0 ? `@${manifest.id}` : ''}`,
      previous,
      maxAttempts: retry.maxAttempts,
      ...(input.events ? { events: input.events } : {}),
      ...(roleHost ? roleHost.stepFields() : {
        ...(input.model ? { model: input.model } : {}),
        ...(input.maxOutputTokens ? { maxOutputTokens: input.maxOutputTokens } : {}),
      }),
    });
    if (outcome.kind === 'cancel') {
      reason = 'cancelled';
      attempts += 1;
      break;
    }
    if (awaitingSummary && outcome.kind !== 'ok') {
      // the answer was complete before its summary was re-prompted: a failed re-prompt keeps it
      attempts += outcome.kind === 'failed' ? classify(outcome.err, retry.maxAttempts).attempts : 1;
      notes.push('the summary re-prompt did not complete: the first answer is kept');
      done = true;
      continue;
    }
    if (outcome.kind === 'latency') {
      // the cut step is lost; the check at the top of the loop halts, or waits for a top-up
      // (budgetWaitSeconds) and then runs the step again
      attempts += 1;
      errors.push(`latency budget of ${ledger.limit.latencySeconds}s ran out during step ${steps}`);
      showDetails();
      continue;
    }
    if (outcome.kind === 'failed') {
      const c = classify(outcome.err, retry.maxAttempts);
      attempts += c.attempts;
      errors.push(c.reason === 'timeout' && pastDeadline() ? `the job reached its maximum duration during step ${steps}`
        : c.reason === 'agent_unavailable' ? noWorkerMessage(stepQueue() ?? workflowInfo().taskQueue, input.stepScheduleToStartSeconds) : c.message);
      // a refused output was still paid for
      if (c.usage) charge(ledger, c.usage);
      if (c.reason === 'invalid_output' && reprompt === undefined && !c.noReprompt) {
        reprompt = `Your previous output was rejected: ${c.message}. Answer again so that data satisfies the output schema.`;
        log.info('RETRY', { event: 'RETRY', step: steps, attempt: 2, maxAttempts: 2, error: c.message.slice(0, 500), why: 're-prompt after invalid output' });
        showDetails();
        continue;
      }
      if (await switchAgent(c.reason, c.message)) continue;
      reason = c.reason;
      break;
    }
    const out = outcome.out;
    attempts += out.attempt;
    steps += 1;
    reprompt = undefined;
    charge(ledger, out.usage);
    evidence = dedupeEvidence([...evidence, ...out.evidence]);
    if (jsonBytes(evidence) > MAX_EVIDENCE_BYTES) {
      const before = evidence.length;
      evidence = fitList(evidence, MAX_EVIDENCE_BYTES);
      errors.push(`evidence capped at ${evidence.length} of ${before} items (${MAX_EVIDENCE_BYTES} bytes)`);
    }
    citations.push(...out.citations);
    followUps.push(...out.followUps);
    out.channelsHit.forEach((c) => channels.add(c));
    if (out.summary) summary = out.summary;
    if (out.data !== undefined) data = out.data;
    confidence = out.confidence;
    state = out.state;
    done = out.done;
    if (out.schemaValid !== undefined) schemaValid = out.schemaValid;
    showDetails();
    if (roleHost) {
      // the protocol: answer the child's calls for the next step, or check its final output's place
      const next = await roleHost.afterStep(out);
      if (next.kind === 'fail') {
        reason = next.reason;
        errors.push(next.message);
        break;
      }
      if (next.kind === 'reprompt') {
        done = false;
        reprompt = next.message;
        log.info('RETRY', { event: 'RETRY', step: steps, attempt: 2, maxAttempts: 2, error: next.message.slice(0, 500), why: 're-prompt after a protocol error' });
        continue;
      }
    }
    if (rules < 1) continue;
    if (done && task.research && !summaryReprompted && steps - agentStartStep < manifest.limits.maxSteps && exhaustedAxes(ledger, elapsed()).length === 0) {
      // the contract's summary is 3–6 sentences: one re-prompt, then the mapping trims it
      const check = checkSummary(summary);
      if (!check.ok) {
        summaryReprompted = true;
        reprompt = `${SUMMARY_REPROMPT_PREFIX} ${check.reprompt}`;
        done = false;
        notes.push(`summary re-prompted once: it had ${check.sentences} sentence${check.sentences === 1 ? '' : 's'}`);
        log.info('RETRY', { event: 'RETRY', step: steps, attempt: 2, maxAttempts: 2, error: `summary of ${check.sentences} sentences`, why: 're-prompt for a 3–6 sentence summary' });
        continue;
      }
    }
    if (!done && stops.length > 0) {
      const hit = await stopHit();
      if (hit) {
        stoppedBy = hit.condition.text;
        log.info('subtask stopped by a stop condition', { jobId, taskId: task.id, condition: hit.condition.text, steps });
        if (hit.condition.kind === 'budget_exhausted') reason = 'budget_exhausted';
        else done = true;
        if (reason) break;
      }
    }
  }

  const spent = ledger.spent;
  const hasWork = steps > 0 || evidence.length > 0 || data !== undefined;
  // a budget halt is partial, also before the first step (the research contract's rule; host rules 1)
  const status = reason === null ? 'success' : hasWork || (rules >= 1 && reason === 'budget_exhausted') ? 'partial' : 'failure';
  if (reason) log.info('subtask halted', { jobId, taskId: task.id, agentId, reason, steps });
  const result: TaskResult = {
    id: task.id,
    agentId,
    status,
    summary: summary || (reason ? `no answer: ${reason}` : ''),
    data,
    evidence,
    // lists an agent adds to at every step are capped, so the result stays a small payload
    citations: fitList(dedupe(citations), MAX_LIST_BYTES),
    followUps: fitList(dedupe(followUps), MAX_LIST_BYTES),
    confidence: status === 'failure' ? 0 : confidence,
    metrics: {
      latencyMs: Date.now() - started,
      ...usageOf(spent),
      steps,
      attempts,
      channelsHit: [...channels],
    },
    failureReason: reason,
    errors: errors.slice(0, 50).map((e) => e.slice(0, 2000)),
    priority: effectivePriority(task),
    ...(stoppedBy !== undefined ? { stoppedBy } : {}),
    ...(notes.length > 0 ? { notes: notes.slice(0, 50) } : {}),
    ...(fallbacks.length > 0 ? { agentsTried: triedAll ? tried : [...tried, { agent: agentId, outcome: status, ...(reason ? { reason } : {}) }] } : {}),
    ...(routing ? { routing } : {}),
  };
  roleHost?.finishResult(result);
  if (task.research) {
    result.research = toResearchOutput(originOfTask(task), result, { stoppedBy: stoppedBy ?? null, receivedAt: new Date().toISOString(), notes: result.notes, jobId: input.events?.jobId ?? jobId });
  }
  if (jsonBytes(result) > MAX_RESULT_BYTES) {
    result.data = undefined;
    if (result.research) delete result.research.delegate.data;
    result.errors.push(`data dropped: the result passed ${MAX_RESULT_BYTES} bytes`);
  }
  return finish(result);
}
