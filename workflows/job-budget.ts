/**
 * Live budget changes on a running job: top-ups of the job and of one subtask, handed down
 * to children (subtasks, nested jobs, batches) as grants the job has already reserved.
 *
 *   API ──update budget──> job: limit += add ──share──> clipped children ──signal grant──> child
 *   API ──update subtaskBudget──> job: reserve min(add, left) ──> subtask (or its batch ──grantTask──> subtask)
 */
import { ApplicationFailure, setHandler } from '@temporalio/workflow';
import type { Budget } from '../schemas';
import { BUDGET_AXES } from '../schemas/budget-axes';
import { floorOn } from '../schemas/money';
import { EPSILON, remaining, topUp } from './budget-ledger';
import type { JobRuntime, Running } from './job-runtime';
import { budgetUpdate, grantSignal, grantTaskSignal, subtaskBudgetUpdate } from './messages';
import { ErrorType } from '../schemas/errors';
import { validateTopUp } from './top-up';

const refuse = (type: typeof ErrorType.NotFound | typeof ErrorType.Conflict, message: string) => ApplicationFailure.create({ type, message, nonRetryable: true });

/** What the job can give of `add` out of what it has left (latency: its remaining wall clock, if capped). */
function grantable(rt: JobRuntime, add: Budget): Budget {
  const left = remaining(rt.ledger, rt.elapsed());
  const granted: Budget = {};
  for (const axis of BUDGET_AXES) {
    const want = add[axis];
    if (want === undefined) continue;
    const give = floorOn(axis, Math.min(want, left[axis] ?? Infinity));
    if (give > EPSILON) granted[axis] = give;
  }
  return granted;
}

/** The running child a subtask top-up goes to: the subtask itself, or the running batch that holds it. */
function targetOf(rt: JobRuntime, taskId: string): Running | undefined {
  const direct = rt.running.get(taskId);
  if (direct && !direct.nested) return direct;
  const batch = rt.batchHolding(taskId);
  return batch && rt.running.get(batch.id);
}

/** Registers the budget update and grant handlers of a job. */
export function installBudgetHandlers(rt: JobRuntime): void {
  /** Raises the job's limits and shares the new money with the children it had clipped. */
  const raise = async (add: Budget) => {
    topUp(rt.ledger, add);
    await rt.shareTopUp(add);
    rt.onChange?.();
  };
  const rootOnly = () => {
    if (rt.depth > 0) throw refuse(ErrorType.Conflict, 'a nested job is topped up through its root job');
  };
  setHandler(
    budgetUpdate,
    async ({ add }) => {
      await raise(add);
      return rt.ledgerSnapshot();
    },
    {
      validator: ({ add }) => {
        validateTopUp(add);
        rootOnly();
      },
    },
  );
  setHandler(
    subtaskBudgetUpdate,
    async ({ taskId, add }) => {
      const target = targetOf(rt, taskId)!;
      const granted = grantable(rt, add);
      if (target.task.id === taskId) await rt.grant(target, granted);
      else {
        rt.reserveFor(target, granted);
        await rt.tell(target, (h) => h.signal(grantTaskSignal, { taskId, add: granted }));
      }
      rt.onChange?.();
      return { taskId, granted, ledger: rt.ledgerSnapshot() };
    },
    {
      validator: ({ taskId, add }) => {
        validateTopUp(add);
        rootOnly();
        if (targetOf(rt, taskId)) return;
        if (!rt.progress.has(taskId) && !rt.batchHolding(taskId)) throw refuse(ErrorType.NotFound, `no subtask "${taskId}"`);
        throw refuse(ErrorType.Conflict, rt.running.get(taskId)?.nested ? `"${taskId}" is a nested job: top up the root job instead` : `subtask "${taskId}" is not running`);
      },
    },
  );
  setHandler(grantSignal, ({ add }) => raise(add));
  setHandler(grantTaskSignal, async ({ taskId, add }) => {
    topUp(rt.ledger, add);
    const target = rt.running.get(taskId);
    if (target && !target.nested) await rt.grant(target, grantable(rt, add));
    rt.onChange?.();
  });
}
