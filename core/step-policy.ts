/**
 * The worst case of one agent step: every attempt runs to its timeout and every retry
 * waits its full backoff. A task whose worst case passes the operator's ceiling is refused
 * by the API (422) and clamped by the workflow (fewer attempts, then a shorter timeout).
 *
 *   timeout × attempts + Σ min(initial × coefficient^i, maximumInterval), i < attempts − 1
 */
import type { TaskSpec } from '../schemas/job';
import type { Retry } from '../schemas/task-refs';

/** A step's timeout and retry policy, as the subtask runs it. */
export interface StepPolicy {
  timeoutSeconds: number;
  retry: Retry;
}

/** The retry policy a task runs with when neither it nor its agent says (RetrySchema's defaults). */
export const DEFAULT_RETRY: Retry = { maxAttempts: 3, initialIntervalSeconds: 1, backoffCoefficient: 2, maximumIntervalSeconds: 30 };

/** Seconds spent waiting between attempts when all `maxAttempts` fail. */
export function backoffSeconds(retry: Retry): number {
  let total = 0;
  let interval = retry.initialIntervalSeconds;
  for (let i = 0; i < retry.maxAttempts - 1; i++) {
    total += Math.min(interval, retry.maximumIntervalSeconds);
    interval *= retry.backoffCoefficient;
  }
  return total;
}

/** The worst case of one step, seconds: every attempt times out, every backoff is waited. */
export function worstCaseSeconds(p: StepPolicy): number {
  return p.timeoutSeconds * p.retry.maxAttempts + backoffSeconds(p.retry);
}

/** The policy a task runs with: its own fields over its agent's defaults. */
export function effectivePolicy(task: Pick<TaskSpec, 'timeoutSeconds' | 'retry'>, agent?: Partial<StepPolicy>): StepPolicy {
  return {
    timeoutSeconds: task.timeoutSeconds ?? agent?.timeoutSeconds ?? 60,
    retry: { ...DEFAULT_RETRY, ...agent?.retry, ...task.retry },
  };
}

/**
 * Why a task's step policy is over the ceiling, or undefined when it is within it. `agent`
 * gives the defaults a task leaves open (its manifest's `limits.timeoutSeconds` and `retry`).
 */
export function checkStepPolicy(
  task: Pick<TaskSpec, 'timeoutSeconds' | 'retry'>,
  ceilingSeconds: number,
  agent?: Partial<StepPolicy>,
): string | undefined {
  const p = effectivePolicy(task, agent);
  const worst = worstCaseSeconds(p);
  if (worst <= ceilingSeconds) return undefined;
  return (
    `a step may take up to ${Math.ceil(worst)}s (timeoutSeconds ${p.timeoutSeconds} × maxAttempts ${p.retry.maxAttempts}` +
    ` + ${Math.ceil(backoffSeconds(p.retry))}s backoff), over the ceiling of ${ceilingSeconds}s: lower timeoutSeconds or retry.maxAttempts`
  );
}

/** The policy cut to fit the ceiling: fewer attempts first, then a shorter timeout; within it, unchanged. */
export function clampStepPolicy(p: StepPolicy, ceilingSeconds: number): StepPolicy {
  if (worstCaseSeconds(p) <= ceilingSeconds) return p;
  let attempts = p.retry.maxAttempts;
  while (attempts > 1 && worstCaseSeconds({ ...p, retry: { ...p.retry, maxAttempts: attempts } }) > ceilingSeconds) attempts--;
  const retry = { ...p.retry, maxAttempts: attempts };
  const timeoutSeconds = Math.max(1, Math.min(p.timeoutSeconds, (ceilingSeconds - backoffSeconds(retry)) / attempts));
  return { timeoutSeconds, retry };
}

/** How long a step waits for a worker to start it when nobody configured it (DELEGATE_STEP_SCHEDULE_TIMEOUT_SECONDS). */
export const DEFAULT_STEP_SCHEDULE_TO_START_SECONDS = 300;

/**
 * The step's schedule-to-start option: a step no worker starts within `seconds` fails with a
 * ScheduleToStart timeout (never retried: a retry would wait in the same queue), which the
 * subtask reports as `agent_unavailable`. 0 waits without a bound.
 */
export function scheduleToStartOption(seconds: number = DEFAULT_STEP_SCHEDULE_TO_START_SECONDS): { scheduleToStartTimeout?: string } {
  return seconds > 0 ? { scheduleToStartTimeout: `${seconds} seconds` } : {};
}

/** Why a step ended `agent_unavailable`: the queue it waited on, for how long, and what to do. */
export function noWorkerMessage(queue: string, seconds: number = DEFAULT_STEP_SCHEDULE_TO_START_SECONDS): string {
  return `no worker started the step within ${seconds}s on task queue "${queue}": no worker serves this lane (start one that knows the tenant, or host the agent's pool), or every slot stayed busy (raise DELEGATE_STEP_SCHEDULE_TIMEOUT_SECONDS)`;
}
