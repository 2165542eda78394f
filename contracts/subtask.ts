/**
 * The subtask workflow's contract: what a job (or a caller of its own on Temporal) starts a
 * subtask with (the task, its share of the job's budget, where its steps run), and everything
 * a long loop carries into its next run (continue-as-new). Both land in the engine's
 * histories, so a field keeps its name, and a new one is optional.
 *
 *   job ──SubtaskInput──> subtask ──continue-as-new: SubtaskInput { carry: SubtaskCarry }──> next run
 */
import type { AgentTry, Budget, Evidence, TaskResult, TaskSpec } from '../schemas';
import type { LedgerState } from '../core/budget-ledger';
import type { Routing, RunManifest } from '../core/routing';
import type { DownshiftPlan } from '../core/downshift';
import type { RoleHostCarry } from './role';
import type { EventTarget, PreviousStage, SteeringNote, StepAnswer } from './step';

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
  /** What the run reads of its agent's manifest, resolved at submission: no `resolveAgent` activity (absent: resolved here). Runs started before `RunManifest` have the whole manifest. */
  manifest?: RunManifest;
  /** Why the API chose that agent when the task did not name it (its job's `routes`); absent: the reference says. */
  routedBy?: string;
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
  /**
   * Set by jobs since subtasks carry no search attributes while they run (set at a child's start
   * they cost the single-shard server more CPU per subtask, bench/history/2026-12-05-diary.md): what the
   * outcome's upsert shows beside the status and the agent. Runs started before had them from
   * their start.
   */
  shown?: { pattern: string; tenant: string; labels?: string[] };
  /** The host rules this run enforces (HOST_RULES when a job starts it); absent: none of them (host-rules.ts). */
  hostRules?: number;
  /** The job's model when this subtask started: its llm agent runs on it (a later switch does not reach it). */
  model?: string;
  /** The job's output-token cap of one model turn (a role's lower cap stays). */
  maxOutputTokens?: number;
  /** The job's W3C trace context (its `JobInput.traceparent`): sent to its agents, its trace id on its result and log lines. */
  traceparent?: string;
  /**
   * The task's ladder (its own, else its job's), resolved at submission: past the threshold of its
   * allocation its remaining steps go down it (core/downshift.ts). Runs without it never down-shift.
   */
  downshift?: DownshiftPlan;
  /** The job started this subtask down-shifted (its `manifest` is the cheaper agent): the line its result notes. */
  downshifted?: string;
}

/** The approvals, answer and messages a subtask carries into its next run (absent when there is nothing, so old carries read back). */
export interface HitlCarry {
  approvedStart?: boolean;
  spendApprovedStep?: number;
  approvedTools?: string[];
  /** What the last completed step spent (costUsd): the planned spend of the next one. */
  lastCostUsd?: number;
  answer?: StepAnswer;
  messages?: SteeringNote[];
}

/**
 * The subtask loop's state as carried into the next run (`carryOf`): its wire form, which running
 * histories hold, so a field keeps its name (the loop's SubtaskState has the same names, so a
 * carry reads back field by field). `runs` is the next run's number; `fallbacks` only those a
 * capability inherited (the task's own are in its spec).
 */
export interface SubtaskCarry {
  /** Epoch ms the subtask's first run started. */
  startedAt: number;
  manifest: RunManifest;
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
  /** The agent's own state (`agentState`). */
  state?: unknown;
  reprompt?: string;
  stopRequested: boolean;
  cancelRequested: boolean;
  runs: number;
  stoppedBy?: string;
  routing?: Routing;
  // carried only under host rules 1, or only for a task with fallbacks
  notes?: string[];
  summaryReprompted?: boolean;
  schemaValid?: boolean | null;
  fallbackAt?: number;
  agentsTried?: AgentTry[];
  agentStartStep?: number;
  fallbacks?: string[];
  throttledMs?: number;
  /** A role task's protocol state. */
  role?: RoleHostCarry;
  /** Approvals given, an answer or messages not yet handed to a step. */
  hitl?: HitlCarry;
  /** Steps that started a hedge, and the hedges' extra spend (TaskSpec.hedge); absent: none. */
  hedge?: { hedges: number; costUsd: number };
}

/** The subtask workflow's type (`subtask`), for a client that reads it by its workflow id. */
export type SubtaskWorkflow = (input: SubtaskInput) => Promise<TaskResult>;
