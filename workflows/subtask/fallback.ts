/**
 * Fallback agents on the state: when the agent fails for good (or its circuit is open), the
 * next agent of the list takes over with the same ledger, evidence and deadline, from a fresh
 * agent state. The rule of which failures move on is fallbacks.ts; the patch marker that
 * guards the path is asked by the workflow, after `mayFallBack`.
 *
 *   failure ──mayFallBack?──> leaveAgent ──resolve next (skip unresolvable: fallbackUnresolved)──> switchTo | none left
 */
import type { FailureReason } from '../../schemas';
import { runManifest, type RunManifest } from '../../core/routing';
import { fallsBack } from '../fallbacks';
import type { StepFailure } from './step';
import type { RunningState, SubtaskState } from './state';

/** Whether a failure moves the task to its next agent: one is left, and another agent could do better. */
export function mayFallBack(s: SubtaskState, why: FailureReason, pastJobDeadline: boolean): boolean {
  return s.fallbackAt < s.fallbacks.length && fallsBack(why, pastJobDeadline);
}

/** The agent that failed goes into `agentsTried`. */
export function leaveAgent(s: SubtaskState, agent: string, why: FailureReason, message: string): void {
  s.agentsTried.push({ agent, outcome: 'failure', reason: why, error: message.slice(0, 500) });
}

/** The next fallback to resolve, moving past it; undefined when none is left. */
export function takeFallback(s: SubtaskState): string | undefined {
  return s.fallbackAt < s.fallbacks.length ? s.fallbacks[s.fallbackAt++] : undefined;
}

/** A fallback that could not be resolved: recorded, and skipped. */
export function fallbackUnresolved(s: SubtaskState, agent: string, f: StepFailure): void {
  leaveAgent(s, agent, f.reason, f.message);
  s.errors.push(`fallback agent "${agent}": ${f.message}`);
}

/** Agent `next` takes the task's remaining steps (a fallback, a down-shift, a hedge that answered first): routing says why, its steps count from here. */
export function handOver(s: RunningState, next: RunManifest, reason: string): void {
  s.routing = { agent: next.id, reason };
  s.manifest = runManifest(next);
  s.agentId = next.id;
  s.agentStartStep = s.steps;
}

/** The next agent takes over: routing says why, its steps count from here, nothing of the last agent's own state goes on. */
export function switchTo(s: RunningState, next: RunManifest, why: FailureReason): void {
  handOver(s, next, `fallback after ${why} of ${s.manifest.id}`);
  s.agentState = undefined;
  s.reprompt = undefined;
  s.awaitingSummary = false;
}
