/**
 * A job's per-child log lines, written as one batch per activation: the lines of every child
 * an activation starts or settles leave in one sink call at the end of the burst, and the
 * worker writes each as its own line, with the ids the workflow's own `log` would give it
 * (telemetry/log-sinks.ts). Like `log`, nothing is written again when the run replays.
 *
 *   runTask ──line(DELEGATE | RESULT | ESCALATE)──> buffer ──end of burst──> delegateLog.lines([...]) ──> worker's logger
 */
import { proxySinks } from '@temporalio/workflow';
import type { DelegateLogSinks, WorkflowLogLine } from '../telemetry-sinks';

const { delegateLog } = proxySinks<DelegateLogSinks>();

/** One job run's buffer of lines. */
export class JobLogLines {
  private buffer: WorkflowLogLine[] = [];

  /** Queues a line; the first of a burst schedules the batch's write after the burst. */
  line(level: WorkflowLogLine['level'], message: string, attrs: Record<string, unknown>): void {
    if (this.buffer.push({ level, message, attrs }) > 1) return;
    // one microtask later: every child settled or started in this activation has added its line by then
    void Promise.resolve().then(() => this.flush());
  }

  /** Hands the buffered lines to the worker in one call. */
  flush(): void {
    if (this.buffer.length === 0) return;
    delegateLog.lines(this.buffer);
    this.buffer = [];
  }
}
