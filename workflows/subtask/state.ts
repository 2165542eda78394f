/**
 * The subtask loop's one state object. A run starts it fresh from its input, or from the
 * previous run's carry; the transitions beside this file update it; continue-as-new carries
 * it on as `carryOf(state)`: the same fields, lists capped as the result caps them.
 *
 *   input (+ carry) ──newState──> SubtaskState ──beforeStep / applyOutcome / …──> SubtaskState ──carryOf──> next run
 *
 * Transitions update the state in place: a step must not copy the evidence or the lists.
 */
import type { AgentTry, Budget, Evidence, FailureReason, TaskSpec } from '../../schemas';
import type { SubtaskStatus } from '../../contracts/messages';
import type { RoleHostCarry } from '../../contracts/role';
import { runManifest, type Routing, type RunManifest } from '../../core/routing';
import type { HostRules } from './host-rules';
import type { HitlState } from './hitl';
import type { HitlCarry, SubtaskCarry } from '../../contracts/subtask';
import { exhaustedAxes, newLedger, type LedgerState } from '../../core/budget-ledger';
import { agentLabel, dedupe, fitList } from '../../core/task-results';

/** A subtask keeps at most this much evidence (JSON bytes), so its result stays a small payload. */
export const MAX_EVIDENCE_BYTES = 512 * 1024;
/** And at most this much of each list (follow-ups, citations). */
export const MAX_LIST_BYTES = 64 * 1024;
/** Errors and notes a result (and a carry) keeps, each cut to ERROR_CHARS. */
export const MAX_ERRORS = 50;
/** See MAX_ERRORS. */
export const ERROR_CHARS = 2000;

/** Everything one run of the subtask loop knows. */
export interface SubtaskState {
  /** Epoch ms the subtask's first run started: `latencySeconds` is wall clock from here. */
  startedAt: number;
  /** The agent working on the task; absent until it is resolved. */
  manifest?: RunManifest;
  /** Also `manifest.id` once resolved; until then the task's agent as a label. */
  agentId: string;
  ledger: LedgerState;
  /** Steps completed, over every run and agent. */
  steps: number;
  /** Activity attempts, retries included. */
  attempts: number;
  /** How long the steps waited on their provider's throttling, over every run. */
  throttledMs: number;
  evidence: Evidence[];
  citations: string[];
  followUps: string[];
  channels: Set<string>;
  errors: string[];
  /** The agent's latest answer. */
  summary: string;
  data?: unknown;
  confidence: number;
  /** The agent's own state, handed back with its next step. */
  agentState?: unknown;
  /** What the next step tells the agent about its previous answer. */
  reprompt?: string;
  /** `reprompt` is the host's summary re-prompt: a step that fails to answer it keeps the first answer. */
  awaitingSummary: boolean;
  stopRequested: boolean;
  cancelRequested: boolean;
  /** Runs so far, this one included. */
  runs: number;
  /** The stop condition that ended the loop. */
  stoppedBy?: string;
  notes: string[];
  summaryReprompted: boolean;
  /** Whether the latest answer satisfies the output schema; null when not checked. */
  schemaValid: boolean | null;
  /** Fallback agents (the task's, else those a capability routed by load inherited), the next one's index, the agents left behind. */
  fallbacks: string[];
  fallbackAt: number;
  agentsTried: AgentTry[];
  /** The step the current agent began at: its `maxSteps` count from here. */
  agentStartStep: number;
  routing?: Routing;
  /** This run only: where the loop is, for the status query and the UI. */
  phase: SubtaskStatus['phase'];
  /** This run only: the agent said it is done (the loop ends unless a rule sends it back). */
  done: boolean;
  /** This run only: why the loop halted; null while it runs and when it succeeded. */
  reason: FailureReason | null;
  /** This run only: `steps` when the run began (steps per run count from here). */
  stepsAtRunStart: number;
  /** This run only: every fallback left failed to resolve, and `agentsTried` already ends with them. */
  triedAll: boolean;
  /** Approvals, questions and steering messages (inbox.ts); carried only when it holds something. */
  hitl: HitlState;
  /** Steps that started a hedge, and the hedges' extra spend in USD (hedge.ts); carried when there were any. */
  hedges: number;
  hedgeCostUsd: number;
}

/** The state once the agent is resolved: every step-time transition takes this. */
export type RunningState = SubtaskState & { manifest: RunManifest };

/** What `newState` reads from the workflow input. */
export interface StateInput {
  task: TaskSpec;
  allocation: Budget;
  manifest?: RunManifest;
  carry?: SubtaskCarry;
}

/** Starts the host's summary re-prompt: a carry says by this alone that its `reprompt` is one (`awaitingSummary`). */
export const SUMMARY_REPROMPT_PREFIX = 'Summary:';

/** The state a run starts with: fresh at `now`, or the previous run's carry. */
export function newState({ task, allocation, manifest, carry }: StateInput, now: number): SubtaskState {
  return {
    startedAt: carry?.startedAt ?? now,
    manifest: carry?.manifest,
    agentId: carry?.manifest.id ?? manifest?.id ?? agentLabel(task),
    ledger: carry?.ledger ?? newLedger(allocation),
    steps: carry?.steps ?? 0,
    attempts: carry?.attempts ?? 0,
    throttledMs: carry?.throttledMs ?? 0,
    evidence: [...(carry?.evidence ?? [])],
    citations: [...(carry?.citations ?? [])],
    followUps: [...(carry?.followUps ?? [])],
    channels: new Set(carry?.channels),
    errors: [...(carry?.errors ?? [])],
    summary: carry?.summary ?? '',
    data: carry?.data,
    confidence: carry?.confidence ?? 0,
    agentState: carry?.state,
    reprompt: carry?.reprompt,
    awaitingSummary: carry?.reprompt?.startsWith(SUMMARY_REPROMPT_PREFIX) ?? false,
    stopRequested: carry?.stopRequested ?? false,
    cancelRequested: carry?.cancelRequested ?? false,
    runs: carry?.runs ?? 1,
    stoppedBy: carry?.stoppedBy,
    notes: [...(carry?.notes ?? [])],
    summaryReprompted: carry?.summaryReprompted ?? false,
    schemaValid: carry?.schemaValid ?? null,
    fallbacks: task.fallback ?? carry?.fallbacks ?? [],
    fallbackAt: carry?.fallbackAt ?? 0,
    agentsTried: [...(carry?.agentsTried ?? [])],
    agentStartStep: carry?.agentStartStep ?? 0,
    routing: carry?.routing,
    phase: 'resolving',
    done: false,
    reason: null,
    stepsAtRunStart: carry?.steps ?? 0,
    triedAll: false,
    hitl: newHitl(carry?.hitl),
    hedges: carry?.hedge?.hedges ?? 0,
    hedgeCostUsd: carry?.hedge?.costUsd ?? 0,
  };
}

/** The agent is known: the loop runs it. */
export function resolved(s: SubtaskState, manifest: RunManifest, routing?: Routing): RunningState {
  s.manifest = runManifest(manifest);
  if (routing) s.routing = routing;
  s.agentId = manifest.id;
  s.phase = 'running';
  return s as RunningState;
}

/** Seconds since the subtask's first run started. */
export function elapsedSeconds(s: SubtaskState, now: number): number {
  return (now - s.startedAt) / 1000;
}

/** The capped budget axes with nothing left, now. */
export function spentAxes(s: SubtaskState, now: number) {
  return exhaustedAxes(s.ledger, elapsedSeconds(s, now));
}

/** Errors as a result and a carry keep them. */
export function cappedErrors(errors: readonly string[]): string[] {
  return errors.slice(0, MAX_ERRORS).map((e) => e.slice(0, ERROR_CHARS));
}

/** A list an agent adds to at every step, without duplicates and capped. */
export function cappedList(items: string[]): string[] {
  return fitList(dedupe(items), MAX_LIST_BYTES);
}

/** The state as the next run's `carry`: nothing is lost, the lists are capped as in the result. */
export function carryOf(s: RunningState, rules: HostRules, task: TaskSpec, role?: RoleHostCarry): SubtaskCarry {
  return {
    startedAt: s.startedAt,
    manifest: s.manifest,
    ledger: s.ledger,
    steps: s.steps,
    attempts: s.attempts,
    ...(s.throttledMs > 0 ? { throttledMs: s.throttledMs } : {}),
    evidence: s.evidence,
    citations: cappedList(s.citations),
    followUps: cappedList(s.followUps),
    channels: [...s.channels],
    errors: cappedErrors(s.errors),
    summary: s.summary,
    data: s.data,
    confidence: s.confidence,
    state: s.agentState,
    reprompt: s.reprompt,
    stopRequested: s.stopRequested,
    cancelRequested: s.cancelRequested,
    runs: s.runs + 1,
    ...(rules.carryRuleState
      ? { stoppedBy: s.stoppedBy, notes: s.notes.slice(0, MAX_ERRORS), summaryReprompted: s.summaryReprompted, schemaValid: s.schemaValid }
      : {}),
    ...(role ? { role } : {}),
    ...(s.fallbacks.length > 0
      ? {
          fallbackAt: s.fallbackAt,
          agentsTried: s.agentsTried,
          agentStartStep: s.agentStartStep,
          ...(task.fallback ? {} : { fallbacks: s.fallbacks }),
        }
      : {}),
    ...(s.routing ? { routing: s.routing } : {}),
    ...withHitl(hitlCarry(s.hitl, task.approval?.aboveCostUsd !== undefined)),
    ...(s.hedges > 0 ? { hedge: { hedges: s.hedges, costUsd: s.hedgeCostUsd } } : {}),
  };
}

const withHitl = (hitl: HitlCarry | undefined) => (hitl ? { hitl } : {});

/** A fresh (or carried) human-in-the-loop state. */
export function newHitl(carry?: HitlCarry): HitlState {
  return {
    approvedStart: carry?.approvedStart ?? false,
    spendApprovedStep: carry?.spendApprovedStep,
    approvedTools: [...(carry?.approvedTools ?? [])],
    lastCostUsd: carry?.lastCostUsd,
    answer: carry?.answer,
    messages: [...(carry?.messages ?? [])],
    opened: 0,
  };
}

/** The carry of the human-in-the-loop state (`spend`: the task has a spend threshold); undefined when nothing of it matters. */
export function hitlCarry(h: HitlState, spend: boolean): HitlCarry | undefined {
  const c: HitlCarry = {
    ...(spend && h.lastCostUsd !== undefined ? { lastCostUsd: h.lastCostUsd } : {}),
    ...(h.approvedStart ? { approvedStart: true } : {}),
    ...(h.spendApprovedStep !== undefined ? { spendApprovedStep: h.spendApprovedStep } : {}),
    ...(h.approvedTools.length ? { approvedTools: h.approvedTools } : {}),
    ...(h.answer ? { answer: h.answer } : {}),
    ...(h.messages.length ? { messages: h.messages } : {}),
  };
  return Object.keys(c).length ? c : undefined;
}
