/**
 * What a workflow's log lines carry beyond the ids its workflow id spells (tenant, jobId and
 * taskId, which the worker's logger reads from every line's workflow id: telemetry/logging.ts):
 * the agent a subtask runs. A workflow sets it once known, and this interceptor module adds it
 * to every later line of the workflow's replay-aware logger. Module state is per workflow run:
 * each run evaluates its modules afresh.
 *
 *   subtask ──setLogContext({ agent })──> log.info(...) ──getLogAttributes──> worker's logger
 */
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';

const context: Record<string, unknown> = {};

/** Adds ids to every later log line of this workflow run (undefined values are left out). */
export function setLogContext(ids: Record<string, string | number | undefined>): void {
  for (const [k, v] of Object.entries(ids)) if (v !== undefined) context[k] = v;
}

/** The interceptors the worker loads from this module (`workflowInterceptorModules`). */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [{ getLogAttributes: (input, next) => next({ ...input, ...context }) }],
});
