/**
 * What workflows tell the worker's metrics, through a sink: workflows may not touch the
 * process (no I/O, no clocks of their own), so they hand facts to the worker, which counts
 * them. Sinks are not called on replay: a fact is counted once, when it happens.
 *
 *   subtask / job / vote ──proxySinks().delegateMetrics.*──> worker (telemetry/metrics.ts) ──> /metrics
 */
import type { Sinks } from '@temporalio/workflow';

/** A subtask's outcome, as it finished. */
export interface SubtaskOutcome {
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

/** The sink a worker provides as `delegateMetrics`. */
export interface DelegateMetricsSinks extends Sinks {
  delegateMetrics: {
    subtaskFinished(o: SubtaskOutcome): void;
    jobFinished(o: JobOutcome): void;
    voteDecided(d: VoteDecision): void;
  };
}

/** One log line a workflow hands over in a batch (`delegateLog.lines`). */
export interface WorkflowLogLine {
  level: 'info' | 'warn';
  message: string;
  attrs: Record<string, unknown>;
}

/**
 * The sink a worker provides as `delegateLog`: a job's per-child lines (DELEGATE, RESULT,
 * ESCALATE), all of one activation in one call. Each sink call crosses to the worker's main
 * thread with a copy of the run's whole WorkflowInfo; one call per line made the job's two
 * lines per child cost more than the rest of its bookkeeping (bench/RESULTS.md).
 */
export interface DelegateLogSinks extends Sinks {
  delegateLog: {
    lines(lines: WorkflowLogLine[]): void;
  };
}
