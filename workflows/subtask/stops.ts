/**
 * Stop conditions after a step (host rules 1): the machine-checkable ones here; rubrics go to
 * the judge agent only when nothing else holds and budget is left. A `budget exhausted` hit
 * halts with that reason; any other ends the loop with what the agent has (success).
 *
 *   state ──checkStops──> hit | judge(rubrics) | none
 *   judge's verdict ──applyVerdict──> hit | none (spend booked, the judge's reason noted)
 *   hit ──applyStopHit──> stoppedBy; budget_exhausted ? halt : done
 */
import type { Activities } from '../../activities';
import type { TaskSpec } from '../../schemas';
import { charge, remaining } from '../../core/budget-ledger';
import { withoutSeed } from '../../core/research-output';
import { evaluateStopConditions, rubrics, type StopHit, type StopState } from '../../core/stop-conditions';
import type { HostRules } from './host-rules';
import { halt } from './halt';
import { elapsedSeconds, spentAxes, type RunningState } from './state';

/** Input and answer of the judge activity. */
export type JudgeInput = Parameters<Activities['judgeRubrics']>[0];
/** See JudgeInput. */
export type JudgeOutput = Awaited<ReturnType<Activities['judgeRubrics']>>;

/** Only a judge can tell: the rubrics, and the state they are judged against. */
export interface JudgeCheck {
  kind: 'judge';
  stop: StopState;
  rubrics: string[];
}
/** What the stop conditions say after a step. */
export type StopCheck = { kind: 'none' } | { kind: 'hit'; hit: StopHit } | JudgeCheck;

/** The note when rubrics cannot be judged (said once). */
export const NO_JUDGE_NOTE = 'rubric stop conditions not judged: no judge agent is configured (DELEGATE_JUDGE_AGENT)';

/** The machine-checkable conditions against the state; rubrics left for a judge when none holds and no axis is spent. */
export function checkStops(s: RunningState, task: TaskSpec, rules: HostRules, now: number): StopCheck {
  const stops = rules.stopConditions;
  if (s.done || stops.length === 0) return { kind: 'none' };
  const stop: StopState = {
    steps: s.steps,
    confidence: s.confidence,
    schemaValid: s.schemaValid,
    evidence: withoutSeed(task.contextSeed ?? [], s.evidence).evidence.length,
    exhaustedAxes: spentAxes(s, now),
  };
  const hit = evaluateStopConditions(
    stops.filter((c) => c.kind !== 'rubric'),
    stop,
  );
  if (hit) return { kind: 'hit', hit };
  const texts = rubrics(stops);
  if (texts.length === 0 || stop.exhaustedAxes.length > 0) return { kind: 'none' };
  return { kind: 'judge', stop, rubrics: texts };
}

/** What the judge reads: the question, the answer, the first evidence, the budget left. */
export function judgeInput(s: RunningState, task: TaskSpec, texts: string[], workflowId: string, now: number): JudgeInput {
  return {
    taskId: task.id,
    question: task.question,
    rubrics: texts,
    summary: s.summary,
    data: s.data,
    evidence: s.evidence.slice(0, 20).map((e) => ({ title: e.title, url: e.url, snippet: e.snippet.slice(0, 300) })),
    budgetLeft: remaining(s.ledger, elapsedSeconds(s, now)),
    stepKey: `${workflowId}#${s.steps}`,
  };
}

/** The judge's answer: its spend booked; the first condition (in the task's order) that holds with its verdicts. */
export function applyVerdict(s: RunningState, rules: HostRules, stop: StopState, verdict: JudgeOutput): StopHit | null {
  charge(s.ledger, verdict.usage);
  if (verdict.judge === null) {
    if (!s.notes.includes(NO_JUDGE_NOTE)) s.notes.push(NO_JUDGE_NOTE);
    return null;
  }
  const held = evaluateStopConditions(rules.stopConditions, { ...stop, rubricVerdicts: verdict.verdicts });
  if (held?.condition.kind === 'rubric') {
    const why = verdict.reasons[held.condition.text];
    s.notes.push(`judge ${verdict.judge}: "${held.condition.text}" holds${why ? ` (${why})` : ''}`);
  }
  return held;
}

/** A judge that failed: noted, and the loop goes on. */
export function judgeFailed(s: RunningState, message: string): null {
  s.notes.push(`judge failed after step ${s.steps}: ${message}`.slice(0, 500));
  return null;
}

/** A condition held: it stopped the subtask; `budget exhausted` halts, any other ends it with its answer. */
export function applyStopHit(s: RunningState, hit: StopHit): 'halt' | 'done' {
  s.stoppedBy = hit.condition.text;
  if (hit.condition.kind === 'budget_exhausted') return halt(s, 'budget_exhausted');
  s.done = true;
  return 'done';
}
