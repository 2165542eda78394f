/**
 * A job's progress and results: each task's state, the results in completion order, each
 * nested job's full result, and the counts the status and the UI show. State is private.
 *
 *   pending ──markRunning──> running ──record(result)──> completed (once per task)
 */
import type { JobResult, Ledger, Progress, SubtaskProgress, TaskResult, TaskSpec } from '../../schemas';
import { effectivePriority } from '../../core/priority';
import type { JobEventLog } from './events';
import { emptyProgress, tally } from '../../core/progress';

/** Progress and results of one job's tasks. */
export class JobRecords {
  /** Results in completion order. */
  private readonly completed: TaskResult[] = [];
  private readonly progress = new Map<string, SubtaskProgress>();
  /** Each nested job's full result, by task id (batches are flattened from here). */
  private readonly nested = new Map<string, JobResult>();
  /** Pseudo-tasks that are batches of a wide fan-out. */
  private readonly batchIds: Set<string>;

  constructor(
    private readonly tasks: TaskSpec[],
    batchIds: string[],
    private readonly childId: (task: TaskSpec) => string,
    agentLabel: (task: TaskSpec) => string,
    /** Where a child's start and finish are told (a batch's own children tell theirs). */
    private readonly events?: JobEventLog,
  ) {
    this.batchIds = new Set(batchIds);
    for (const t of tasks) {
      const kind = this.batchIds.has(t.id) ? { batch: true } : { priority: effectivePriority(t) };
      this.progress.set(t.id, { id: t.id, state: 'pending', workflowId: childId(t), agentId: agentLabel(t), ...kind });
    }
  }

  /** Records a result (once per task), with the task's ledger when it had an allocation. */
  record(task: TaskSpec, result: TaskResult, ledger?: Ledger): TaskResult {
    const p = this.progress.get(task.id);
    if (p?.state === 'completed') return result;
    this.completed.push(result);
    this.progress.set(task.id, {
      ...(p ?? { id: task.id, workflowId: this.childId(task) }),
      state: 'completed',
      agentId: result.agentId,
      status: result.status,
      failureReason: result.failureReason,
      metrics: result.metrics,
      ...(ledger ? { ledger } : {}),
    });
    if (!this.batchIds.has(task.id)) {
      const workflowId = this.childId(task);
      this.events?.emit('subtask.finished', `finished:${workflowId}`, {
        taskId: task.id,
        workflowId,
        agentId: result.agentId,
        status: result.status,
        failureReason: result.failureReason,
        metrics: result.metrics,
      });
    }
    return result;
  }

  /**
   * Tells the stream a task's child is being started. Called in the activation that issues the
   * start: the worker sends that command only once the event's flush (a local activity) is
   * written, so no event of the child can come before its start.
   */
  starting(taskId: string): void {
    const p = this.progress.get(taskId)!;
    if (!p.batch) this.events?.emit('subtask.started', `started:${p.workflowId}`, { taskId, workflowId: p.workflowId, agentId: p.agentId });
  }

  /** Marks a task's child as started. */
  markRunning(taskId: string, clipped: boolean): void {
    this.progress.set(taskId, { ...this.progress.get(taskId)!, state: 'running', clipped });
  }

  /** The tasks still pending (never started, no result). */
  pending(): TaskSpec[] {
    return this.tasks.filter((t) => this.progress.get(t.id)?.state === 'pending');
  }

  /** True when the job has a task with this id (a batch's inner tasks are not its own). */
  has(taskId: string): boolean {
    return this.progress.has(taskId);
  }

  /** Results in completion order (a copy). */
  results(): TaskResult[] {
    return [...this.completed];
  }

  /** How long the finished subtasks waited on their providers' throttling, summed (the UI's details). */
  throttledMs(): number {
    let ms = 0;
    for (const r of this.completed) ms += r.metrics.throttledMs ?? 0;
    return ms;
  }

  /** How many results are in. */
  resultCount(): number {
    return this.completed.length;
  }

  /** Every task's progress, in task order. */
  subtasks(): SubtaskProgress[] {
    return [...this.progress.values()];
  }

  /** Keeps a nested job's full result. */
  setNested(taskId: string, job: JobResult): void {
    this.nested.set(taskId, job);
  }

  /** A nested job's (or batch's) full result, once it is in. */
  nestedResult(taskId: string): JobResult | undefined {
    return this.nested.get(taskId);
  }

  /** The nested results by task id (a copy, for flattening batches). */
  nestedResults(): Map<string, JobResult> {
    return new Map(this.nested);
  }

  /** True for a batch of a wide fan-out. */
  isBatch(taskId: string): boolean {
    return this.batchIds.has(taskId);
  }

  /** The batch ids (a copy; empty for a flat job). */
  batches(): Set<string> {
    return new Set(this.batchIds);
  }

  /** The batch of a wide fan-out whose tasks include `taskId`. */
  batchHolding(taskId: string): TaskSpec | undefined {
    return this.tasks.find((t) => this.batchIds.has(t.id) && t.job?.tasks.some((x) => x.id === taskId));
  }

  /** Counts by state and outcome. */
  counts(): Progress {
    const c = emptyProgress();
    for (const t of this.tasks) {
      const p = this.progress.get(t.id)!;
      const inner = this.batchIds.has(t.id) ? this.nested.get(t.id) : undefined;
      // a batch counts as its real tasks: exactly once it is done, as pending or running before
      if (inner) inner.results.forEach((r) => tally(c, 'completed', r.status));
      else if (this.batchIds.has(t.id)) tally(c, p.state, p.status, t.job?.tasks.length ?? 0);
      else tally(c, p.state, p.status);
    }
    return c;
  }
}
