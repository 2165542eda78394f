/**
 * The job workflow's contract: its input (from the API, a parent job, or a caller of its own
 * on Temporal), what a long pipeline carries into its next run, the stream its events go to,
 * and what a scout job hands its end. Every field lands in the engine's histories: a field
 * keeps its name, and a new one is optional (running jobs were started without it).
 *
 *   API / parent job ──JobInput──> delegationJob ──continue-as-new: JobInput { carry: JobCarry }──> next run
 *   job, subtask, step ──events: EventTarget──> the root job's event stream (the record)
 */
import type { Budget, Evidence, JobResult, JobSpec, TaskResult } from '../schemas';
import type { LedgerState } from '../core/budget-ledger';
import type { EngineLimits } from '../core/engine-limits';
import type { JobModelState } from '../core/role-limits';
import type { Routes, RunManifest } from '../core/routing';
import type { DownshiftPlan } from '../core/downshift';
import type { EventTarget, PreviousStage } from './step';

/** A tokenizer family: `o200k` (GPT-4o and later) or `cl100k` (GPT-4, GPT-3.5). */
export type TokenizerFamily = 'o200k' | 'cl100k';

/** What a scout job carries for its end (JobInput.scout). */
export interface ScoutJobInput {
  id: string;
  /** Commit on a valid report at the job's end (default); false leaves it to `POST /v1/scouts/:id/commit`. */
  autoCommit: boolean;
  /** The report's size cap, in tokens. */
  maxTokens: number;
  tokenizer: TokenizerFamily;
}

/** What a pipeline job's next run starts from. */
export interface JobCarry {
  startedAt: number;
  ledger: LedgerState;
  /** Index of the next stage to run. */
  next: number;
  /** The last successful stage's context, handed to the next stage. */
  last?: PreviousStage;
  /** Compact results of the stages done, in completion order. */
  results: TaskResult[];
  allocations: Record<string, Budget>;
  clipped: string[];
  refused: string[];
  evidence: Evidence[];
  followUps: string[];
  /** Runs so far (1 for the first). */
  runs: number;
}

/** Input of the job workflow. */
export interface JobInput {
  /** The job; `jobId` is always set by the time it runs. */
  spec: JobSpec & { jobId: string };
  tenant?: string;
  /** 0 for a root job; a nested job is one deeper than its parent. */
  depth?: number;
  /** Operator cap on depth (levels below the root). */
  maxDepth?: number;
  /** Set when the parent job reserved a budget for this one: the lower cap wins. */
  allocation?: Budget;
  /** The tenant's agent lane: the activity task queue of its agent steps (default: the job's own queue). */
  agentQueue?: string;
  /**
   * Manifests of the agents the spec names, by id, resolved at submission (the API rewrites
   * capability and semantic references to ids): subtasks then need no resolving activity.
   */
  agents?: Record<string, RunManifest>;
  /**
   * Why the API chose the agent of a task that did not name one (a semantic route, the research
   * default), by task key (`core/routing.ts` routeKey): the subtask's `routing.reason`. Absent: named.
   */
  routes?: Routes;
  /** Engine-limit knobs (maximum duration, step ceiling, runs); nested jobs inherit them. */
  limits?: EngineLimits;
  /** Wall-clock deadline (epoch ms): set by a parent job, or by the previous run. */
  deadline?: number;
  /** Set by the previous run of a long pipeline (continue-as-new). */
  carry?: JobCarry;
  /** The root job's event stream (set by the parent; a root job writes its own). */
  events?: EventTarget;
  /** True for a batch of a wide fan-out (part of its parent job, not a job of its own). */
  batch?: boolean;
  /**
   * Set by the API for a job with a completion webhook: the record's reference to its URL and token
   * (record/callbacks.ts), which stay out of this input and so out of every history. A job started
   * straight through Temporal (or before this field) has `spec.callbackUrl` instead.
   */
  callbackRef?: string;
  /** Set by POST /v1/scouts: the job is a code scout, settled in the record at its end (scout.ts). */
  scout?: ScoutJobInput;
  /** The job's current model and output cap as last updated (model.ts); absent: the spec's. */
  model?: JobModelState;
  /**
   * The job's W3C trace context, made by the API at submission (api/trace-context.ts): every
   * subtask, agent call, result, event and log line of the job carries its trace id. Absent for
   * a job started straight through Temporal without one.
   */
  traceparent?: string;
  /**
   * Set by the API, which checked the input by the workflow's own rules (schemas/job-input.ts)
   * before starting the run, and by a job on its batches and nested jobs (cut from the input it
   * checked): the run does not load zod and every schema to check it again (about 60 ms of the
   * workflow thread per job, before its first child starts). A job started straight through
   * Temporal without it is checked by the workflow.
   */
  checked?: true;
  /**
   * The job's ladder (`spec.downshift`), resolved at submission with each agent's measured quality
   * and cost: past the threshold of the job budget, tasks not yet started on a ladder's agent start
   * on the cheapest one above the floor. A root job's only.
   */
  downshift?: DownshiftPlan;
  /** Each task's own ladder (`tasks[].downshift`), resolved the same way, by task id. */
  downshifts?: Record<string, DownshiftPlan>;
  /**
   * One step's spend per agent id as the tenant's record measured it at submission (the p99 of a
   * task's spend over its mean steps): under `fair`, a task on that agent is granted at least
   * that, and waits for a refund rather than start on less, before the job has measured its own
   * steps. Nested jobs and batches get their root's.
   */
  stepFloors?: Record<string, Budget>;
}

/** The job workflow's type (`delegationJob`), for a client that reads or starts it by name. */
export type DelegationJobWorkflow = (input: JobInput) => Promise<JobResult>;
