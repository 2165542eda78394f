/**
 * The ids every workflow log line carries (jobId, taskId, tenant, agent): each workflow sets
 * what it knows, and this interceptor module adds it to every line the workflow's replay-aware
 * logger writes, the SDK's own lines included. Module state is per workflow run: each run
 * evaluates its modules afresh.
 *
 *   workflow ──setLogContext({ jobId, taskId, ... })──> log.info(...) ──getLogAttributes──> worker's logger
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
