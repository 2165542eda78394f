/**
 * The budget ledger: pure arithmetic over limits, spend and reservations. A job keeps one
 * for itself (reserving each child's allocation), a subtask keeps one for its own steps.
 *
 *   limit ──reserve(want)──> allocation (min of want and what is left unreserved)
 *   child ends ──settle(allocation, spent)──> reserved -= allocation, spent += spent
 *
 * Plain data in, plain data out, so it survives continue-as-new and is unit-tested alone.
 */
import type { Budget, Ledger, LedgerAxis, Usage } from '../schemas/budget';
import { AXES, BUDGET_AXES, perAxis, SPEND_AXES, type BudgetAxis, type SpendAxis } from './budget-axes';
import { addOn, addUsage, subOn, toUnits, zeroUsage } from './money';

export { SPEND_AXES, type SpendAxis };
export { addUsage, usageOf, zeroUsage } from './money';

/** Below this, an axis counts as spent: amounts are exact, this only guards wall-clock dust. */
export const EPSILON = 1e-9;

/** A ledger's state: serialisable, so it can be queried and carried through continue-as-new. */
export interface LedgerState {
  limit: Budget;
  spent: Usage;
  reserved: Usage;
}

/** A fresh ledger with the given limit. */
export function newLedger(limit: Budget = {}): LedgerState {
  return { limit: { ...limit }, spent: zeroUsage(), reserved: zeroUsage() };
}

/** What is left unreserved on each capped axis (latency: left of the wall clock). */
export function remaining(l: LedgerState, elapsedSeconds = 0): Budget {
  const out: Budget = {};
  for (const axis of BUDGET_AXES) {
    const cap = l.limit[axis];
    if (cap !== undefined)
      out[axis] = Math.max(
        0,
        isSpend(axis) ? subOn(axis, subOn(axis, cap, l.spent[axis] ?? 0), l.reserved[axis] ?? 0) : cap - elapsedSeconds,
      );
  }
  return out;
}

/** True for an axis that accumulates spend. */
function isSpend(axis: BudgetAxis): axis is SpendAxis {
  return (SPEND_AXES as BudgetAxis[]).includes(axis);
}

/** The capped axes with nothing left. */
export function exhaustedAxes(l: LedgerState, elapsedSeconds = 0): BudgetAxis[] {
  const left = remaining(l, elapsedSeconds);
  return (Object.keys(left) as BudgetAxis[]).filter((axis) => (left[axis] ?? Infinity) <= EPSILON);
}

/** The lower of two budgets, axis by axis (absent = unlimited). */
export function minBudget(a: Budget = {}, b: Budget = {}): Budget {
  const out: Budget = {};
  for (const axis of BUDGET_AXES) {
    const x = a[axis];
    const y = b[axis];
    if (x !== undefined || y !== undefined) out[axis] = Math.min(x ?? Infinity, y ?? Infinity);
  }
  return out;
}

/** Outcome of asking the job for a child's allocation. */
export interface Reservation {
  /** The child's budget: the lower of what it wants and what the job has left. */
  allocation: Budget;
  /** True when the job's remainder, not the child's own budget, set some axis. */
  clipped: boolean;
  /** True when some capped axis has nothing left: the child must not run. */
  refused: boolean;
}

/** Reserves a child's allocation out of what the job has left; mutates `l` unless refused. */
export function reserve(l: LedgerState, want: Budget = {}, elapsedSeconds = 0): Reservation {
  const left = remaining(l, elapsedSeconds);
  const allocation = minBudget(want, left);
  let clipped = false;
  let refused = false;
  for (const axis of Object.keys(left) as (keyof Budget)[]) {
    const avail = left[axis] ?? Infinity;
    if (avail <= EPSILON) refused = true;
    if (avail < (want[axis] ?? Infinity)) clipped = true;
  }
  if (!refused) grow(l, allocation);
  return { allocation, clipped, refused };
}

/** Releases a finished child's reservation and books what it really spent. */
export function settle(l: LedgerState, allocation: Budget, spent: Usage): void {
  for (const axis of SPEND_AXES) {
    if (l.limit[axis] !== undefined) l.reserved[axis] = Math.max(0, subOn(axis, l.reserved[axis] ?? 0, allocation[axis] ?? 0));
  }
  l.spent = addUsage(l.spent, spent);
}

/** Grows a reservation in place (a running child given part of a top-up). */
export function grow(l: LedgerState, extra: Budget): void {
  for (const axis of SPEND_AXES) {
    if (l.limit[axis] !== undefined) l.reserved[axis] = addOn(axis, l.reserved[axis] ?? 0, extra[axis] ?? 0);
  }
}

/** Books spend directly (a subtask charging its own steps). */
export function charge(l: LedgerState, usage: Usage): void {
  l.spent = addUsage(l.spent, usage);
}

/** Raises the limit on the axes given; an unlimited axis stays unlimited. */
export function topUp(l: LedgerState, add: Budget): void {
  for (const axis of BUDGET_AXES) {
    const cap = l.limit[axis];
    const extra = add[axis];
    if (cap !== undefined && extra !== undefined) l.limit[axis] = addOn(axis, cap, extra);
  }
}

/** The axes of `add` that `limit` leaves open (a top-up cannot raise them). */
export function unlimitedAxes(limit: Budget, add: Budget): BudgetAxis[] {
  return BUDGET_AXES.filter((axis) => add[axis] !== undefined && limit[axis] === undefined);
}

/** The axes `add` would take past their largest budget (open ones count from 0): cost stays exact, 1e15 µ$ < 2^53. */
export function pastMaxAxes(limit: Budget, add: Budget): BudgetAxis[] {
  return BUDGET_AXES.filter(
    (axis) => add[axis] !== undefined && toUnits(axis, limit[axis] ?? 0) + toUnits(axis, add[axis]) > toUnits(axis, AXES[axis].max),
  );
}

/** The ledger as the API reports it. */
export function snapshot(l: LedgerState, elapsedSeconds = 0): Ledger {
  const left = remaining(l, elapsedSeconds);
  return perAxis((axis): LedgerAxis => {
    const limit = l.limit[axis];
    const spend = isSpend(axis);
    return {
      limit: limit ?? null,
      spent: spend ? (l.spent[axis] ?? 0) : elapsedSeconds,
      reserved: spend ? (l.reserved[axis] ?? 0) : 0,
      remaining: limit === undefined ? null : left[axis]!,
    };
  });
}
