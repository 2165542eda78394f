/**
 * How a job shares its budget among its tasks: pure arithmetic over what is left, no
 * Temporal, unit-tested alone (test/core/allocation.unit.test.ts).
 *
 *   task asks ──fairGrant(claim, left, waiting claims, floor)──> want ──ledger.reserve──> allocation
 *             (before the fair-grants patch: fairWant(own budget, left, waiting); greedy: its own budget, else all that is left)
 *   top-up ──topUpShare(added, left, child, ways)──> extra for each clipped running child
 *   subtask top-up ──grantable(add, left)──> what the job can give
 *
 * Money counts whole micro-dollars and integer axes whole units, so every share is exact.
 */
import type { Budget } from '../schemas/budget';
import { BUDGET_AXES, SPEND_AXES, type SpendAxis } from './budget-axes';
import { floorOn, fromUnits, splitOn, subOn, toUnits } from './money';
import { EPSILON } from './budget-ledger';
export type { AllocationMode } from './allocation-modes';

/** A task (or nested job) as far as counting its leaves goes. */
export interface TaskTree {
  job?: { tasks: readonly TaskTree[] } | undefined;
}

/** The agent tasks below a task: 1 for a subtask, every leaf of a nested job or batch at any depth. */
export function leafCount(task: TaskTree): number {
  return task.job ? task.job.tasks.reduce((n, t) => n + leafCount(t), 0) : 1;
}

/** A task as a fair share weighs it: its own budget caps it, its leaf count weights it. */
export interface Claim {
  own?: Budget;
  weight: number;
}

/**
 * The max-min fair level on one axis, per unit of weight: claims capped below it take their cap,
 * the others share the rest by weight (Infinity when every cap fits). Units: exact ones.
 */
function fairLevel(axis: SpendAxis, leftUnits: number, claims: readonly Claim[]): number {
  const caps = claims.map((c) => ({ cap: capOf(axis, c.own), w: c.weight })).sort((a, b) => a.cap / a.w - b.cap / b.w);
  let rest = leftUnits;
  let weight = caps.reduce((n, c) => n + c.w, 0);
  for (const c of caps) {
    if (c.cap * weight > rest * c.w) break;
    rest -= c.cap;
    weight -= c.w;
  }
  return weight > 0 ? rest / weight : Infinity;
}

/**
 * What a task asks under `fair`: on every capped spend axis, its weighted max-min share of what
 * is left among the `waiting` claims (itself included), never below `floor` (one step's spend)
 * and never above its own budget. Tasks asking less than the share leave the rest to the others,
 * and what a finished task did not spend is back in `left` for the tasks after it. `shared` says
 * whether the share, not the task's own budget, set some axis (it then gets part of a top-up);
 * `cut`, whether it is below the task's own budget there (the task is reported clipped).
 */
export function fairGrant(
  me: Claim,
  left: Budget,
  waiting: readonly Claim[],
  floor: Budget = {},
): { want: Budget; shared: boolean; cut: boolean } {
  const want: Budget = { ...me.own };
  let shared = false;
  let cut = false;
  for (const axis of SPEND_AXES) {
    const avail = left[axis];
    if (avail === undefined) continue;
    const own = capOf(axis, me.own);
    const share = Math.floor(fairLevel(axis, toUnits(axis, avail), waiting) * me.weight);
    const units = Math.min(own, Math.max(stepUnits(axis, floor), share));
    want[axis] = fromUnits(axis, units);
    if (units < own) shared = true;
    if (units < own && own < Infinity) cut = true;
  }
  return { want, shared, cut };
}

/** A budget's amount on an axis in exact units; Infinity where it leaves the axis open. */
const capOf = (axis: SpendAxis, b: Budget | undefined) => (b?.[axis] === undefined ? Infinity : toUnits(axis, b[axis]));

/** One step's spend on an axis in exact units: the floor given, at least one unit. */
const stepUnits = (axis: SpendAxis, floor: Budget) => Math.max(1, toUnits(axis, floor[axis] ?? 0));

/**
 * True when what is left cannot pay one step of the task on some capped axis (the floor, or its
 * own budget when lower): under `fair` it then waits for a running child's refund, if any.
 */
export function shortOfStep(own: Budget | undefined, left: Budget, floor: Budget): boolean {
  return SPEND_AXES.some((axis) => {
    const avail = left[axis];
    return avail !== undefined && toUnits(axis, avail) < Math.min(capOf(axis, own), stepUnits(axis, floor));
  });
}

/**
 * One step's spend as measured: the mean per step of what finished children spent (rounded up
 * to whole micro-dollars and units); empty before any step. It is the job's own evidence, from
 * results its history holds, so a replay computes the same floor.
 */
export function stepFloor(spent: Partial<Record<SpendAxis, number>>, steps: number): Budget {
  const floor: Budget = {};
  if (steps <= 0) return floor;
  for (const axis of SPEND_AXES) {
    const units = toUnits(axis, spent[axis] ?? 0);
    if (units > 0) floor[axis] = fromUnits(axis, Math.ceil(units / steps));
  }
  return floor;
}

/**
 * What a task asked before the `fair-grants` patch (runs without its marker replay it): its own
 * budget where it has one; on axes it leaves open, a fair share of what is left among the `waiting` tasks not yet reserved (itself
 * included), at least one micro-dollar or unit while anything is left, so one unbudgeted
 * task cannot reserve the whole job. `shared` says whether any axis was a fair share.
 */
export function fairWant(own: Budget | undefined, left: Budget, waiting: number): { want: Budget; shared: boolean } {
  const want: Budget = { ...own };
  const ways = Math.max(1, waiting);
  let shared = false;
  for (const axis of SPEND_AXES) {
    const avail = left[axis];
    if (want[axis] !== undefined || avail === undefined) continue;
    want[axis] = Math.max(avail > 0 ? fromUnits(axis, 1) : 0, splitOn(axis, avail, ways));
    shared = true;
  }
  return { want, shared };
}

/** A running child whose allocation the job clipped, as top-up sharing sees it. */
export interface ClippedChild {
  /** The task's own budget (absent axes: it would take any amount). */
  asked?: Budget;
  /** What it holds now. */
  allocation: Budget;
}

/**
 * One clipped child's part of a top-up: only the new money (`added`, bounded by what is
 * `left`) is shared, in `ways` equal parts (the clipped children and the tasks not started
 * yet, so those keep theirs), and a child never gets more than it asked for.
 */
export function topUpShare(added: Budget, left: Budget, child: ClippedChild, ways: number): Budget {
  const extra: Budget = {};
  for (const axis of SPEND_AXES) {
    const avail = Math.min(left[axis] ?? 0, added[axis] ?? 0);
    if (avail <= 0) continue;
    const asked = child.asked?.[axis];
    const wanted = asked === undefined ? Infinity : subOn(axis, asked, child.allocation[axis] ?? 0);
    const share = Math.min(wanted, splitOn(axis, avail, ways));
    if (share > 0) extra[axis] = share;
  }
  return extra;
}

/** What the job can give of `add` out of what it has `left` (whole micro-dollars and units). */
export function grantable(add: Budget, left: Budget): Budget {
  const granted: Budget = {};
  for (const axis of BUDGET_AXES) {
    const want = add[axis];
    if (want === undefined) continue;
    const give = floorOn(axis, Math.min(want, left[axis] ?? Infinity));
    if (give > EPSILON) granted[axis] = give;
  }
  return granted;
}
