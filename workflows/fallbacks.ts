/**
 * Fallback agents: when a subtask's agent is cut off (`circuit_open`) or fails for good, the
 * subtask moves on to the next agent of `task.fallback`, with the same ledger and deadline.
 *
 *   agent ──circuit_open / final failure──> fallback[0] ──same──> fallback[1] ... ──> result (agentsTried)
 *
 * Budget, stop, cancel, a tool the scope refuses and the job's own deadline end the task
 * whichever agent runs: another agent would meet the same wall.
 */
import type { FailureReason } from '../schemas';

/** The patch marker of the subtask's fallback path (recorded once, when a task first moves on). */
export const FALLBACK_PATCH = 'agent-fallbacks';

/** Failures of the agent itself: another agent may do better. */
const AGENT_FAILURES: ReadonlySet<FailureReason> = new Set(['circuit_open', 'agent_error', 'timeout', 'invalid_output', 'no_agent']);

/** Whether a failure moves the task to its next agent; a timeout at the job's deadline does not. */
export function fallsBack(reason: FailureReason, pastJobDeadline: boolean): boolean {
  return AGENT_FAILURES.has(reason) && !(reason === 'timeout' && pastJobDeadline);
}
