/**
 * The host rules a subtask run enforces, as one object of named checks. Jobs start subtasks
 * with `hostRules: HOST_RULES`; runs started without it (before these rules) keep their old
 * behaviour, so their histories replay: the input decides, not a patch marker.
 *
 *   hostRules 0 (absent) ── none of them
 *   hostRules 1 ────────── stop conditions between steps · a budget halt explained, and partial
 *                          even before the first step · one summary re-prompt (research contract)
 *                          · the rules' state carried through continue-as-new
 *   hostRules 2 ────────── and a step cut by the latency budget or a cancel books what it spent
 *                          (the step's cancellation is awaited for the usage it carries)
 *   hostRules 3 ────────── and a cancel cuts the step in flight through the run's root scope (no
 *                          scope per step: five promises less on the workflow thread), after
 *                          which the loop halts `cancelled` whatever the step did
 */
import { parseStopConditions, type StopCondition } from '../../core/stop-conditions';

/** The host rules jobs start subtasks with (input `hostRules`). */
export const HOST_RULES = 3;

/** What a run enforces, decided once from its input. */
export interface HostRules {
  /** The input's `hostRules` (0 when absent). */
  readonly version: number;
  /** The task's stop conditions, checked between steps; none before version 1. */
  readonly stopConditions: readonly StopCondition[];
  /** The `budget exhausted` condition, when the task has one: a spent budget halts at once, with no wait for a top-up. */
  readonly haltOnBudget: StopCondition | undefined;
  /** A budget halt says which axes ran out and when (and names its stop condition). */
  readonly explainBudgetHalt: boolean;
  /** A budget halt is `partial`, also with nothing done (the research contract's rule). */
  readonly budgetHaltIsPartial: boolean;
  /** A research task's summary of other than 3–6 sentences gets one re-prompt. */
  readonly repromptSummary: boolean;
  /** stoppedBy, notes, the summary re-prompt and schemaValid go into the carry. */
  readonly carryRuleState: boolean;
  /** A cut step's activity is cancelled and awaited (WAIT_CANCELLATION_COMPLETED): the usage it reports is booked. */
  readonly bookCutSteps: boolean;
  /**
   * Steps run in the run's root scope, which the cancel signal cancels (runtime.ts StepCutter);
   * a step cut so ends `cancel` even when it failed first, so nothing cancellable runs after it.
   */
  readonly cutInRootScope: boolean;
}

/**
 * The rules of a run. The API refused malformed stop conditions; a TaskSpec from elsewhere
 * keeps the ones that parse.
 */
export function hostRules(version: number | undefined, stopConditions: readonly string[] | undefined): HostRules {
  const v = version ?? 0;
  const on = v >= 1;
  const stops = on ? parseStopConditions(stopConditions ?? []).conditions : [];
  return {
    version: v,
    stopConditions: stops,
    haltOnBudget: stops.find((c) => c.kind === 'budget_exhausted'),
    explainBudgetHalt: on,
    budgetHaltIsPartial: on,
    repromptSummary: on,
    carryRuleState: on,
    bookCutSteps: v >= 2,
    cutInRootScope: v >= 3,
  };
}
