/**
 * How a job shares its budget among its tasks: pure arithmetic over what is left, no
 * Temporal, unit-tested alone (test/core/allocation.unit.test.ts).
 *
 *   task asks ──fairWant(own budget, left, waiting)──> want ──ledger.reserve──> allocation
 *   top-up ──topUpShare(added, left, child, ways)──> extra for each clipped running child
 *   subtask top-up ──grantable(add, left)──> what the job can give
 *
 * Money counts whole micro-dollars and integer axes whole units, so every share is exact.
 */
import type { Budget } from '../schemas/budget';
import { BUDGET_AXES, SPEND_AXES } from './budget-axes';
import { floorOn, fromUnits, splitOn, subOn } from './money';
import { EPSILON } from './budget-ledger';

/**
 * What a task asks of the job budget: its own budget where it has one; on axes it leaves
 * open, a fair share of what is left among the `waiting` tasks not yet reserved (itself
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
