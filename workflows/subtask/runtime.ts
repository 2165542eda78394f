/**
 * The subtask's Temporal side, beside its orchestration: the activities it calls and with
 * which options, one step raced against the latency budget and the cancel signal, and the
 * run's end (metrics sink, the outcome's search attributes, a failed run for a failure).
 *
 *   stepOptions(manifest, policy) ──runStep──> ok | failed | cancel | latency
 *   TaskResult ──finishRun──> sink · upsert outcome ──> return | throw SubtaskFailed(result)
 */
import {
  ActivityCancellationType,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  proxyActivities,
  upsertSearchAttributes,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { AgentStepInput, AgentStepOutput } from '../../contracts/step';
import type { TaskResult, TaskSpec } from '../../schemas';
import type { RunManifest } from '../../core/routing';
import { ErrorType, NON_RETRYABLE_ERROR_TYPES } from '../../core/errors';
import { DEFAULT_STEP_CEILING_SECONDS, msLeft } from '../../core/engine-limits';
import { AGENT_KEY, FAILURE_REASON_KEY, LABELS_KEY, PATTERN_KEY, STATUS_KEY, TENANT_KEY, taskOutcome } from '../../core/search-attributes';
import { clampStepPolicy, scheduleToStartOption, type StepPolicy } from '../../core/step-policy';
import { staticSummary } from '../ui-details';
import { classify } from './classify';
import type { StepOutcome } from './step';
import type { SubtaskInput } from '../../contracts/subtask';

/** Resolves the task's agent (and a fallback's). */
export const { resolveAgent } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3, nonRetryableErrorTypes: NON_RETRYABLE_ERROR_TYPES },
});

/** The judge of free-text stop conditions, on the lane the steps run on. */
export const judgeActivity = (taskQueue?: string) =>
  proxyActivities<Activities>({
    startToCloseTimeout: '2 minutes',
    retry: { maximumAttempts: 2, nonRetryableErrorTypes: NON_RETRYABLE_ERROR_TYPES },
    ...(taskQueue ? { taskQueue } : {}),
  }).judgeRubrics;

/** A step's timeout and retry policy: the task's over its agent's, its worst case (timeout × attempts + backoff) under the operator's ceiling. */
export function stepPolicyOf(task: TaskSpec, m: RunManifest, ceilingSeconds = DEFAULT_STEP_CEILING_SECONDS): StepPolicy {
  return clampStepPolicy(
    { timeoutSeconds: task.timeoutSeconds ?? m.limits.timeoutSeconds, retry: { ...m.retry, ...task.retry } },
    ceilingSeconds,
  );
}

/** What a step's activity options depend on besides its agent's policy. */
export interface StepOptionsContext {
  task: TaskSpec;
  agentId: string;
  policy: StepPolicy;
  /** The queue the step runs on (absent: the workflow's own). */
  queue?: string;
  deadline?: number;
  scheduleToStartSeconds?: number;
  now: number;
  /** The step's fairness key on a shared queue (the tenant, on a provider's queue). */
  fairnessKey?: string;
}

/** A step's activity options: its agent's timeout and retry policy, its queue, bounded by the job's deadline. */
export function stepOptions({
  task,
  agentId,
  policy,
  queue,
  deadline,
  scheduleToStartSeconds,
  now,
  fairnessKey,
}: StepOptionsContext): ActivityOptions {
  const retry = policy.retry;
  const priority = {
    ...(task.priority !== undefined ? { priorityKey: task.priority } : {}),
    ...(fairnessKey !== undefined ? { fairnessKey } : {}),
  };
  return {
    // the deadline bounds a step with its retries (schedule-to-close): no timer, no extra history events
    ...(deadline !== undefined ? { scheduleToCloseTimeout: Math.max(1, msLeft(deadline, now)) } : {}),
    ...(queue ? { taskQueue: queue } : {}),
    // a step nobody polls for ends agent_unavailable: only the timeout differs, not the command replay compares
    ...scheduleToStartOption(scheduleToStartSeconds),
    // steps inherit the run's priority too; said here so a run continued as new keeps it for sure
    ...(Object.keys(priority).length ? { priority } : {}),
    startToCloseTimeout: `${policy.timeoutSeconds} seconds`,
    // the host heartbeats every 2 s while a step runs: a step on a dead worker is retried within 10 s
    heartbeatTimeout: '10 seconds',
    summary: staticSummary(task, agentId),
    retry: {
      maximumAttempts: retry.maxAttempts,
      initialInterval: `${retry.initialIntervalSeconds} seconds`,
      backoffCoefficient: retry.backoffCoefficient,
      maximumInterval: `${retry.maximumIntervalSeconds} seconds`,
      nonRetryableErrorTypes: NON_RETRYABLE_ERROR_TYPES,
    },
  };
}

/** How a run's steps are cut (its host rules'). */
export interface CutRules {
  /** hostRules 2: a cut step is awaited until it acknowledges, and what it spent comes back with the cut. */
  bookCutSteps: boolean;
  /** hostRules 3: the step runs in the root scope, which the cut cancels; a cut step ends `cancel`, whatever it did. */
  cutInRootScope: boolean;
}

/**
 * The cancel signal's way into the step in flight: its handler calls `cut()`, which cancels the
 * step at once (no watcher per step). Steps under a latency budget race a timer instead.
 *
 * From hostRules 3 the step runs in the run's root scope and the cut cancels that scope: no scope
 * is made per step (each costs the workflow thread five promises, with a stack captured for
 * each). Nothing cancellable may run after a cut then, so the step's outcome is `cancel` whatever
 * it was, and the loop halts. Runs from before keep a scope of their own per step.
 */
export class StepCutter {
  /** The scope of the step in flight (the root's from hostRules 3, its own before); none between steps. */
  private scope?: CancellationScope;
  private cutRequested = false;
  /** The run's root scope: the cutter is made in the workflow function, outside any other scope. */
  private readonly root = CancellationScope.current();

  /** The cancel signal's handler: the step in flight (if any) is cancelled now. */
  cut(): void {
    this.cutRequested = true;
    this.scope?.cancel();
  }

  /** Runs one step, which `cut()` cancels (how: `rules`). */
  async run(step: () => Promise<AgentStepOutput>, maxAttempts: number, rules: CutRules): Promise<StepOutcome> {
    const bookCut = rules.bookCutSteps;
    const scope = (this.scope = rules.cutInRootScope ? this.root : new CancellationScope());
    try {
      const running = rules.cutInRootScope ? step() : scope.run(step);
      // a cancel that came before the step started: as if it came right after
      if (this.cutRequested) scope.cancel();
      const out = await running;
      // a step that finished its turn after being cut (it acknowledges only then) is still cut
      if (this.cutRequested && bookCut) return { kind: 'cancel', usage: out.usage };
      return { kind: 'ok', out };
    } catch (err) {
      const failure = classify(err, maxAttempts);
      // before hostRules 3, a failure that beat the cancel to the step is still a failure, as when a watcher raced it
      if (!this.cutRequested || (!isCancellation(err) && !rules.cutInRootScope)) return { kind: 'failed', failure };
      return bookCut && failure.usage ? { kind: 'cancel', usage: failure.usage } : { kind: 'cancel' };
    } finally {
      this.scope = undefined;
    }
  }
}

/**
 * One step, raced against the latency budget (`latencyLeft` seconds; undefined: none) and the
 * cancel signal. A cut step's activity is cancelled and awaited; with `bookCutSteps` (hostRules 2)
 * until it acknowledges, so the usage it reports (or its last heartbeat's) comes back with the cut.
 * Without a latency budget the cancel signal reaches the step through `cutter` alone: no watcher.
 */
export function runStep(
  options: ActivityOptions,
  input: AgentStepInput,
  latencyLeft: number | undefined,
  cancelled: () => boolean,
  cutter: StepCutter,
  rules: CutRules,
): Promise<StepOutcome> {
  const bookCut = rules.bookCutSteps;
  const { agentStep } = proxyActivities<Activities>(
    bookCut ? { ...options, cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED } : options,
  );
  const run = () => agentStep(input);
  const maxAttempts = input.maxAttempts ?? 1;
  // not async itself: a step without a latency budget is the cutter's promise alone
  if (latencyLeft === undefined) return cutter.run(run, maxAttempts, rules);
  return raceLatency(run, maxAttempts, latencyLeft, cancelled, bookCut);
}

/** A step raced against what is left of its latency budget and the cancel signal. */
async function raceLatency(
  run: () => Promise<AgentStepOutput>,
  maxAttempts: number,
  latencyLeft: number,
  cancelled: () => boolean,
  bookCut: boolean,
): Promise<StepOutcome> {
  const stepScope = new CancellationScope();
  const step = stepScope.run(run).then(
    (out): StepOutcome => ({ kind: 'ok', out }),
    (err): StepOutcome => ({ kind: 'failed', failure: classify(err, maxAttempts) }),
  );
  const watchScope = new CancellationScope();
  const watch = watchScope
    .run(() => condition(cancelled, Math.max(1, Math.round(latencyLeft * 1000))))
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
  const cut = await step;
  const usage = cut.kind === 'failed' ? cut.failure.usage : cut.kind === 'ok' ? cut.out.usage : undefined;
  return bookCut && usage ? { ...first, usage } : first;
}

/**
 * The run's end: the outcome for the UI, then the result (the job that receives it counts it
 * in the worker's metrics, one batch per activation: workflows/job/reports.ts). A subtask that failed
 * ends its run as failed (a typed failure carrying the whole result, which the job turns back
 * into the TaskResult), so the UI lists it in red; one cancelled or stopped on purpose
 * completes, its search attributes say why. `showOutcome` false: runs from before that rule.
 */
export function finishRun(result: TaskResult, showOutcome: boolean | undefined, shown?: SubtaskInput['shown']): TaskResult {
  if (!showOutcome) return result;
  const outcome = taskOutcome(result);
  upsertSearchAttributes([
    { key: STATUS_KEY, value: outcome },
    { key: AGENT_KEY, value: result.agentId },
    ...(result.failureReason ? [{ key: FAILURE_REASON_KEY, value: result.failureReason }] : []),
    ...(shown
      ? [
          { key: PATTERN_KEY, value: shown.pattern },
          { key: TENANT_KEY, value: shown.tenant },
          ...(shown.labels?.length ? [{ key: LABELS_KEY, value: shown.labels }] : []),
        ]
      : []),
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
