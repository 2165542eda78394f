/**
 * Temporal's per-run limits and how far below them Delegate stays. A long loop (subtask
 * steps, pipeline stages) continues as new past the soft marks; past the hard marks, where
 * continuing is impossible (the carried state would not fit one payload), it ends with
 * its work kept instead of letting the engine fail the run.
 *
 *   run ──soft mark──> continue-as-new (state carried) ──> run ──> … ──> result
 *        └─hard mark, cannot carry──> halt: partial result, work and spend kept
 */

/** Temporal refuses a run past 51,200 events; a run continues as new past this many. */
export const HISTORY_EVENTS_PER_RUN = 10_000;
/** Temporal refuses a run past 50 MiB of history; a run continues as new past this many bytes. */
export const HISTORY_BYTES_PER_RUN = 10 * 1024 * 1024;
/** Past these a run that could not continue as new halts with what it has. */
export const HISTORY_EVENTS_HARD = 40_000;
/** See HISTORY_EVENTS_HARD. */
export const HISTORY_BYTES_HARD = 40 * 1024 * 1024;
/** Largest state a run carries into its next run (Temporal refuses payloads over 2 MiB). */
export const MAX_CARRY_BYTES = 1_900_000;
/** Default longest a job (and every child in it) may run, wall clock: 24 h. */
export const DEFAULT_JOB_MAX_SECONDS = 86_400;
/** Temporal's execution timeout of a child is its deadline plus this much: a backstop only. */
export const EXECUTION_TIMEOUT_MARGIN_SECONDS = 300;
/** Default ceiling on one step's worst case (timeout × attempts + backoff), seconds. */
export const DEFAULT_STEP_CEILING_SECONDS = 86_400;

/** EngineLimits.fanoutFlatMax on a sharded cluster (the default): one parent of 400 children queued on its lock (bench/history/2026-12-05-diary.md). */
export const FANOUT_FLAT_MAX_CLUSTER = 100;
/** EngineLimits.fanoutFlatMax on the single-shard dev server (`npm start`): flat up to the wide fan-outs' batches. */
export const FANOUT_FLAT_MAX_DEV_SERVER = 500;

/** Engine-limit knobs of a job, all optional: operators set some, tests lower others. */
export interface EngineLimits {
  /** Longest the job may run; then running children are halted and the job returns what it has. @default 86400 */
  maxDurationSeconds?: number;
  /** Ceiling on a step's worst case (timeout × attempts + backoff); the policy is clamped to it. @default 86400 */
  stepCeilingSeconds?: number;
  /** Longest a step waits for a worker to start it; then the subtask ends `agent_unavailable` (0: no bound). @default 300 */
  stepScheduleToStartSeconds?: number;
  /** A subtask continues as new after this many steps in one run (tests lower it). @default none: by history size */
  subtaskStepsPerRun?: number;
  /** A pipeline job continues as new after this many stages in one run (tests lower it). @default none: by history size */
  pipelineStagesPerRun?: number;
  /**
   * A fan-out of at most this many tasks runs flat in its job; one of more (up to 500) runs as a
   * tree of batches (MIDDLE_BATCH_PATCH). The deployment's choice: on a sharded cluster one parent's
   * lock makes one wide job slow (100), on the single-shard dev server the tree's extra workflow tasks
   * cost more than they save (500). @default 100
   */
  fanoutFlatMax?: number;
}

/** What a run knows about its own history (a subset of workflowInfo()). */
export interface HistoryInfo {
  historyLength: number;
  historySize: number;
  continueAsNewSuggested: boolean;
}

/** True when a run should continue as new before going on. */
export function pastSoftMark(h: HistoryInfo, doneThisRun: number, perRun?: number): boolean {
  return (
    h.continueAsNewSuggested ||
    h.historyLength > HISTORY_EVENTS_PER_RUN ||
    h.historySize > HISTORY_BYTES_PER_RUN ||
    (perRun !== undefined && perRun > 0 && doneThisRun >= perRun)
  );
}

/** True when a run must not go on: one more step or stage could pass Temporal's limits. */
export function pastHardMark(h: HistoryInfo): boolean {
  return h.historyLength > HISTORY_EVENTS_HARD || h.historySize > HISTORY_BYTES_HARD;
}

/** Milliseconds left until `deadline` (epoch ms); Infinity without one. */
export function msLeft(deadline: number | undefined, now: number): number {
  return deadline === undefined ? Infinity : Math.max(0, deadline - now);
}

/**
 * Frames a stack trace keeps in the workflow context (DELEGATE_WORKFLOW_STACK_FRAMES): the SDK
 * captures and source-maps one stack per promise a workflow makes, at a cost per frame (V8's
 * default is 10; see workflows/stack-frames.ts and bench/history/2026-12-05-diary.md).
 */
export const DEFAULT_WORKFLOW_STACK_FRAMES = 4;
