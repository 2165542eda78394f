/**
 * The judge's scores in a replay's comparison (DELEGATE_JUDGE_AGENT): once the replay has
 * finished, a grading job asks the judge, for each subtask both runs answered, to score the two
 * answers to the task's question from 0 to 1. The grading is a job like any other (its id
 * `<replayId>-grade`, labelled `gradeOf`), so it is durable, budgeted and seen in the UI; the
 * comparison carries the scores once it has finished. Which answer the judge reads first is fixed
 * per task id, half of them each way, so an order bias does not favour one side.
 *
 *   comparison ──replay finished, a judge configured──> gradingSpec(pairs) ──submit (same spec: the same job)──> its result
 *              ──scoresOf──> { source, replay } per task id ──> compareRuns
 */
import { createHash } from 'node:crypto';
import type { JobResult, JobSpec, TaskResult, TaskSpec } from '../../schemas';

/** What the judge answers per pair (its task's outputSchema): `a` scores the answer shown first. */
export const GRADE_SCHEMA = {
  type: 'object',
  required: ['a', 'b'],
  properties: {
    a: { type: 'number', minimum: 0, maximum: 1 },
    b: { type: 'number', minimum: 0, maximum: 1 },
    why: { type: 'string' },
  },
} as const;

/** The longest answer the judge is shown, in characters. */
const ANSWER_CHARS = 4000;

/** Both sides' scores of one subtask. */
export interface PairScore {
  source: number;
  replay: number;
}

/** The grading job's id: `<replayId>-grade`, or a hash of the replay id where that would pass 128 characters. */
export function gradeJobId(replayId: string): string {
  const id = `${replayId}-grade`;
  return id.length <= 128 ? id : `grade-${createHash('sha256').update(replayId).digest('hex').slice(0, 40)}`;
}

/** Whether the judge reads the replay's answer first for this task (fixed per id, about half of them). */
export function replayFirst(taskId: string): boolean {
  return createHash('sha256').update(taskId).digest()[0] % 2 === 1;
}

/** What the judge is shown of an answer: its data when it has some, else its summary. */
const shown = (r: TaskResult) => (r.data !== undefined ? JSON.stringify(r.data) : r.summary).slice(0, ANSWER_CHARS);

/** The question put to the judge for one pair. */
export function gradingQuestion(question: string, first: TaskResult, second: TaskResult): string {
  return [
    'Score how well each of the two answers below answers the question, from 0 (wrong, or no answer) to 1 (fully right and complete). Score each on its own merits; their order means nothing. Answer with JSON only: {"a": <score of answer A>, "b": <score of answer B>, "why": "<one sentence>"}.',
    `Question: ${question}`,
    `Answer A:\n${shown(first)}`,
    `Answer B:\n${shown(second)}`,
  ].join('\n\n');
}

/** Every task of the tree by id (a nested job's tasks too: their results pair by id as well). */
function tasksById(tasks: TaskSpec[], into = new Map<string, TaskSpec>()): Map<string, TaskSpec> {
  for (const t of tasks) {
    into.set(t.id, t);
    if (t.job) tasksById(t.job.tasks, into);
  }
  return into;
}

/** A side the judge can score: it answered something. */
const answered = (r: TaskResult | undefined): r is TaskResult => r !== undefined && r.status !== 'failure';

/** The grading job of a finished replay, or undefined when no pair has two answers to score. */
export function gradingSpec(replayId: string, judge: string, spec: JobSpec, source: JobResult, replay: JobResult): JobSpec | undefined {
  const bySource = new Map(source.results.map((r) => [r.id, r]));
  const questions = tasksById(spec.tasks);
  const tasks: TaskSpec[] = [];
  for (const r of replay.results) {
    const s = bySource.get(r.id);
    const question = questions.get(r.id)?.question;
    if (!answered(s) || !answered(r) || question === undefined) continue;
    const [first, second] = replayFirst(r.id) ? [r, s] : [s, r];
    tasks.push({ id: r.id, question: gradingQuestion(question, first, second), agent: judge, outputSchema: { ...GRADE_SCHEMA } });
  }
  if (tasks.length === 0) return undefined;
  return { jobId: gradeJobId(replayId), pattern: 'fanout', tasks, labels: { gradeOf: replayId } };
}

/** The scores the grading job's results give, by task id (a pair the judge could not score has none). */
export function scoresOf(grading: JobResult): Map<string, PairScore> {
  const scores = new Map<string, PairScore>();
  for (const r of grading.results) {
    const d = r.data as { a?: unknown; b?: unknown } | undefined;
    if (r.status !== 'success' || typeof d?.a !== 'number' || typeof d.b !== 'number') continue;
    scores.set(r.id, replayFirst(r.id) ? { replay: d.a, source: d.b } : { source: d.a, replay: d.b });
  }
  return scores;
}
