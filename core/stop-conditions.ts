/**
 * Stop conditions, parsed once into a typed form and evaluated by the host between steps.
 * A TaskSpec keeps them as strings (its schema and running histories stay as they are); the
 * API checks them with `parseStopConditions` and the subtask loop parses the same strings.
 *
 *   "evidence >= 5" ──parse──> { kind: 'threshold', metric: 'evidence', op: '>=', value: 5 }
 *   "cites two peer-reviewed sources" ──parse──> { kind: 'rubric', text } ──> a judge agent (later)
 *   [conditions] + loop state ──evaluateStopConditions──> first condition that holds, or null
 *
 * Pure and deterministic (no Intl, no clock): workflows may import it.
 */
import type { BudgetAxis } from './budget-axes';

/** Comparison operators of a threshold; `=` is read as `==`, `≥`/`≤` as `>=`/`<=`. */
export type StopOp = '>=' | '>' | '<=' | '<' | '==';
/** What a threshold compares: the agent's confidence (0..1) or the count of new evidence items. */
export type StopMetric = 'confidence' | 'evidence';

/** One stop condition as the host understands it. */
export type StopCondition =
  | { kind: 'budget_exhausted'; text: string }
  | { kind: 'threshold'; metric: StopMetric; op: StopOp; value: number; text: string }
  | { kind: 'schema_match'; text: string }
  | { kind: 'rubric'; text: string };

/** A condition that reads like a machine-checkable one but is not: refused with its index. */
export interface StopConditionIssue {
  index: number;
  message: string;
}

const OPS: Record<string, StopOp> = { '>=': '>=', '≥': '>=', '>': '>', '<=': '<=', '≤': '<=', '<': '<', '==': '==', '=': '==' };
const THRESHOLD = /^(confidence|evidence)\s*(>=|<=|==|=|>|<|≥|≤)\s*(\d+(?:\.\d+)?|\.\d+)$/;
/** Starts like a threshold (a metric, then an operator-like character) though it may not parse. */
const THRESHOLD_LIKE = /^(confidence|evidence)\s*[<>=!≥≤]/;
const BUDGET = /^budget(\s+is)?\s+exhausted$/;
const SCHEMA = /^(the\s+)?(answer|output)\s+matches\s+(the\s+)?(output\s+)?schema$/;

/** Lower case, `_` as space, runs of whitespace as one space, trimmed. */
const normalise = (s: string): string => s.toLowerCase().replace(/_/g, ' ').replace(/\s+/g, ' ').trim();

/** One condition: a typed form, a rubric (free text), or an issue when it looks machine-checkable but is malformed. */
export function parseStopCondition(text: string): StopCondition | { error: string } {
  const s = normalise(text);
  if (s === '') return { error: 'an empty stop condition' };
  if (BUDGET.test(s)) return { kind: 'budget_exhausted', text };
  if (SCHEMA.test(s)) return { kind: 'schema_match', text };
  const m = THRESHOLD.exec(s);
  if (m) {
    const metric = m[1] as StopMetric;
    const value = Number(m[3]);
    if (metric === 'confidence' && value > 1) return { error: `confidence is between 0 and 1, got ${m[3]}` };
    if (metric === 'evidence' && !Number.isInteger(value)) return { error: `evidence counts items: a whole number, got ${m[3]}` };
    return { kind: 'threshold', metric, op: OPS[m[2]!]!, value, text };
  }
  // a typo in a threshold must not become a rubric silently: that would cost a judge call per step
  if (THRESHOLD_LIKE.test(s)) {
    return { error: `"${text.slice(0, 100)}" is not a threshold: use confidence|evidence, one of >= > <= < ==, then a number` };
  }
  return { kind: 'rubric', text };
}

/** Every condition of a list, or the issues of the malformed ones (by index). */
export function parseStopConditions(texts: readonly string[]): { conditions: StopCondition[]; issues: StopConditionIssue[] } {
  const conditions: StopCondition[] = [];
  const issues: StopConditionIssue[] = [];
  texts.forEach((t, index) => {
    const c = parseStopCondition(t);
    if ('error' in c) issues.push({ index, message: c.error });
    else conditions.push(c);
  });
  return { conditions, issues };
}

/** The free-text conditions, for a judge agent. */
export function rubrics(conditions: readonly StopCondition[]): string[] {
  return conditions.filter((c) => c.kind === 'rubric').map((c) => c.text);
}

/** What the host knows about a subtask between two steps. */
export interface StopState {
  /** Steps completed so far: result conditions hold only after the first. */
  steps: number;
  /** The agent's latest confidence, 0..1. */
  confidence: number;
  /** Evidence items the subtask found, seed duplicates excluded. */
  evidence: number;
  /** Whether the latest answer satisfies the task's output schema; null when not checked (no schema, no answer). */
  schemaValid: boolean | null;
  /** Budget axes with nothing left. */
  exhaustedAxes: readonly BudgetAxis[];
  /** A judge's verdicts on rubrics, by rubric text; a rubric without a verdict does not hold. */
  rubricVerdicts?: Readonly<Record<string, boolean>>;
}

/** Which condition stopped a subtask, and where it stands in the task's list. */
export interface StopHit {
  index: number;
  condition: StopCondition;
}

/** a op b. */
export function compare(a: number, op: StopOp, b: number): boolean {
  switch (op) {
    case '>=':
      return a >= b;
    case '>':
      return a > b;
    case '<=':
      return a <= b;
    case '<':
      return a < b;
    case '==':
      return a === b;
  }
}

/** Whether one condition holds now. Only `budget exhausted` can hold before the first step. */
export function holds(c: StopCondition, state: StopState): boolean {
  if (c.kind === 'budget_exhausted') return state.exhaustedAxes.length > 0;
  if (state.steps < 1) return false;
  switch (c.kind) {
    case 'threshold':
      return compare(c.metric === 'confidence' ? state.confidence : state.evidence, c.op, c.value);
    case 'schema_match':
      return state.schemaValid === true;
    case 'rubric':
      return state.rubricVerdicts?.[c.text] === true;
  }
}

/** The first condition, in the task's order, that holds now; null when the loop goes on. */
export function evaluateStopConditions(conditions: readonly StopCondition[], state: StopState): StopHit | null {
  const index = conditions.findIndex((c) => holds(c, state));
  return index < 0 ? null : { index, condition: conditions[index]! };
}
