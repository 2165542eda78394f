/** Controlling a running job: graceful stop, hard cancel, budget top-ups (409 once it has finished). */
import type { Client } from '@temporalio/client';
import type { Budget, Ledger } from '../../schemas';
import { BUDGET_AXES } from '../../core/budget-axes';
import { toUnits } from '../../core/money';
import { budgetUpdate, jobStatusQuery, modelUpdate, steerSignal, stopSignal, subtaskBudgetUpdate } from '../../contracts/messages';
import type { SteeringMessage } from '../../schemas/approval';
import type { JobModelState } from '../../core/role-limits';
import { HttpProblem } from '../errors';
import type { JobHandles } from './handles';

/**
 * Refuses a top-up amount the ledger cannot book: money counts whole micro-dollars, so 0.0000004
 * would round to nothing and answer 200 with nothing added. 400 at the field path.
 */
export function checkTopUp(add: Budget): void {
  const errors = BUDGET_AXES.filter((axis) => add[axis] !== undefined && add[axis] > 0 && toUnits(axis, add[axis]) === 0).map((axis) => ({
    path: `body.add.${axis}`,
    message: `${add[axis]} is below the smallest amount the ledger books (costUsd: one micro-dollar, 0.000001)`,
  }));
  if (errors.length > 0) throw new HttpProblem(400, 'Invalid request', 'a top-up amount rounds to nothing', errors);
}

/** The control operations. */
export function createControls(client: Client, { requireRunning }: JobHandles) {
  return {
    /** Graceful stop. */
    async stop(tenant: string, jobId: string): Promise<void> {
      await (await requireRunning(tenant, jobId)).signal(stopSignal, { reason: 'api' });
    },

    /** Hard cancel. */
    async cancel(tenant: string, jobId: string): Promise<void> {
      await (await requireRunning(tenant, jobId)).cancel();
    },

    /** Job budget top-up; returns the new ledger. */
    async topUp(tenant: string, jobId: string, add: Budget): Promise<Ledger> {
      checkTopUp(add);
      const handle = await requireRunning(tenant, jobId);
      return handle.executeUpdate(budgetUpdate, { args: [{ add }] });
    },

    /** Switches a running job's model (and output cap) for the children it starts from now on. */
    async setModel(tenant: string, jobId: string, update: JobModelState): Promise<JobModelState> {
      const handle = await requireRunning(tenant, jobId);
      return handle.executeUpdate(modelUpdate, { args: [update] });
    },

    /** Sends a steering message to a running subtask (in a batch of a wide fan-out too): its next step receives it. 404 unknown, 409 not running. */
    async steer(tenant: string, jobId: string, taskId: string, message: SteeringMessage): Promise<{ workflowId: string }> {
      const handle = await requireRunning(tenant, jobId);
      const root = await handle.query(jobStatusQuery);
      let found = root.subtasks.find((s) => s.id === taskId && !s.batch);
      for (const b of found ? [] : root.subtasks.filter((s) => s.batch && s.state === 'running')) {
        const inner = await client.workflow
          .getHandle(b.workflowId)
          .query(jobStatusQuery)
          .catch(() => undefined);
        found = inner?.subtasks.find((s) => s.id === taskId && !s.batch);
        if (found) break;
      }
      if (!found) throw new HttpProblem(404, 'Not found', `no subtask "${taskId}" in job "${jobId}"`);
      if (found.state !== 'running') throw new HttpProblem(409, 'Conflict', `subtask "${taskId}" is not running (${found.state})`);
      await client.workflow.getHandle(found.workflowId).signal(steerSignal, message);
      return { workflowId: found.workflowId };
    },

    /** One running subtask's top-up, within what its job has left. */
    async topUpSubtask(tenant: string, jobId: string, taskId: string, add: Budget) {
      checkTopUp(add);
      const handle = await requireRunning(tenant, jobId);
      // the job knows its batches, not the state of each task inside them: ask the running batches
      const root = await handle.query(jobStatusQuery).catch(() => undefined);
      if (root && !root.subtasks.some((s) => s.id === taskId && !s.batch)) {
        for (const b of root.subtasks.filter((s) => s.batch && s.state === 'running')) {
          const inner = await client.workflow
            .getHandle(b.workflowId)
            .query(jobStatusQuery)
            .catch(() => undefined);
          const found = inner?.subtasks.find((s) => s.id === taskId);
          if (found && found.state !== 'running')
            throw new HttpProblem(409, 'Conflict', `subtask "${taskId}" is not running (${found.state})`);
        }
      }
      return handle.executeUpdate(subtaskBudgetUpdate, { args: [{ taskId, add }] });
    },
  };
}
