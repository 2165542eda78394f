/**
 * A job's budget: its ledger and each task's allocation, with the lists the result reports
 * (clipped, refused) and the money saved by early decisions. State is private: patterns,
 * top-ups and the carry go through these methods.
 *
 *   task ──reserveTask──> allocation | refused ──child runs──> settleTask(spent) ──> ledger
 */
import type { Budget, Ledger, TaskSpec, Usage } from '../../schemas';
import type { BudgetAxis } from '../../core/budget-axes';
import { addOn, addUsd, subUsd, zeroUsage } from '../../core/money';
import { fairWant, grantable } from '../../core/allocation';
import { grow, newLedger, remaining, reserve, settle, snapshot, topUp, type LedgerState, type Reservation } from '../../core/budget-ledger';

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

  constructor(
    limit: Budget,
    /** How many tasks the job has (fair shares are split among those not reserved yet). */
    private readonly taskCount: number,
  ) {
    this.ledger = newLedger(limit);
  }

  /** Tasks that have neither an allocation nor a refusal yet (the current one included while it asks). */
  waiting(): number {
    return this.taskCount - this.allocations.size - this.refused.length;
  }

  /**
   * Reserves a task's allocation: its own budget, a fair share on the axes it leaves open.
   * `shared` says a fair share set some axis (the child may then get part of a top-up).
   */
  reserveTask(task: TaskSpec, elapsedSeconds: number): Reservation & { shared: boolean } {
    const { want, shared } = fairWant(task.budget, remaining(this.ledger, elapsedSeconds), this.waiting());
    const r = reserve(this.ledger, want, elapsedSeconds);
    if (r.refused) this.refused.push(task.id);
    else {
      if (r.clipped) this.clipped.push(task.id);
      this.allocations.set(task.id, r.allocation);
    }
    return { ...r, shared };
  }

  /** Releases a finished child's allocation and books its spend; a child cut off on purpose saves the rest. */
  settleTask(allocation: Budget, spent: Usage, cutOff: boolean): void {
    settle(this.ledger, allocation, spent);
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
