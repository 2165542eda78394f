/**
 * Starting and signalling a job's children: deterministic ids, and stop/cancel reaching every
 * running child (also one still being started). What each child's input holds is child-input.ts's.
 *
 *   start(task) ──startChild(subtask | delegationJob)──> attach ──> running ──detach──> settled
 *   stopAll · cancelAll · timeoutAll · cancelSome ──signal──> running children
 */
import { CancellationScope, startChild, workflowInfo, type ChildWorkflowHandle } from '@temporalio/workflow';
import type { SearchAttributePair } from '@temporalio/common';
import type { Budget, FailureReason, TaskSpec } from '../../schemas';
import { EXECUTION_TIMEOUT_MARGIN_SECONDS } from '../../core/engine-limits';
import type { RunContext } from './run-context';
import type { DelegationJobWorkflow, JobInput } from '../../contracts/job';
import { agentLabel } from '../../core/task-results';
import { LABELS_KEY, PATTERN_KEY, STATUS_KEY, TENANT_KEY } from '../../core/search-attributes';
import { staticSummary } from '../ui-details';
import { cancelJobSignal, cancelSignal, stopSignal } from '../../contracts/messages';
import { subtask } from '../subtask';
import type { SubtaskInput } from '../../contracts/subtask';
import { runManifests } from '../../core/routing';
import type { JobShift } from './downshift';
import { nestedJobInput, subtaskInput, type ChildSettings } from './child-input';

/** A child between start and result. */
export interface Running {
  task: TaskSpec;
  handle: ChildWorkflowHandle<DelegationJobWorkflow> | ChildWorkflowHandle<typeof subtask>;
  /** The job's allocation object for this task (top-ups grow it in place). */
  allocation: Budget;
  /** True when the job's remainder or a fair share set its allocation: it gets part of a job top-up. */
  clipped: boolean;
  nested: boolean;
}

/** The child's workflow id: the job's workflow id and the task id. */
export function childId(task: TaskSpec): string {
  return `${workflowInfo().workflowId}/${task.id}`;
}

/**
 * A scope whose `run` adds no promise of its own. The SDK's is an async function that awaits
 * `fn` (to clear a scope's timeout after it, which this scope has none of): two promises per
 * call, each one a stack the SDK captures for the UI's stack trace. Here `fn` runs in the scope
 * as it is: what it starts synchronously (a child's start command, the result promise made with
 * it) is linked to this scope, as with the SDK's `run`, and the commands are the same.
 */
class ShieldScope extends CancellationScope {
  protected override runInContext<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return fn();
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }
}

/** A job's running children and the stop/cancel state that reaches them. */
export class JobChildren {
  private readonly running = new Map<string, Running>();
  /** Ids of the tasks between start and result (added synchronously, unlike `running`). */
  private readonly inFlight = new Set<string>();
  /** Tasks cancelled on purpose (early decisions): their unspent allocation is booked as saved. */
  private readonly cutOff = new Set<string>();
  private stopRequested = false;
  private cancelRequested = false;
  private reason: FailureReason = 'stopped';

  /**
   * The one scope every child is started and awaited in: not cancellable, because a cancelled
   * job signals its children itself (cancelAll). One scope for the job rather than one per call:
   * each new scope costs the workflow thread its own promises, twice per child.
   */
  readonly detached = new ShieldScope({ cancellable: false });

  /** The job's manifests as its nested jobs and batches get them, cut once per run (not per child). */
  private readonly nestedAgents: JobInput['agents'];
  /**
   * Every child carries its root's tenant and labels (fixed for the run), so one query finds a
   * tenant's subtasks too: a nested job from its start (`inherited`), a subtask from its end (its
   * outcome's upsert, with `shown`). Both built once per run, not per child.
   */
  private readonly inherited: SearchAttributePair[];
  private readonly shown: NonNullable<SubtaskInput['shown']>;

  constructor(private readonly settings: ChildSettings) {
    this.nestedAgents = settings.input.agents && runManifests(settings.input.agents);
    const labels = workflowInfo().typedSearchAttributes.get(LABELS_KEY);
    const withLabels = labels?.length ? [{ key: LABELS_KEY, value: labels }] : [];
    this.inherited = [{ key: STATUS_KEY, value: 'running' }, { key: TENANT_KEY, value: settings.tenant }, ...withLabels];
    this.shown = { pattern: settings.input.spec.pattern, tenant: settings.tenant, ...(labels?.length ? { labels } : {}) };
  }

  /** True once stop, cancel or the deadline halted the job: nothing new starts. */
  get halted(): boolean {
    return this.stopRequested || this.cancelRequested;
  }

  /** True once the job is being cancelled (running children are cancelled). */
  get cancelling(): boolean {
    return this.cancelRequested;
  }

  /** True once the job is being stopped (or timed out). */
  get stopping(): boolean {
    return this.stopRequested;
  }

  /** Why tasks not yet started will not run. */
  get haltReason(): FailureReason {
    return this.reason;
  }

  /** Tasks between start and result. */
  inFlightCount(): number {
    return this.inFlight.size;
  }

  /** Children started and not yet settled. */
  runningCount(): number {
    return this.running.size;
  }

  /** The running child of a task. */
  get(taskId: string): Running | undefined {
    return this.running.get(taskId);
  }

  /** Running children whose allocation the job clipped (they share job top-ups). */
  clipped(): Running[] {
    return [...this.running.values()].filter((r) => r.clipped);
  }

  /** Marks a task in flight (synchronously, before its child starts). */
  enter(taskId: string): void {
    this.inFlight.add(taskId);
  }

  /** Marks a task done. */
  leave(taskId: string): void {
    this.inFlight.delete(taskId);
  }

  /** True when the task was cancelled on purpose (an early decision). */
  wasCutOff(taskId: string): boolean {
    return this.cutOff.has(taskId);
  }

  /**
   * Starts a task's child workflow with its allocation (a nested job when `task.job` is set);
   * called inside `detached` (the start must land). Not async: the start's own promise, no wrapper
   * around it (each promise of a workflow costs its thread a stack capture).
   */
  start(task: TaskSpec, context: RunContext, allocation: Budget, shift?: JobShift): Promise<Running['handle']> {
    const s = this.settings;
    // Temporal's own timeout is only a backstop: the child halts at the deadline and keeps its work
    const backstop = Math.ceil((s.deadline - Date.now()) / 1000) + EXECUTION_TIMEOUT_MARGIN_SECONDS;
    const common = {
      workflowId: childId(task),
      staticSummary: staticSummary(task, agentLabel(task)),
      staticDetails: task.rationale,
      workflowExecutionTimeout: `${backstop} seconds`,
      // the child's steps inherit it: urgent tasks overtake bulk ones waiting in the same queue
      ...(task.priority !== undefined ? { priority: { priorityKey: task.priority } } : {}),
    };
    return task.job
      ? // by its type's name: the job's module imports this one, so a value import would close a circle
        startChild<DelegationJobWorkflow>('delegationJob', {
          ...common,
          args: [nestedJobInput(s, task, context, allocation, this.nestedAgents)],
          typedSearchAttributes: [{ key: PATTERN_KEY, value: task.job.pattern }, ...this.inherited],
        })
      : startChild(subtask, {
          ...common,
          args: [subtaskInput(s, task, context, allocation, this.shown, shift)],
          // none while it runs: search attributes at a child's start cost the server more than the
          // rest of the child's start (bench/history/2026-12-05-diary.md); the outcome's upsert sets them all at the end
        });
  }

  /** Tracks a started child; one started after a stop or cancel is told at once. */
  attach(r: Running): void {
    this.running.set(r.task.id, r);
  }

  /** Sends a just-attached child the stop or cancel it missed while being started. */
  catchUp(r: Running): void {
    if (this.cancelRequested || this.cutOff.has(r.task.id)) void this.signalChild(r, 'cancel');
    else if (this.stopRequested) void this.signalChild(r, 'stop');
  }

  /** Stops tracking a finished child; returns it (with its possibly grown allocation). */
  detach(taskId: string): Running | undefined {
    const r = this.running.get(taskId);
    this.running.delete(taskId);
    return r;
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
    this.reason = 'stopped';
    for (const r of this.running.values()) void this.signalChild(r, 'stop');
  }

  /** Hard stop: running children cancel their step; nothing new starts. */
  cancelAll(): void {
    if (this.cancelRequested) return;
    this.cancelRequested = true;
    this.reason = 'cancelled';
    for (const r of this.running.values()) void this.signalChild(r, 'cancel');
  }

  /** The maximum duration is reached: nothing new starts (`timeout`), running children are cancelled. */
  timeoutAll(): void {
    if (this.cancelRequested) return;
    this.stopRequested = true;
    this.reason = 'timeout';
    for (const r of this.running.values()) void this.signalChild(r, 'cancel');
  }

  /** Cancels some running children (an early decision); returns how many were newly cut off. */
  cancelSome(ids: string[]): number {
    let n = 0;
    for (const id of ids) {
      if (this.cutOff.has(id) || !this.inFlight.has(id)) continue;
      this.cutOff.add(id);
      n++;
      // a child still being started is signalled as soon as it is (see catchUp)
      const r = this.running.get(id);
      if (r) void this.signalChild(r, 'cancel');
    }
    return n;
  }

  /** Cancels every task between start and result, including children still being started. */
  cancelInFlight(): number {
    return this.cancelSome([...this.inFlight]);
  }

  /** Signals a running child, ignoring one that has just finished (its settle releases what it held). */
  async tell(r: Running, send: (handle: Running['handle']) => Promise<void>): Promise<void> {
    await CancellationScope.nonCancellable(() => send(r.handle)).catch(() => undefined);
  }
}
