/**
 * A job's budget: its ledger and each task's allocation, with the lists the result reports
 * (clipped, refused) and the money saved by early decisions. State is private: patterns,
 * top-ups and the carry go through these methods.
 *
 *   task ──reserveTask──> allocation | refused ──child runs──> settleTask(spent) ──> ledger
 *   fair: a task that cannot get one step's spend waits (awaitsRefund) while a running child holds some
 */
import { patched } from '@temporalio/workflow';
import type { Budget, Ledger, TaskSpec, Usage } from '../../schemas';
import type { BudgetAxis } from '../../core/budget-axes';
import { addOn, addUsage, addUsd, subUsd, zeroUsage } from '../../core/money';
import { fairGrant, fairWant, grantable, leafCount, shortOfStep, stepFloor, type AllocationMode, type Claim } from '../../core/allocation';
import { grow, newLedger, remaining, reserve, settle, snapshot, topUp, type LedgerState, type Reservation } from '../../core/budget-ledger';
import { spentShare } from '../../core/downshift';

/**
 * Since this patch, tasks share by `allocation` (fairGrant: weighted by leaves, own budgets
 * capped at the share, a floor of one step, a wait for refunds; or greedy); before it, fairWant.
 */
const FAIR_GRANTS_PATCH = 'fair-grants';

/**
 * Since this patch, a task on an agent the record measured (JobInput.stepFloors) is granted at
 * least that agent's step before the job measured its own. Asked only by runs with such a floor.
 */
const RECORDED_FLOORS_PATCH = 'recorded-step-floors';

/** A task's claim on a fair share: its own budget, weighted by the agent tasks below it (a nested job's subtree). */
const claimOf = (t: TaskSpec): Claim => ({ own: t.budget, weight: leafCount(t) });

/** What the carry of a continued run holds of the budget. */
export interface LedgerCarry {
  ledger: LedgerState;
  allocations: Record<string, Budget>;
  clipped: string[];
  refused: string[];
}

/** The budget side of a job. */
export class JobLedger {
  private readonly ledger: LedgerState;
  /** Each started task's allocation (grown by top-ups; the running child holds the same object). */
  private readonly allocations = new Map<string, Budget>();
  /** Tasks whose allocation the job budget cut below what they asked. */
  private readonly clipped: string[] = [];
  /** Tasks that never ran because the job budget was spent. */
  private readonly refused: string[] = [];
  /** Allocation left unspent by children cancelled on purpose (early decisions). */
  private savedUsd = 0;
  /** How tasks share the budget in this run, decided at its first reservation (`legacy`: before FAIR_GRANTS_PATCH). */
  private rules?: AllocationMode | 'legacy';
  /** Children reserved and not yet settled: what a waiting task may get back. */
  private held = 0;
  /** Tasks the result cache served: they take no fair share. */
  private readonly served = new Set<string>();
  /** What settled children spent over how many steps: one step's spend, the fair floor (not carried: a new run measures again). */
  private stepSpend: Usage = zeroUsage();
  private steps = 0;
  /** Whether this run took RECORDED_FLOORS_PATCH, asked at the first task with a recorded floor. */
  private recordedRules?: boolean;

  constructor(
    limit: Budget,
    /** The job's tasks (fair shares are split among those not reserved yet, weighted by their leaves). */
    private readonly tasks: readonly TaskSpec[],
    private readonly mode: AllocationMode = 'fair',
    /** A task's step as the record measured its agent (JobInput.stepFloors), when it has one. */
    private readonly recordedFloor?: (task: TaskSpec) => Budget | undefined,
    /** The job's budgetWaitSeconds (its tasks' default). */
    private readonly budgetWaitSeconds?: number,
  ) {
    this.ledger = newLedger(limit);
  }

  /** How many tasks have neither an allocation nor a refusal yet (the current one included while it asks). */
  waiting(): number {
    return this.tasks.length - this.allocations.size - this.refused.length;
  }

  /** The sharing rules of this run: the first call (the first task's, before its child starts) asks for the patch. */
  private sharing(): AllocationMode | 'legacy' {
    return (this.rules ??= patched(FAIR_GRANTS_PATCH) ? this.mode : 'legacy');
  }

  /** What a task asks: the rules of the run over what is left. */
  private want(task: TaskSpec, left: Budget): { want: Budget; shared: boolean; cut?: boolean } {
    const rules = this.sharing();
    if (rules === 'legacy') return fairWant(task.budget, left, this.waiting());
    if (rules === 'greedy') return { want: { ...task.budget }, shared: false };
    const refusedIds = new Set(this.refused);
    const waiting = this.tasks.filter((t) => !this.allocations.has(t.id) && !refusedIds.has(t.id) && !this.served.has(t.id)).map(claimOf);
    return fairGrant(claimOf(task), left, waiting, this.floor(task));
  }

  /**
   * One step's spend of `task`: its agent's as the record measured it, where it has one (a job's
   * own mean mixes its agents' prices); else as this job measured it so far (empty before any child settled).
   */
  private floor(task: TaskSpec): Budget {
    const measured = stepFloor(this.stepSpend, this.steps);
    const recorded = this.recordedStep(task);
    return recorded ? { ...measured, ...recorded } : measured;
  }

  /** The step of `task`'s agent as the record measured it, when it has one and the run took RECORDED_FLOORS_PATCH. */
  private recordedStep(task: TaskSpec): Budget | undefined {
    const recorded = this.recordedFloor?.(task);
    return recorded && (this.recordedRules ??= patched(RECORDED_FLOORS_PATCH)) ? recorded : undefined;
  }

  /** True when, under `fair`, the task cannot get one step's spend now and a running child may refund some. */
  awaitsRefund(task: TaskSpec, elapsedSeconds: number): boolean {
    return this.held > 0 && this.sharing() === 'fair' && shortOfStep(task.budget, remaining(this.ledger, elapsedSeconds), this.floor(task));
  }

  /** Notes a task the result cache served: the tasks after it share what is left without it. */
  servedTask(taskId: string): void {
    this.served.add(taskId);
  }

  /**
   * Reserves a task's allocation by the job's `allocation` rules (fair: a share of what is left;
   * greedy: its own budget, else all that is left). `shared` says a fair share set some axis
   * (the child may then get part of a top-up).
   */
  reserveTask(task: TaskSpec, elapsedSeconds: number): Reservation & { shared: boolean } {
    const left = remaining(this.ledger, elapsedSeconds);
    const { want, shared, cut } = this.want(task, left);
    // a known step the job cannot pay (no child left to refund) of a task that waits for no top-up: refused, not overrun
    const unpaid =
      this.sharing() === 'fair' &&
      !(task.budgetWaitSeconds ?? this.budgetWaitSeconds) &&
      this.recordedStep(task) !== undefined &&
      shortOfStep(task.budget, left, this.floor(task));
    const r = unpaid ? { allocation: {}, clipped: false, refused: true } : reserve(this.ledger, want, elapsedSeconds);
    if (cut) r.clipped = true;
    if (r.refused) this.refused.push(task.id);
    else {
      if (r.clipped) this.clipped.push(task.id);
      this.allocations.set(task.id, r.allocation);
      this.held++;
    }
    return { ...r, shared };
  }

  /**
   * Releases a finished child's allocation (what it did not spend is back for the tasks after it) and
   * books its spend and steps; a child cut off on purpose saves the rest.
   */
  settleTask(allocation: Budget, spent: Usage, cutOff: boolean, steps = 0): void {
    settle(this.ledger, allocation, spent);
    this.held = Math.max(0, this.held - 1);
    if (steps > 0) {
      this.stepSpend = addUsage(this.stepSpend, spent);
      this.steps += steps;
    }
    if (cutOff && allocation.costUsd !== undefined) {
      this.savedUsd = addUsd(this.savedUsd, Math.max(0, subUsd(allocation.costUsd, spent.costUsd)));
    }
  }

  /** Grows a running child's allocation (the object it holds) and the job's reservation by `extra`. */
  growAllocation(allocation: Budget, extra: Budget): void {
    grow(this.ledger, extra);
    for (const axis of Object.keys(extra) as BudgetAxis[]) allocation[axis] = addOn(axis, allocation[axis] ?? 0, extra[axis] ?? 0);
  }

  /** Raises the job's limits (capped axes only). */
  raise(add: Budget): void {
    topUp(this.ledger, add);
  }

  /** The job's limits now (a copy). */
  limits(): Budget {
    return { ...this.ledger.limit };
  }

  /** What the job can give of `add` out of what it has left. */
  grantable(add: Budget, elapsedSeconds: number): Budget {
    return grantable(add, remaining(this.ledger, elapsedSeconds));
  }

  /** What is left unreserved on each capped axis. */
  remaining(elapsedSeconds: number): Budget {
    return remaining(this.ledger, elapsedSeconds);
  }

  /**
   * The most committed share of any capped axis (spent, or granted to running children: under fair
   * grants the running children hold what is left long before it is spent), and that axis: a
   * ladder's threshold reads it.
   */
  spentShare(elapsedSeconds: number): ReturnType<typeof spentShare> {
    return spentShare(this.ledger.limit, addUsage(this.ledger.spent, this.ledger.reserved), elapsedSeconds);
  }

  /** The job's ledger as the API reports it. */
  snapshot(elapsedSeconds: number): Ledger {
    return snapshot(this.ledger, elapsedSeconds);
  }

  /** One task's ledger as the API reports it (undefined for a task that never got an allocation). */
  taskSnapshot(taskId: string, spent: Usage, elapsedSeconds: number): Ledger | undefined {
    const limit = this.allocations.get(taskId);
    return limit && snapshot({ limit, spent, reserved: zeroUsage() }, elapsedSeconds);
  }

  /** True when the task got an allocation (it started, or a carried run started it). */
  allocated(taskId: string): boolean {
    return this.allocations.has(taskId);
  }

  /** Money saved by early decisions, in dollars. */
  saved(): number {
    return this.savedUsd;
  }

  /** Clipped and refused task ids, for the result. */
  lists(): { clipped: string[]; refused: string[] } {
    return { clipped: [...this.clipped], refused: [...this.refused] };
  }

  /** The state a continued run starts from (the ledger itself, as the old carry held it). */
  carry(): LedgerCarry {
    return { ledger: this.ledger, allocations: Object.fromEntries(this.allocations), ...this.lists() };
  }

  /** Puts a carried state back (called once, before the pattern runs). */
  restore(c: LedgerCarry): void {
    Object.assign(this.ledger, c.ledger);
    for (const [id, a] of Object.entries(c.allocations)) this.allocations.set(id, a);
    this.clipped.push(...c.clipped);
    this.refused.push(...c.refused);
  }
}
