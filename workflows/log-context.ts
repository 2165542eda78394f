/**
 * What a workflow's log lines carry beyond the ids its workflow id spells (tenant, jobId and
 * taskId, which the worker's logger reads from every line's workflow id: telemetry/logging.ts):
 * the agent a subtask runs. A workflow sets it once known, and this interceptor module adds it
 * to every later line of the workflow's replay-aware logger. The ids live on the run's own
 * `globalThis`: the reusable V8 context evaluates this module once and shares it with every run
 * (the worker preloads the workflows), and it gives each run a global scope of its own.
 *
 *   subtask ──setLogContext({ agent })──> log.info(...) ──getLogAttributes──> worker's logger
 */
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';

const KEY = '__delegateLogContext';
type RunGlobals = { [KEY]?: Record<string, unknown> };

/** This run's ids (its own global, never another run's). */
const context = (): Record<string, unknown> => ((globalThis as RunGlobals)[KEY] ??= {});

/** Adds ids to every later log line of this workflow run (undefined values are left out). */
export function setLogContext(ids: Record<string, string | number | undefined>): void {
  const ctx = context();
  for (const [k, v] of Object.entries(ids)) if (v !== undefined) ctx[k] = v;
}

/** This run's ids, for lines the worker writes on the run's behalf (a job's reports: job/reports.ts). */
export function logContext(): Record<string, unknown> {
  return { ...(globalThis as RunGlobals)[KEY] };
}

/** The interceptors the worker loads from this module (`workflowInterceptorModules`). */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [{ getLogAttributes: (input, next) => next({ ...input, ...(globalThis as RunGlobals)[KEY] }) }],
});
