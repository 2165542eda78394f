/**
 * The re-prompts the host sends, each at most once per cause: an output the schema refused,
 * a research summary of other than 3–6 sentences, a role child that broke its protocol.
 *
 *   invalid output ──(no re-prompt yet)──> "Your previous output was rejected: …"   then invalid_output
 *                  └─ then a valid output: the error is a note ("re-prompted after: …")
 *   done, research, summary 1–2 or 7+ sentences ──(once)──> "Summary: …"           then the mapping trims it
 *   role: final output too early ──(once)──> "Protocol error: …"; a denied call ──> tool_denied
 */
import type { TaskSpec } from '../../schemas';
import { checkSummary } from '../../core/summary-sentences';
import type { RoleNext } from '../role-host';
import type { HostRules } from './host-rules';
import { agentHasSteps, halt } from './halt';
import type { StepFailure } from './step';
import { spentAxes, SUMMARY_REPROMPT_PREFIX, type RunningState, type SubtaskState } from './state';

/** A re-prompt the host set (`state.reprompt`), as its RETRY log line reports it. */
export interface Reprompted {
  error: string;
  why: string;
}

/** An output the schema refused gets one re-prompt, unless the agent said another would not help. */
export function invalidOutputReprompt(s: RunningState, f: StepFailure): Reprompted | null {
  if (f.reason !== 'invalid_output' || s.reprompt !== undefined || f.noReprompt) return null;
  s.reprompt = `Your previous output was rejected: ${f.message}. Answer again so that data satisfies the output schema.`;
  return { error: f.message.slice(0, 500), why: 're-prompt after invalid output' };
}

/** The invalid-output re-prompt, around the error it quotes. */
const OUTPUT_REPROMPT = /^Your previous output was rejected: ([^]*)\. Answer again so that data satisfies the output schema\.$/;

/** A step's output answered the invalid-output re-prompt: the error it fixed is a note, no error of the task. */
export function repromptAnswered(s: SubtaskState): void {
  const error = OUTPUT_REPROMPT.exec(s.reprompt ?? '')?.[1];
  const at = error === undefined ? -1 : s.errors.lastIndexOf(error);
  if (at < 0) return;
  s.errors.splice(at, 1);
  s.notes.push(`re-prompted after: ${error}`);
}

/**
 * A research task's finished answer whose summary is not 3–6 sentences: one re-prompt, while
 * the agent has steps and budget left (the research mapping trims what still is not).
 */
export function summaryReprompt(s: RunningState, task: TaskSpec, rules: HostRules, now: number): Reprompted | null {
  if (!rules.repromptSummary || !s.done || !task.research || s.summaryReprompted) return null;
  if (!agentHasSteps(s) || spentAxes(s, now).length > 0) return null;
  const check = checkSummary(s.summary);
  if (check.ok) return null;
  s.summaryReprompted = true;
  s.reprompt = `${SUMMARY_REPROMPT_PREFIX} ${check.reprompt}`;
  s.awaitingSummary = true;
  s.done = false;
  s.notes.push(`summary re-prompted once: it had ${check.sentences} sentence${check.sentences === 1 ? '' : 's'}`);
  return { error: `summary of ${check.sentences} sentences`, why: 're-prompt for a 3–6 sentence summary' };
}

/** The role host's verdict on a step: go on, re-prompt (the agent is not done), or halt with its reason. */
export function applyRoleNext(s: RunningState, next: RoleNext): 'go' | 'halt' | Reprompted {
  if (next.kind === 'go') return 'go';
  if (next.kind === 'fail') {
    s.errors.push(next.message);
    return halt(s, next.reason);
  }
  s.done = false;
  s.reprompt = next.message;
  return { error: next.message.slice(0, 500), why: 're-prompt after a protocol error' };
}
