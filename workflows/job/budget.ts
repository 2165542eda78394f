/**
 * Live budget changes on a running job, all in one place: validating top-ups, raising the
 * job's limits, sharing new money with the children it clipped, and handing a subtask's
 * top-up down to it (or to the batch that holds it) as a grant the job has reserved. Refused
 * whole: a job top-up of an axis the job leaves open (409), a limit past its axis's max (422).
 *
 *   API ──update budget──> job: limit += add ──topUpShare──> clipped children ──signal grant──> child
 *   API ──update subtaskBudget──> job: reserve grantable(add) ──> subtask (or its batch ──grantTask──> subtask)
 */
import { ApplicationFailure, setHandler } from '@temporalio/workflow';
import type { Budget } from '../../schemas';
import { AXES, BUDGET_AXES } from '../../core/budget-axes';
import { pastMaxAxes, unlimitedAxes } from '../../core/budget-ledger';
import { ErrorType } from '../../core/errors';
import { topUpShare } from '../../core/allocation';
import type { Running } from './children';
import type { JobRuntime } from './runtime';
import { budgetUpdate, grantSignal, grantTaskSignal, jobMessages, subtaskBudgetUpdate } from '../../contracts/messages';

const refuse = (type: typeof ErrorType.NotFound | typeof ErrorType.Conflict | typeof ErrorType.InvalidInput, message: string) =>
  ApplicationFailure.create({ type, message, nonRetryable: true });

/** Throws when a top-up is empty, has unknown axes, or has a non-positive or non-numeric amount. */
export function validateTopUp(add: unknown): asserts add is Budget {
  if (typeof add !== 'object' || add === null || Array.isArray(add))
    throw refuse(ErrorType.InvalidInput, 'add must be an object of budget axes');
  const keys = Object.keys(add);
  if (keys.length === 0) throw refuse(ErrorType.InvalidInput, 'add at least one budget axis');
  for (const k of keys) {
    if (!(BUDGET_AXES as string[]).includes(k)) throw refuse(ErrorType.InvalidInput, `unknown budget axis "${k}"`);
    const v = (add as Record<string, unknown>)[k];
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw refuse(ErrorType.InvalidInput, `add.${k} must be a positive number`);
    if (AXES[k as keyof typeof AXES].kind === 'integer' && !Number.isInteger(v))
      throw refuse(ErrorType.InvalidInput, `add.${k} must be an integer`);
  }
}

/** Throws when `add` would take `limit` past an axis's largest budget (422, a field error per axis). */
function boundTopUp(limit: Budget, add: Budget, whose: string): void {
  const over = pastMaxAxes(limit, add);
  if (over.length === 0) return;
  const details = over.map((a) => ({ path: `add.${a}`, message: `would take ${whose} ${a} limit past ${AXES[a].max}; nothing changed` }));
  throw ApplicationFailure.create({
    type: ErrorType.OutOfRange,
    message: details.map((d) => d.message).join('; '),
    nonRetryable: true,
    details,
  });
}

/** Reserves `extra` for a running child on top of its allocation and tells it (signal `grant`). */
async function grant(rt: JobRuntime, r: Running, extra: Budget): Promise<void> {
  rt.budget.growAllocation(r.allocation, extra);
  await rt.children.tell(r, (h) => h.signal(grantSignal, { add: extra }));
}

/** Gives running children whose allocation the job clipped their share of new headroom. */
async function shareTopUp(rt: JobRuntime, added: Budget): Promise<void> {
  const clipped = rt.children.clipped();
  if (clipped.length === 0) return;
  const left = rt.budget.remaining(rt.elapsed());
  // only the new money is shared, and tasks not started yet keep their fair part of it
  const ways = clipped.length + rt.budget.waiting();
  for (const r of clipped) {
    const extra = topUpShare(added, left, { asked: r.task.budget, allocation: r.allocation }, ways);
    if (Object.values(extra).some((v) => v)) await grant(rt, r, extra);
  }
}

/** The running child a subtask top-up goes to: the subtask itself, or the running batch that holds it. */
function targetOf(rt: JobRuntime, taskId: string): Running | undefined {
  const direct = rt.children.get(taskId);
  if (direct && !direct.nested) return direct;
  const batch = rt.records.batchHolding(taskId);
  return batch && rt.children.get(batch.id);
}

/** Registers the budget update and grant handlers of a job. */
export function installBudgetHandlers(rt: JobRuntime): void {
  /** Raises the job's limits and shares the new money with the children it had clipped. */
  const raise = async (add: Budget) => {
    rt.budget.raise(add);
    await shareTopUp(rt, add);
  };
  const rootOnly = () => {
    if (rt.depth > 0) throw refuse(ErrorType.Conflict, 'a nested job is topped up through its root job');
  };
  setHandler(
    budgetUpdate,
    async ({ add }) => {
      await raise(add);
      const ledger = rt.ledgerSnapshot();
      rt.events.budgetChanged({ add, ledger });
      return ledger;
    },
    {
      description: jobMessages.budget,
      validator: ({ add }) => {
        validateTopUp(add);
        rootOnly();
        const limit = rt.budget.limits();
        const open = unlimitedAxes(limit, add);
        if (open.length) throw refuse(ErrorType.Conflict, `the job has no limit on ${open.join(', ')} to raise; nothing changed`);
        boundTopUp(limit, add, "the job's");
      },
    },
  );
  setHandler(
    subtaskBudgetUpdate,
    async ({ taskId, add }) => {
      const target = targetOf(rt, taskId)!;
      const granted = rt.budget.grantable(add, rt.elapsed());
      if (target.task.id === taskId) await grant(rt, target, granted);
      else {
        rt.budget.growAllocation(target.allocation, granted);
        await rt.children.tell(target, (h) => h.signal(grantTaskSignal, { taskId, add: granted }));
      }
      const ledger = rt.ledgerSnapshot();
      rt.events.budgetChanged({ taskId, add, granted, ledger });
      return { taskId, granted, ledger };
    },
    {
      description: jobMessages.subtaskBudget,
      validator: ({ taskId, add }) => {
        validateTopUp(add);
        rootOnly();
        const target = targetOf(rt, taskId);
        // on what the job would grant: all of `add` on an axis the job leaves open
        if (target) return boundTopUp(target.allocation, rt.budget.grantable(add, rt.elapsed()), `subtask "${taskId}"'s`);
        if (!rt.records.has(taskId) && !rt.records.batchHolding(taskId)) throw refuse(ErrorType.NotFound, `no subtask "${taskId}"`);
        throw refuse(
          ErrorType.Conflict,
          rt.children.get(taskId)?.nested
            ? `"${taskId}" is a nested job: top up the root job instead`
            : `subtask "${taskId}" is not running`,
        );
      },
    },
  );
  setHandler(grantSignal, ({ add }) => raise(add), { description: jobMessages.grant });
  setHandler(
    grantTaskSignal,
    async ({ taskId, add }) => {
      rt.budget.raise(add);
      const target = rt.children.get(taskId);
      if (target && !target.nested) await grant(rt, target, rt.budget.grantable(add, rt.elapsed()));
    },
    { description: jobMessages.grantTask },
  );
}
