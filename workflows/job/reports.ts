/**
 * What a job reports per child, one batch per activation: the DELEGATE, RESULT and ESCALATE
 * lines of every child an activation starts or settles, and the outcome of every subtask that
 * finished, leave in one sink call at the end of the burst. The worker writes each line as the
 * workflow's own `log` would and counts each outcome (telemetry/report-sinks.ts). Like `log`,
 * nothing is reported again when the run replays.
 *
 *   runTask ──line(DELEGATE | RESULT | ESCALATE) · finished(outcome)──> buffer ──end of burst──> delegateReports.batch ──> logger, metrics
 */
import { proxySinks } from '@temporalio/workflow';
import type { TaskResult } from '../../schemas';
import type { DelegateReportSinks, JobReportBatch, WorkflowLogLine } from '../../contracts/sinks';
import { afterBurst } from './burst';
import { logContext } from '../log-context';
import { splitOf } from '../../core/token-split';

const { delegateReports } = proxySinks<DelegateReportSinks>();

/** One job run's buffer of reports. */
export class JobReports {
  private lines: WorkflowLogLine[] = [];
  private finishedOnes: JobReportBatch['finished'] = [];

  /** Queues a line. */
  line(level: WorkflowLogLine['level'], message: string, attrs: Record<string, unknown>): void {
    this.lines.push({ level, message, attrs: { ...logContext(), ...attrs } });
    this.due();
  }

  /** Queues a finished subtask's outcome (its own result, from its run) for the worker's metrics. */
  finished(tenant: string, r: TaskResult): void {
    const m = r.metrics;
    this.finishedOnes.push({
      tenant,
      agentId: r.agentId,
      status: r.status,
      failureReason: r.failureReason,
      attempts: m.attempts,
      steps: m.steps,
      costUsd: m.costUsd,
      tokens: m.tokens,
      toolCalls: m.toolCalls,
      latencyMs: m.latencyMs,
      ...splitOf(m),
    });
    this.due();
  }

  /** The batch's hand-over, once after the burst of reports (every child this activation starts or settles). */
  private readonly due = afterBurst(() => this.flush());

  /** Hands the buffered reports to the worker in one call. */
  flush(): void {
    if (this.lines.length + this.finishedOnes.length === 0) return;
    delegateReports.batch({ lines: this.lines, finished: this.finishedOnes });
    this.lines = [];
    this.finishedOnes = [];
  }
}
