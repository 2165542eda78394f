/**
 * What every pattern shares: one task's run, from its reserved budget to its recorded
 * result, over three parts with private state: the budget (ledger.ts, arithmetic in
 * core/allocation.ts), the children (children.ts) and the records (task-records.ts).
 *
 *   pattern ──runTask(task)──> budget.reserveTask ──> children.start ──> result ──> budget.settleTask ──> records.record
 */
import { ApplicationFailure, ChildWorkflowFailure, condition, patched, TimeoutFailure } from '@temporalio/workflow';
import type { JobInput } from '../../contracts/job';
import type { FailureReason, JobResult, TaskResult, TaskSpec } from '../../schemas';
import { minBudget } from '../../core/budget-ledger';
import { DEFAULT_JOB_MAX_SECONDS, type EngineLimits } from '../../core/engine-limits';
import { childId, JobChildren } from './children';
import { JobLedger } from './ledger';
import { JobEventLog } from './events';
import { JobRecords } from './task-records';
import { JobReports } from './reports';
import { JobResultCache } from './result-cache';
import type { RunContext } from './run-context';
import { ErrorType } from '../../core/errors';
import { agentLabel, jobAsTaskResult, notRunResult } from '../../core/task-results';
import { downshiftEvent } from '../../core/downshift';
import { submittedManifest } from '../../core/routing';
import { DOWNSHIFT_PATCH, jobDownshift } from './downshift';

export type { Running } from './children';

/** Default operator cap on nesting: levels of jobs below the root. */
export const DEFAULT_MAX_DEPTH = 3;
/** Children running at once when the spec does not say. */
export const DEFAULT_MAX_PARALLEL = 100;

export type { RunContext } from './run-context';

/** Per-job state shared by the patterns: fixed settings, and the three parts behind their methods. */
export class JobRuntime {
  readonly spec: JobInput['spec'];
  readonly depth: number;
  readonly maxDepth: number;
  readonly tenant: string;
  readonly started: number;
  /** The input of this run (a long pipeline continues as new from it). */
  readonly input: JobInput;
  readonly limits: EngineLimits;
  /** Wall clock (epoch ms) past which nothing starts and running children halt with `timeout`. */
  readonly deadline: number;
  /** The job budget: ledger, allocations, clipped and refused tasks, money saved. */
  readonly budget: JobLedger;
  /** Starting, stopping, cancelling and signalling children. */
  readonly children: JobChildren;
  /** Progress and results. */
  readonly records: JobRecords;
  /** The live events this job writes to its root's stream. */
  readonly events: JobEventLog;
  /** What it reports per child (log lines, finished subtasks' outcomes), one batch per activation. */
  readonly reports = new JobReports();
  /** The identical-subtask cache of the tasks that ask for it (`cache`). */
  readonly cache: JobResultCache;
  /** Whether this run down-shifts tasks (it has a ladder and took DOWNSHIFT_PATCH), asked once. */
  private shifts?: boolean;

  constructor(input: JobInput, batchIds: string[] = []) {
    this.spec = input.spec;
    this.depth = input.depth ?? 0;
    this.maxDepth = input.maxDepth ?? DEFAULT_MAX_DEPTH;
    this.tenant = input.tenant ?? 'default';
    const floors = input.stepFloors;
    const recorded =
      floors &&
      ((task: TaskSpec) => {
        const id = submittedManifest(task, input.agents)?.id;
        return id !== undefined && Object.hasOwn(floors, id) ? floors[id] : undefined;
      });
    const { spec } = input;
    this.budget = new JobLedger(minBudget(spec.budget, input.allocation), spec.tasks, spec.allocation, recorded, spec.budgetWaitSeconds);
    this.input = input;
    this.limits = input.limits ?? {};
    this.started = input.carry?.startedAt ?? Date.now();
    const own = this.started + (this.limits.maxDurationSeconds ?? DEFAULT_JOB_MAX_SECONDS) * 1000;
    this.deadline = Math.min(own, input.deadline ?? own);
    this.events = JobEventLog.open(input.events, { tenant: this.tenant, jobId: input.spec.jobId });
    this.records = new JobRecords(input.spec.tasks, batchIds, childId, agentLabel, this.events);
    this.cache = new JobResultCache(input, this.tenant, this.events.target?.jobId ?? input.spec.jobId);
    this.children = new JobChildren({
      input,
      depth: this.depth,
      maxDepth: this.maxDepth,
      tenant: this.tenant,
      deadline: this.deadline,
      events: this.events.target,
      isBatch: (id) => this.records.isBatch(id),
    });
  }

  /** Seconds since the job started. */
  elapsed(): number {
    return (Date.now() - this.started) / 1000;
  }

  /** True when no new task may start. */
  get halted(): boolean {
    return this.children.halted;
  }

  /** The child's workflow id: the job's workflow id and the task id. */
  childId(task: TaskSpec): string {
    return childId(task);
  }

  /** Records a result (once per task), with the task's own ledger when it had an allocation. */
  record(task: TaskSpec, result: TaskResult): TaskResult {
    return this.records.record(task, result, this.budget.taskSnapshot(task.id, result.metrics, result.metrics.latencyMs / 1000));
  }

  /** Records every task without a result as not run, for the given reason. */
  recordNotRun(reason: FailureReason, message: string): void {
    for (const t of this.records.pending()) this.record(t, notRunResult(t, reason, message));
  }

  /**
   * Runs one task: from the identical-subtask cache when it asks for it and an identical subtask
   * succeeded (result-cache.ts), else as a child workflow (`runChild`). A task without `cache`
   * goes straight to its child: no promise of the cache's in its way.
   */
  runTask(task: TaskSpec, context: RunContext = {}, settled?: (r: TaskResult) => void): Promise<TaskResult> {
    return this.cache.covers(task) ? this.runCached(task, context, settled) : this.runChild(task, context, settled);
  }

  /** A covered task: served from the cache, else run as a child whose result settles its claim (and is kept when it succeeded). */
  private async runCached(task: TaskSpec, context: RunContext, settled?: (r: TaskResult) => void): Promise<TaskResult> {
    const cached = this.halted ? undefined : await this.cache.before(task, context);
    if (cached && 'served' in cached) {
      this.budget.servedTask(task.id);
      if (!this.records.isBatch(task.id)) logResult(this.reports, task, cached.served);
      const result = this.record(task, cached.served);
      settled?.(result);
      return result;
    }
    const result = await this.runChild(task, context, settled);
    if (cached) await this.cache.after(cached.claim, result);
    return result;
  }

  /**
   * Runs one task as a child workflow with a reserved budget; always resolves to a result, which
   * `settled` (when given) sees before the task leaves the in-flight count. One async function
   * per child, no wrappers around it: each promise costs the workflow thread a stack capture.
   */
  private async runChild(task: TaskSpec, context: RunContext = {}, settled?: (r: TaskResult) => void): Promise<TaskResult> {
    const { children, records } = this;
    children.enter(task.id);
    let result: TaskResult;
    try {
      // fair: with less than one step's spend left, a task waits for what a running child gives back
      if (this.budget.awaitsRefund(task, this.elapsed()))
        await condition(() => this.halted || !this.budget.awaitsRefund(task, this.elapsed()));
      // what the job has spent or granted before this task's grant: a ladder's threshold reads it
      const committed = this.budget.spentShare(this.elapsed());
      const reserved = this.reserve(task);
      if ('notRun' in reserved) result = reserved.notRun;
      else {
        const { allocation, clipped, shared } = reserved;
        try {
          records.starting(task.id);
          if (!records.isBatch(task.id)) {
            this.reports.line('info', 'DELEGATE', {
              event: 'DELEGATE',
              taskId: task.id,
              agent: agentLabel(task),
              nested: Boolean(task.job),
              timeoutSeconds: task.timeoutSeconds,
              allocation,
            });
          }
          // started in the job's one non-cancellable scope: a cancelled job signals its children. The
          // result promise is made with the start, so awaiting it needs no scope around it.
          // past its ladder's threshold, the job starts the task on a cheaper agent
          const shift = this.downshifts() ? jobDownshift(this.input, task, committed, allocation) : undefined;
          if (shift)
            this.events.emit('subtask.downshift', `downshift:${childId(task)}:job`, downshiftEvent(task.id, shift.decision, shift.plan));
          const handle = await children.detached.run(() => children.start(task, context, allocation, shift));
          const running = { task, handle, allocation, clipped: clipped || shared, nested: Boolean(task.job) };
          children.attach(running);
          records.markRunning(task.id, clipped);
          children.catchUp(running);
          if (!running.nested) {
            result = (await handle.result()) as TaskResult;
            this.reports.finished(this.tenant, result);
          } else {
            const job = (await handle.result()) as JobResult;
            records.setNested(task.id, job);
            result = jobAsTaskResult(task, job);
          }
        } catch (err) {
          const own = task.job ? undefined : subtaskResultOf(err);
          if (own) this.reports.finished(this.tenant, own);
          result = own ?? failedChildResult(task, err);
        }
        const running = children.detach(task.id);
        this.budget.settleTask(running?.allocation ?? allocation, result.metrics, children.wasCutOff(task.id), result.metrics.steps);
        if (!records.isBatch(task.id)) logResult(this.reports, task, result);
        result = this.record(task, result);
      }
    } finally {
      children.leave(task.id);
    }
    settled?.(result);
    return result;
  }

  /** True when the job starts tasks down-shifted: it has a ladder, and its run took DOWNSHIFT_PATCH (asked at its first start). */
  private downshifts(): boolean {
    return (this.shifts ??= this.input.downshift !== undefined && patched(DOWNSHIFT_PATCH));
  }

  /** The task's reserved budget, or (recorded now) why it may not start. */
  private reserve(task: TaskSpec): ReturnType<JobLedger['reserveTask']> | { notRun: TaskResult } {
    const { children } = this;
    const notRun = (reason: FailureReason, message: string) => ({ notRun: this.record(task, notRunResult(task, reason, message)) });
    if (children.halted) return notRun(children.haltReason, `not started: job ${children.haltReason}`);
    if (Date.now() >= this.deadline) return notRun('timeout', 'not started: the job reached its maximum duration');
    if (task.job && !this.records.isBatch(task.id) && this.depth + 1 > this.maxDepth)
      return notRun('depth_exceeded', `nested job exceeds the depth cap of ${this.maxDepth}`);
    const reserved = this.budget.reserveTask(task, this.elapsed());
    return reserved.refused ? notRun('budget_exhausted', 'not started: the job budget is spent') : reserved;
  }

  /** The ledger snapshot (job level). */
  ledgerSnapshot() {
    return this.budget.snapshot(this.elapsed());
  }
}

/** A failed subtask's own result: its run fails with it as the failure's details (showOutcome). */
function subtaskResultOf(err: unknown): TaskResult | undefined {
  const cause = err instanceof ChildWorkflowFailure ? err.cause : undefined;
  if (cause instanceof ApplicationFailure && cause.type === ErrorType.SubtaskFailed && cause.details?.[0])
    return cause.details[0] as TaskResult;
  return undefined;
}

/**
 * The result of a child that did not complete: a failed subtask's own result (its run fails
 * with it as the failure's details), else a result that says why the child itself failed.
 */
function failedChildResult(task: TaskSpec, err: unknown): TaskResult {
  const cause = err instanceof ChildWorkflowFailure ? err.cause : undefined;
  const message = err instanceof Error ? `${err.message}${err.cause instanceof Error ? `: ${err.cause.message}` : ''}` : String(err);
  // only Temporal's backstop execution timeout ends a child without a result: say so
  return notRunResult(task, cause instanceof TimeoutFailure ? 'timeout' : 'agent_error', `child workflow failed: ${message}`);
}

/** RESULT, and ESCALATE for a subtask that failed for good: one log line each (replay-aware, batched per activation). */
function logResult(lines: JobReports, task: TaskSpec, r: TaskResult): void {
  const m = r.metrics;
  lines.line('info', 'RESULT', {
    event: 'RESULT',
    taskId: task.id,
    agent: r.agentId,
    status: r.status,
    latencyMs: m.latencyMs,
    costUsd: m.costUsd,
    tokens: m.tokens,
    attempts: m.attempts,
    confidence: r.confidence,
    ...(r.failureReason ? { failureReason: r.failureReason } : {}),
    ...(m.cached ? { cachedFrom: m.cachedFrom } : {}),
  });
  if (r.status === 'failure' && r.failureReason !== 'cancelled' && r.failureReason !== 'stopped') {
    lines.line('warn', 'ESCALATE', {
      event: 'ESCALATE',
      taskId: task.id,
      agent: r.agentId,
      reason: r.failureReason,
      attempts: m.attempts,
      error: r.errors.at(-1)?.slice(0, 500),
    });
  }
}
