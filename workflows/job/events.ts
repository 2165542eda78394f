/**
 * A job's live events, written to the record through a local activity: each job buffers what
 * happens (job started, a child started or finished, a budget change, a vote's decision) and
 * flushes the buffer whenever no flush is in flight, so events leave in batches without a
 * timer. Agent steps write their own events (activities/step/events.ts); the archive writes
 * `job.finished` after the last flush. Nested jobs and batches write to their root's stream.
 *
 * Runs that started before events existed replay without them (`patched`).
 */
import { CancellationScope, patched, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { JobEventType, NewJobEvent } from '../../schemas/events';
import type { EventTarget } from '../../contracts/step';

/** The patch id of job events: do not change. */
export const EVENTS_PATCH = 'job-events';
/**
 * The patch id of one write per burst (do not change): since it, a flush starts after the
 * activation's burst of events, not at its first one, so an activation that starts or settles
 * fifty children writes their events with one local activity, not two (the first event alone,
 * then the other 49). Runs begun before it replay their writes as they made them.
 */
export const EVENTS_BURST_PATCH = 'job-events-burst';

const { appendJobEvents } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/** One job's event buffer. */
export class JobEventLog {
  private buffer: NewJobEvent[] = [];
  private flushing?: Promise<void>;
  private budgetChanges = 0;

  /** Whether a flush waits for the end of the burst (EVENTS_BURST_PATCH); asked at the first event. */
  private burst?: boolean;

  /** `target` undefined: this run writes no events. */
  private constructor(readonly target: EventTarget | undefined) {}

  /** The log of a job run: its root's stream (inherited, or its own as the root), if this run writes events. */
  static open(inherited: EventTarget | undefined, self: EventTarget): JobEventLog {
    if (!patched(EVENTS_PATCH)) return new JobEventLog(undefined);
    return new JobEventLog(inherited ?? (workflowInfo().parent ? undefined : self));
  }

  /** Queues an event (unique in the stream by `key`) and starts a flush if none runs. */
  emit(type: JobEventType, key: string, data: Record<string, unknown>): void {
    if (!this.target) return;
    this.buffer.push({ type, key, data, at: Date.now() });
    this.flushing ??= this.drain();
  }

  /** A budget change: numbered, since a job may change its budget many times. */
  budgetChanged(data: Record<string, unknown>): void {
    this.emit('budget.changed', `budget:${workflowInfo().workflowId}:${++this.budgetChanges}`, data);
  }

  private async drain(): Promise<void> {
    // one microtask later: every child this activation starts or settles has added its event by then
    if ((this.burst ??= patched(EVENTS_BURST_PATCH))) await Promise.resolve();
    while (this.buffer.length) {
      const events = this.buffer.splice(0);
      await CancellationScope.nonCancellable(() => appendJobEvents({ ...this.target!, events }));
    }
    this.flushing = undefined;
  }

  /** Resolves once everything emitted so far is written. */
  async settled(): Promise<void> {
    while (this.flushing) await this.flushing;
  }
}
