/**
 * What workflows tell the worker's metrics, through a sink: workflows may not touch the
 * process (no I/O, no clocks of their own), so they hand facts to the worker, which counts
 * them. Sinks are not called on replay: a fact is counted once, when it happens.
 *
 *   job / vote ──proxySinks().delegateMetrics.*──> worker (telemetry/metrics.ts) ──> /metrics
 *   job (per activation: its children's lines and outcomes) ──delegateReports.batch──> worker (telemetry/report-sinks.ts)
 */
import type { Sinks } from '@temporalio/workflow';
import type { TokenSplit } from '../core/token-split';

/** A subtask's outcome, as it finished (with its token split, where the agent reported one). */
export interface SubtaskOutcome extends TokenSplit {
  tenant: string;
  agentId: string;
  /** `success` | `partial` | `failure`. */
  status: string;
  /** Null on success. */
  failureReason: string | null;
  /** Step attempts over the whole subtask (1 per step without retries). */
  attempts: number;
  steps: number;
  costUsd: number;
  tokens: number;
  toolCalls: number;
  latencyMs: number;
}

/** A job's outcome, as it finished (root and nested jobs, batches excluded). */
export interface JobOutcome {
  tenant: string;
  pattern: string;
  status: string;
  root: boolean;
  costUsd: number;
  /** Money early decisions saved (unspent allocations of cancelled voters), in dollars. */
  savedUsd: number;
}

/** A vote's decision. */
export interface VoteDecision {
  tenant: string;
  /** True when the vote stopped before every voter answered. */
  early: boolean;
  /** Voters cancelled by the early decision. */
  cancelled: number;
}

/** The sink a worker provides as `delegateMetrics` (subtasks are counted from their job's `delegateReports` batches). */
export interface DelegateMetricsSinks extends Sinks {
  delegateMetrics: {
    jobFinished(o: JobOutcome): void;
    voteDecided(d: VoteDecision): void;
  };
}

/** One log line a job hands over in a batch (`delegateReports.batch`). */
export interface WorkflowLogLine {
  level: 'info' | 'warn';
  message: string;
  attrs: Record<string, unknown>;
}

/** What a job reports of one activation: its per-child lines and the subtasks that finished. */
export interface JobReportBatch {
  lines: WorkflowLogLine[];
  finished: SubtaskOutcome[];
}

/**
 * The sink a worker provides as `delegateReports`: what a job reports per child (its DELEGATE,
 * RESULT and ESCALATE lines, each finished subtask's outcome for the metrics), all of one
 * activation in one call. Each sink call crosses to the worker's main thread with a copy of the
 * run's whole WorkflowInfo; one call per line and one per subtask cost the worker more than the
 * rest of the job's bookkeeping per child (bench/history/2026-12-05-diary.md).
 */
export interface DelegateReportSinks extends Sinks {
  delegateReports: {
    batch(b: JobReportBatch): void;
  };
}
