/**
 * What every pattern shares: starting children with deterministic ids and reserved
 * budgets, recording their results, and reaching running children with stop/cancel.
 *
 *   pattern ──runTask(task)──> reserve budget ──> child workflow (subtask | nested job) ──> settle ──> result
 */
import { CancellationScope, ChildWorkflowFailure, startChild, TimeoutFailure, workflowInfo, type ChildWorkflowHandle } from '@temporalio/workflow';
import type { PreviousStage } from '../activities';
import type { AgentManifest, Budget, Evidence, FailureReason, JobResult, JobSpec, Progress, SubtaskProgress, TaskResult, TaskSpec } from '../schemas';
import { SPEND_AXES, type BudgetAxis } from '../schemas/budget-axes';
import { addOn, addUsd, fromUnits, splitOn, subOn, subUsd } from '../schemas/money';
import { newLedger, minBudget, reserve, settle, grow, type LedgerState, remaining, snapshot, zeroUsage } from './budget-ledger';
import { DEFAULT_JOB_MAX_SECONDS, EXECUTION_TIMEOUT_MARGIN_SECONDS, type EngineLimits } from './engine-limits';
import type { JobCarry } from './job-carry';
import { agentLabel, jobAsTaskResult, notRunResult, withContextSeed } from './results';
import { PATTERN_KEY, STATUS_KEY, TENANT_KEY } from './search-attributes';
import { delegationJob } from './delegation-job';
import { cancelJobSignal, cancelSignal, grantSignal, stopSignal } from './messages';
import { subtask, type SubtaskInput } from './subtask';

/** Default operator cap on nesting: levels of jobs below the root. */
export const DEFAULT_MAX_DEPTH = 3;
/** Children running at once when the spec does not say. */
export const DEFAULT_MAX_PARALLEL = 100;

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
  agents?: Record<string, AgentManifest>;
  /** Engine-limit knobs (maximum duration, step ceiling, runs); nested jobs inherit them. */
  limits?: EngineLimits;
  /** Wall-clock deadline (epoch ms): set by a parent job, or by the previous run. */
  deadline?: number;
  /** Set by the previous run of a long pipeline (continue-as-new). */
  carry?: JobCarry;
}

/** Per-run context a pattern adds to a task (a pipeline hands each stage the previous one). */
export interface RunContext {
  /** Handed to the agent with every step (`StepRequest.previous`); not passed into nested jobs. */
  previous?: PreviousStage;
  /** Appended to the task's contextSeed (for a nested job: to each of its tasks'). */
  contextSeed?: Evidence[];
}

/** A child between start and result. */
export interface Running {
  task: TaskSpec;
  handle: ChildWorkflowHandle<typeof delegationJob> | ChildWorkflowHandle<typeof subtask>;
  allocation: Budget;
  clipped: boolean;
  nested: boolean;
}

/** Per-job state shared by the patterns. */
export class JobRuntime {
  readonly spec: JobInput['spec'];
  readonly depth: number;
  readonly maxDepth: number;
  readonly tenant: string;
  readonly ledger: LedgerState;
  readonly started: number;
  /** The input of this run (a long pipeline continues as new from it). */
  readonly input: JobInput;
  readonly limits: EngineLimits;
  /** Wall clock (epoch ms) past which nothing starts and running children halt with `timeout`. */
  readonly deadline: number;
  /** Results in completion order. */
  readonly completed: TaskResult[] = [];
  readonly progress = new Map<string, SubtaskProgress>();
  readonly running = new Map<string, Running>();
  /** Set by the stop signal: nothing new starts, running children finish their step. */
  stopRequested = false;
  /** Set on cancellation (or an early decision): running children are cancelled. */
  cancelRequested = false;
  /** Why tasks not yet started will not run. */
  haltReason: FailureReason = 'stopped';
  /** Called whenever a subtask changes state (the job refreshes its UI details). */
  onChange?: () => void;
  /** Ids of the tasks between start and result (added synchronously, unlike `running`). */
  readonly inFlight = new Set<string>();
  /** Tasks cancelled on purpose (early decisions): their unspent allocation is booked as saved. */
  private readonly cutOff = new Set<string>();
  /** Pseudo-tasks that are batches of a wide fan-out (they do not count against the depth cap). */
  readonly batchIds = new Set<string>();
  /** Each nested job's full result, by task id (batches are flattened from here). */
  readonly nestedResults = new Map<string, JobResult>();
  /** Tasks whose allocation the job budget cut below what they asked. */
  readonly clipped: string[] = [];
  /** Tasks that never ran because the job budget was spent. */
  readonly refused: string[] = [];
  /** Each started task's allocation (grown by top-ups). */
  readonly allocations = new Map<string, Budget>();
  /** Allocation left unspent by children cancelled on purpose (early decisions). */
  savedUsd = 0;

  constructor(input: JobInput, batchIds: string[] = []) {
    this.spec = input.spec;
    this.depth = input.depth ?? 0;
    this.maxDepth = input.maxDepth ?? DEFAULT_MAX_DEPTH;
    this.tenant = input.tenant ?? 'default';
    this.ledger = newLedger(minBudget(input.spec.budget, input.allocation));
    this.input = input;
    this.limits = input.limits ?? {};
    this.started = input.carry?.startedAt ?? Date.now();
    const own = this.started + (this.limits.maxDurationSeconds ?? DEFAULT_JOB_MAX_SECONDS) * 1000;
    this.deadline = Math.min(own, input.deadline ?? own);
    batchIds.forEach((id) => this.batchIds.add(id));
    for (const t of input.spec.tasks) {
      const batch = this.batchIds.has(t.id) ? { batch: true } : {};
      this.progress.set(t.id, { id: t.id, state: 'pending', workflowId: this.childId(t), agentId: agentLabel(t), ...batch });
    }
  }

  /** Seconds since the job started. */
  elapsed(): number {
    return (Date.now() - this.started) / 1000;
  }

  /** True when no new task may start. */
  get halted(): boolean {
    return this.stopRequested || this.cancelRequested;
  }

  /** The child's workflow id: the job's workflow id and the task id. */
  childId(task: TaskSpec): string {
    return `${workflowInfo().workflowId}/${task.id}`;
  }

  /** Records a result (once per task). */
  record(task: TaskSpec, result: TaskResult): TaskResult {
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
      ...(this.allocations.has(task.id)
        ? { ledger: snapshot({ limit: this.allocations.get(task.id)!, spent: result.metrics, reserved: zeroUsage() }, result.metrics.latencyMs / 1000) }
        : {}),
    });
    this.onChange?.();
    return result;
  }

  /** Records every task without a result as not run, for the given reason. */
  recordNotRun(reason: FailureReason, message: string): void {
    for (const t of this.spec.tasks) {
      if (this.progress.get(t.id)?.state === 'pending') this.record(t, notRunResult(t, reason, message));
    }
  }

  /** Runs one task as a child workflow with a reserved budget; always resolves to a result. */
  async runTask(task: TaskSpec, context: RunContext = {}): Promise<TaskResult> {
    this.inFlight.add(task.id);
    try {
      return await this.runChild(task, context);
    } finally {
      this.inFlight.delete(task.id);
    }
  }

  private async runChild(task: TaskSpec, context: RunContext): Promise<TaskResult> {
    if (this.halted) return this.record(task, notRunResult(task, this.haltReason, `not started: job ${this.haltReason}`));
    if (Date.now() >= this.deadline) return this.record(task, notRunResult(task, 'timeout', 'not started: the job reached its maximum duration'));
    if (task.job && !this.batchIds.has(task.id) && this.depth + 1 > this.maxDepth) {
      return this.record(task, notRunResult(task, 'depth_exceeded', `nested job exceeds the depth cap of ${this.maxDepth}`));
    }
    const { want, shared } = this.want(task);
    const { allocation, clipped, refused } = reserve(this.ledger, want, this.elapsed());
    if (refused) {
      this.refused.push(task.id);
      return this.record(task, notRunResult(task, 'budget_exhausted', 'not started: the job budget is spent'));
    }
    if (clipped) this.clipped.push(task.id);
    this.allocations.set(task.id, allocation);
    const workflowId = this.childId(task);
    const summary = `${agentLabel(task)}: ${task.question.slice(0, 160)}`;
    // Temporal's own timeout is only a backstop: the child halts at the deadline and keeps its work
    const backstop = Math.ceil((this.deadline - Date.now()) / 1000) + EXECUTION_TIMEOUT_MARGIN_SECONDS;
    const common = { workflowId, staticSummary: summary, staticDetails: task.rationale, workflowExecutionTimeout: `${backstop} seconds` };
    let result: TaskResult;
    try {
      const child = await CancellationScope.nonCancellable(async () =>
        task.job
          ? { nested: true as const, handle: await startChild(delegationJob, {
              ...common,
              args: [
                {
                  spec: { ...withContextSeed(task, context.contextSeed ?? []).job!, jobId: `${this.spec.jobId}/${task.id}` },
                  tenant: this.tenant,
                  depth: this.batchIds.has(task.id) ? this.depth : this.depth + 1,
                  maxDepth: this.maxDepth,
                  allocation,
                  agentQueue: this.input.agentQueue,
                  agents: this.input.agents,
                  limits: this.limits,
                  deadline: this.deadline,
                } satisfies JobInput,
              ],
              typedSearchAttributes: [
                { key: PATTERN_KEY, value: task.job!.pattern },
                { key: STATUS_KEY, value: 'running' },
                { key: TENANT_KEY, value: this.tenant },
              ],
            }) }
          : { nested: false as const, handle: await startChild(subtask, {
              ...common,
              args: [
                {
                  task: withContextSeed(task, context.contextSeed ?? []), jobId: this.spec.jobId, allocation, previous: context.previous,
                  deadline: this.deadline, stepCeilingSeconds: this.limits.stepCeilingSeconds, stepsPerRun: this.limits.subtaskStepsPerRun,
                  agentQueue: this.input.agentQueue,
                  manifest: typeof task.agent === 'string' ? this.input.agents?.[task.agent] : undefined,
                } satisfies SubtaskInput,
              ],
            }) },
      );
      const running: Running = { task, handle: child.handle, allocation, clipped: clipped || shared, nested: child.nested };
      this.running.set(task.id, running);
      this.progress.set(task.id, { ...this.progress.get(task.id)!, state: 'running', clipped });
      this.onChange?.();
      if (this.cancelRequested || this.cutOff.has(task.id)) void this.signalChild(running, 'cancel');
      else if (this.stopRequested) void this.signalChild(running, 'stop');
      if (child.nested) {
        const job = await CancellationScope.nonCancellable(() => child.handle.result());
        this.nestedResults.set(task.id, job);
        result = jobAsTaskResult(task, job);
      } else result = await CancellationScope.nonCancellable(() => child.handle.result());
    } catch (err) {
      const message = err instanceof Error ? `${err.message}${err.cause instanceof Error ? `: ${err.cause.message}` : ''}` : String(err);
      // only Temporal's backstop execution timeout ends a child without a result: say so
      const timedOut = err instanceof ChildWorkflowFailure && err.cause instanceof TimeoutFailure;
      result = notRunResult(task, timedOut ? 'timeout' : 'agent_error', `child workflow failed: ${message}`);
    }
    const running = this.running.get(task.id);
    this.running.delete(task.id);
    const spentAllocation = running?.allocation ?? allocation;
    settle(this.ledger, spentAllocation, result.metrics);
    if (this.cutOff.has(task.id) && spentAllocation.costUsd !== undefined) {
      this.savedUsd = addUsd(this.savedUsd, Math.max(0, subUsd(spentAllocation.costUsd, result.metrics.costUsd)));
    }
    return this.record(task, result);
  }

  /**
   * What a task asks of the job budget: its own budget where it has one; on axes it leaves
   * open, a fair share of what is left among the tasks not yet started (itself included),
   * so one unbudgeted task cannot reserve the whole job.
   */
  private want(task: TaskSpec): { want: Budget; shared: boolean } {
    const want: Budget = { ...task.budget };
    let shared = false;
    const left = remaining(this.ledger, this.elapsed());
    const waiting = Math.max(1, this.notYetReserved());
    for (const axis of SPEND_AXES) {
      const avail = left[axis];
      if (want[axis] !== undefined || avail === undefined) continue;
      // whole micro-dollars and whole units, at least one of them while anything is left
      want[axis] = Math.max(avail > 0 ? fromUnits(axis, 1) : 0, splitOn(axis, avail, waiting));
      shared = true;
    }
    return { want, shared };
  }

  /** Tasks that have neither an allocation nor a refusal yet (the current one included while it asks). */
  private notYetReserved(): number {
    return this.spec.tasks.length - this.allocations.size - this.refused.length;
  }

  /** Sends stop or cancel to one running child; a child that just finished is not an error. */
  private async signalChild(r: Running, kind: 'stop' | 'cancel'): Promise<void> {
    await CancellationScope.nonCancellable(async () => {
      try {
        await r.handle.signal(kind === 'stop' ? stopSignal : r.nested ? cancelJobSignal : cancelSignal, { reason: kind });
      } catch {
        // the child completed between our decision and the signal: its result is recorded
      }
    });
  }

  /** Graceful stop: running children finish their step; nothing new starts. */
  stopAll(): void {
    if (this.stopRequested) return;
    this.stopRequested = true;
    this.haltReason = 'stopped';
    for (const r of this.running.values()) void this.signalChild(r, 'stop');
  }

  /** Hard stop: running children cancel their step; nothing new starts. */
  cancelAll(): void {
    if (this.cancelRequested) return;
    this.cancelRequested = true;
    this.haltReason = 'cancelled';
    for (const r of this.running.values()) void this.signalChild(r, 'cancel');
  }

  /** The maximum duration is reached: nothing new starts (`timeout`), running children are cancelled. */
  timeoutAll(): void {
    if (this.cancelRequested) return;
    this.stopRequested = true;
    this.haltReason = 'timeout';
    for (const r of this.running.values()) void this.signalChild(r, 'cancel');
  }

  /** Cancels some running children (an early decision) and books their unspent allocation as saved. */
  cancelSome(ids: string[]): number {
    let n = 0;
    for (const id of ids) {
      if (this.cutOff.has(id) || !this.inFlight.has(id)) continue;
      this.cutOff.add(id);
      n++;
      // a child still being started is signalled as soon as it is (see runChild)
      const r = this.running.get(id);
      if (r) void this.signalChild(r, 'cancel');
    }
    return n;
  }

  /** Cancels every task between start and result, including children still being started. */
  cancelInFlight(): number {
    return this.cancelSome([...this.inFlight]);
  }

  /** Gives running children whose allocation the job clipped their share of new headroom. */
  async shareTopUp(added: Budget): Promise<void> {
    const clipped = [...this.running.values()].filter((r) => r.clipped);
    if (clipped.length === 0) return;
    const left = remaining(this.ledger, this.elapsed());
    // only the new money is shared, and tasks not started yet keep their fair part of it
    const waiting = this.notYetReserved();
    for (const r of clipped) {
      const extra: Budget = {};
      for (const axis of SPEND_AXES) {
        const avail = Math.min(left[axis] ?? 0, added[axis] ?? 0);
        if (avail <= 0) continue;
        const asked = r.task.budget?.[axis];
        const wanted = asked === undefined ? Infinity : subOn(axis, asked, r.allocation[axis] ?? 0);
        const share = Math.min(wanted, splitOn(axis, avail, clipped.length + waiting));
        if (share > 0) extra[axis] = share;
      }
      if (Object.values(extra).some((v) => v)) await this.grant(r, extra);
    }
  }

  /** Reserves `extra` for a running child on top of its allocation and tells it (signal `grant`). */
  async grant(r: Running, extra: Budget): Promise<void> {
    this.reserveFor(r, extra);
    await this.tell(r, (h) => h.signal(grantSignal, { add: extra }));
  }

  /** Grows a running child's reservation by `extra` (the child is told separately). */
  reserveFor(r: Running, extra: Budget): void {
    grow(this.ledger, extra);
    for (const axis of Object.keys(extra) as BudgetAxis[]) r.allocation[axis] = addOn(axis, r.allocation[axis] ?? 0, extra[axis] ?? 0);
  }

  /** Signals a running child, ignoring one that has just finished (its settle releases what it held). */
  async tell(r: Running, send: (handle: Running['handle']) => Promise<void>): Promise<void> {
    await CancellationScope.nonCancellable(() => send(r.handle)).catch(() => undefined);
  }

  /** The batch of a wide fan-out whose tasks include `taskId`. */
  batchHolding(taskId: string): TaskSpec | undefined {
    return this.spec.tasks.find((t) => this.batchIds.has(t.id) && t.job?.tasks.some((x) => x.id === taskId));
  }

  /** Counts by state and outcome. */
  counts(): Progress {
    const c: Progress = { total: 0, pending: 0, running: 0, completed: 0, succeeded: 0, partial: 0, failed: 0 };
    const tally = (state: SubtaskProgress['state'], status: TaskResult['status'] | undefined, n = 1) => {
      c.total += n;
      c[state] += n;
      if (status === 'success') c.succeeded += n;
      else if (status === 'partial') c.partial += n;
      else if (status === 'failure') c.failed += n;
    };
    for (const t of this.spec.tasks) {
      const p = this.progress.get(t.id)!;
      const inner = this.batchIds.has(t.id) ? this.nestedResults.get(t.id) : undefined;
      // a batch counts as its real tasks: exactly once it is done, as pending or running before
      if (inner) inner.results.forEach((r) => tally('completed', r.status));
      else if (this.batchIds.has(t.id)) tally(p.state, p.status, t.job?.tasks.length ?? 0);
      else tally(p.state, p.status);
    }
    return c;
  }

  /** The ledger snapshot (job level). */
  ledgerSnapshot() {
    return snapshot(this.ledger, this.elapsed());
  }
}
