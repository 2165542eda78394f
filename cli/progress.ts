/**
 * A job's progress as the CLI shows it while waiting: subtasks done / total and spend vs
 * budget, fed by live events (or, without them, by the job's view). Pure: `apply` takes an
 * event or a view, `line` says it.
 *
 *   job.started ─> total      subtask.step ─> spend      subtask.finished (a leaf) ─> done
 *   budget.changed ─> limit   job.finished ─> status, final spend
 */
import { FinishedSubtasks, type JobEvent, type JobView } from 'delegate/client';

/** Formats dollars: cents for large sums, more digits for the tiny sums agents spend. */
export function usd(n: number): string {
  return `$${n >= 1 ? n.toFixed(2) : n.toFixed(4).replace(/0{1,2}$/, '')}`;
}

/** Progress of one job, updated event by event. */
export class JobProgressLine {
  done = 0;
  spentUsd = 0;
  limitUsd: number | null;
  status?: string;
  private readonly finished = new FinishedSubtasks();

  constructor(
    readonly jobId: string,
    /** Agent subtasks across every level of nesting, as the spec says. */
    public total: number,
    limitUsd?: number,
  ) {
    this.limitUsd = limitUsd ?? null;
  }

  /** Folds one live event in; returns a plain line worth printing on its own (a subtask or the job finished), if any. */
  apply(e: JobEvent): string | undefined {
    const d = e.data as Record<string, unknown>;
    switch (e.type) {
      case 'subtask.started':
        this.finished.add(e);
        return undefined;
      case 'subtask.step': {
        const usage = d.usage as { costUsd?: number } | undefined;
        this.spentUsd += usage?.costUsd ?? 0;
        return undefined;
      }
      case 'subtask.finished': {
        // a repeat, or a nested job's finish (its subtasks were counted already): nothing to say
        if (!this.finished.add(e)) return undefined;
        this.done = Math.min(this.total, this.done + 1);
        return `${this.counter()} ${String(d.taskId ?? d.workflowId)} ${String(d.status ?? '')}${d.failureReason ? ` (${String(d.failureReason)})` : ''} · ${this.spend()}`;
      }
      case 'budget.changed': {
        const limit = (d.ledger as { costUsd?: { limit?: number | null } } | undefined)?.costUsd?.limit;
        if (limit !== undefined) this.limitUsd = limit;
        return `budget changed · ${this.spend()}`;
      }
      case 'vote.decided':
        return `vote decided${d.winner !== undefined ? `: ${JSON.stringify(d.winner).slice(0, 60)}` : ''}`;
      case 'job.finished': {
        this.status = String(d.status ?? 'finished');
        const cost = (d.metrics as { costUsd?: number } | undefined)?.costUsd;
        if (typeof cost === 'number') this.spentUsd = cost;
        return `job ${this.jobId} ${this.status} · ${this.spend()}`;
      }
      default:
        return undefined;
    }
  }

  /** Takes the counts and spend from the job's view (when there are no live events). */
  fromView(v: JobView): void {
    if (v.progress) {
      this.total = v.progress.total;
      this.done = v.progress.completed;
    }
    const cost = v.ledger?.costUsd;
    if (cost) {
      this.spentUsd = cost.spent;
      this.limitUsd = cost.limit;
    }
    if (v.status) this.status = v.status;
  }

  private counter(): string {
    return `[${this.done}/${this.total}]`;
  }

  private spend(): string {
    return `${usd(this.spentUsd)}${this.limitUsd === null ? '' : ` of ${usd(this.limitUsd)}`}`;
  }

  /** The one-line summary: a bar, subtasks done / total, spend vs budget. */
  line(width = 20): string {
    const filled = this.total > 0 ? Math.round((this.done / this.total) * width) : 0;
    const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
    return `${this.jobId} ${bar} ${this.done}/${this.total} subtasks · ${this.spend()}${this.status ? ` · ${this.status}` : ''}`;
  }
}
