/**
 * Live budget changes on a running job: top-ups of the job and of one subtask, handed down
 * to children (subtasks, nested jobs, batches) as grants the job has already reserved.
 *
 *   API ──update budget──> job: limit += add ──share──> clipped children ──signal grant──> child
 *   API ──update subtaskBudget──> job: reserve min(add, left) ──> subtask (or its batch ──grantTask──> subtask)
 */
import { ApplicationFailure, CancellationScope, defineSignal, defineUpdate, setHandler } from '@temporalio/workflow';
import type { Budget, Ledger } from '../schemas';
import { EPSILON, grow, remaining, topUp } from './budget-ledger';
import type { JobRuntime, Running } from './job-runtime';
import { validateTopUp } from './top-up';

/** Adds to the job budget; running children the job had clipped get their share. */
export const budgetUpdate = defineUpdate<Ledger, [{ add: Budget }]>('budget');
/** Adds to one running subtask's allocation, within what the job has left. */
export const subtaskBudgetUpdate = defineUpdate<{ taskId: string; granted: Budget; ledger: Ledger }, [{ taskId: string; add: Budget }]>(
  'subtaskBudget',
);
/** From a parent job: more budget, already reserved there (same name as the subtask's grant). */
export const jobGrantSignal = defineSignal<[{ add: Budget }]>('grant');
/** From a parent job: raise my limit by `add` and hand all of it to my running task `taskId`. */
export const grantTaskSignal = defineSignal<[{ taskId: string; add: Budget }]>('grantTask');

const refuse = (type: 'NotFound' | 'Conflict', message: string) => ApplicationFailure.create({ type, message, nonRetryable: true });

/** Reserves up to `add` out of what the job has left for a running child; returns what was granted. */
function reserveGrant(rt: JobRuntime, r: Running, add: Budget): Budget {
  const left = remaining(rt.ledger, rt.elapsed());
  const granted: Budget = {};
  for (const axis of ['costUsd', 'tokens', 'toolCalls', 'latencySeconds'] as const) {
    const want = add[axis];
    if (want === undefined) continue;
    let give = Math.min(want, left[axis] ?? Infinity);
    if (axis === 'tokens' || axis === 'toolCalls') give = Math.floor(give);
    if (give > EPSILON) granted[axis] = give;
  }
  grow(rt.ledger, granted);
  for (const axis of Object.keys(granted) as (keyof Budget)[]) r.allocation[axis] = (r.allocation[axis] ?? 0) + (granted[axis] ?? 0);
  return granted;
}

/** Sends a signal to a child, ignoring one that has just finished (its settle releases the grant). */
async function tell(r: Running, name: 'grant' | 'grantTask', arg: object): Promise<void> {
  await CancellationScope.nonCancellable(() => r.handle.signal(name, arg)).catch(() => undefined);
}

/** The running child a subtask top-up goes to: the subtask itself, or the running batch that holds it. */
function targetOf(rt: JobRuntime, taskId: string): Running | undefined {
  const direct = rt.running.get(taskId);
  if (direct && !direct.nested) return direct;
  for (const id of rt.batchIds) {
    const batch = rt.running.get(id);
    if (batch?.task.job?.tasks.some((t) => t.id === taskId)) return batch;
  }
  return undefined;
}

/** Registers the budget update and grant handlers of a job. */
export function installBudgetHandlers(rt: JobRuntime, onChange: () => void): void {
  setHandler(
    budgetUpdate,
    async ({ add }) => {
      topUp(rt.ledger, add);
      await rt.shareTopUp(add);
      onChange();
      return rt.ledgerSnapshot();
    },
    {
      validator: ({ add }) => {
        validateTopUp(add);
        if (rt.depth > 0) throw refuse('Conflict', 'a nested job is topped up through its root job');
      },
    },
  );
  setHandler(
    subtaskBudgetUpdate,
    async ({ taskId, add }) => {
      const target = targetOf(rt, taskId)!;
      const granted = reserveGrant(rt, target, add);
      if (target.task.id === taskId) await tell(target, 'grant', { add: granted });
      else await tell(target, 'grantTask', { taskId, add: granted });
      onChange();
      return { taskId, granted, ledger: rt.ledgerSnapshot() };
    },
    {
      validator: ({ taskId, add }) => {
        validateTopUp(add);
        if (rt.depth > 0) throw refuse('Conflict', 'a nested job is topped up through its root job');
        if (targetOf(rt, taskId)) return;
        const known = rt.progress.has(taskId) || [...rt.batchIds].some((id) => rt.spec.tasks.find((t) => t.id === id)?.job?.tasks.some((t) => t.id === taskId));
        if (!known) throw refuse('NotFound', `no subtask "${taskId}"`);
        throw refuse('Conflict', rt.running.get(taskId)?.nested ? `"${taskId}" is a nested job: top up the root job instead` : `subtask "${taskId}" is not running`);
      },
    },
  );
  setHandler(jobGrantSignal, async ({ add }) => {
    topUp(rt.ledger, add);
    await rt.shareTopUp(add);
    onChange();
  });
  setHandler(grantTaskSignal, async ({ taskId, add }) => {
    topUp(rt.ledger, add);
    const target = rt.running.get(taskId);
    if (target && !target.nested) await tell(target, 'grant', { add: reserveGrant(rt, target, add) });
    onChange();
  });
}
