/**
 * The comparison of a replay with the job it replays: pure, from the two results and the
 * replay's spec. Subtasks pair by id (a replay keeps its source's task ids); the source's
 * results the replay left out (a filter) are not compared.
 *
 *   replay.results ──pair by id──> source result? ──> status, cost, tokens, latency, outputs equal, judge's verdict, score
 *                  ──sum──> totals per side (mean score), ratios
 */
import type { JobResult, JobSpec, TaskResult, TaskSpec } from '../../schemas';
import type { JobComparison, ReplaySide, ReplayTotals, SubtaskComparison } from '../../schemas/replay';
import type { ReplayOverrides } from '../../record/job-specs';
import { canonicalJson } from '../../core/vote-tally';
import { parseStopConditions, rubrics } from '../../core/stop-conditions';
import type { PairScore } from './replay-grade';

/** What the comparison is made of. */
export interface CompareInput {
  replayId: string;
  sourceId: string;
  overrides: ReplayOverrides;
  source: JobResult;
  replay: JobResult;
  /** The replay's spec: which tasks had rubrics. */
  spec: JobSpec;
  /** The judge's scores by task id, and the grading job they come from (replay-grade.ts). */
  graded?: { jobId: string; judge: string; scores: Map<string, PairScore> };
}

/** A result's output: its data when it has some, else its summary. */
const outputOf = (r: TaskResult): unknown => (r.data !== undefined ? r.data : r.summary);

/** The rubric stop conditions of every task of the tree, by task id. */
function rubricsById(tasks: TaskSpec[], into = new Map<string, string[]>()): Map<string, string[]> {
  for (const t of tasks) {
    const texts = rubrics(parseStopConditions(t.stopConditions ?? []).conditions);
    if (texts.length) into.set(t.id, texts);
    if (t.job) rubricsById(t.job.tasks, into);
  }
  return into;
}

/** One side of a subtask; `texts` the task's rubrics (the judge's verdict is the rubric it stopped on), `score` the grading's. */
function sideOf(r: TaskResult | undefined, texts: string[] | undefined, score: number | undefined): ReplaySide | null {
  if (!r) return null;
  return {
    agentId: r.agentId,
    status: r.status,
    failureReason: r.failureReason,
    costUsd: r.metrics.costUsd,
    tokens: r.metrics.tokens,
    latencyMs: r.metrics.latencyMs,
    ...(texts ? { judged: r.stoppedBy !== undefined && texts.includes(r.stoppedBy) ? 1 : null } : {}),
    ...(score !== undefined ? { score } : {}),
  };
}

/** A side's totals over its compared results; `scores` the judge's of this side, where it graded. */
function totalsOf(job: JobResult, results: TaskResult[], scores: number[]): ReplayTotals {
  // money summed in micro-dollars: a float sum of many small costs drifts
  const micros = results.reduce((n, r) => n + Math.round(r.metrics.costUsd * 1e6), 0);
  return {
    status: job.status,
    subtasks: results.length,
    succeeded: results.filter((r) => r.status === 'success').length,
    costUsd: micros / 1e6,
    tokens: results.reduce((n, r) => n + r.metrics.tokens, 0),
    latencyMs: results.reduce((n, r) => n + r.metrics.latencyMs, 0),
    jobLatencyMs: job.metrics.latencyMs,
    ...(scores.length > 0 ? { meanScore: Math.round((scores.reduce((a, b) => a + b, 0) / scores.length) * 1e4) / 1e4 } : {}),
  };
}

const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 1e4) / 1e4 : null);

/** The comparison of a finished replay with its finished source. */
export function compareRuns(i: CompareInput): JobComparison {
  const bySource = new Map(i.source.results.map((r) => [r.id, r]));
  const withRubrics = rubricsById(i.spec.tasks);
  const subtasks: SubtaskComparison[] = i.replay.results.map((r) => {
    const s = bySource.get(r.id);
    const texts = withRubrics.get(r.id);
    const score = i.graded?.scores.get(r.id);
    return {
      taskId: r.id,
      source: sideOf(s, texts, score?.source),
      replay: sideOf(r, texts, score?.replay),
      outputsEqual: s ? canonicalJson(outputOf(s)) === canonicalJson(outputOf(r)) : null,
    };
  });
  const paired = i.replay.results.filter((r) => bySource.has(r.id));
  const scores = paired.flatMap((r) => i.graded?.scores.get(r.id) ?? []);
  const source = totalsOf(
    i.source,
    paired.map((r) => bySource.get(r.id)!),
    scores.map((s) => s.source),
  );
  const replay = totalsOf(
    i.replay,
    paired,
    scores.map((s) => s.replay),
  );
  return {
    jobId: i.replayId,
    replayOf: i.sourceId,
    overrides: i.overrides,
    ...(i.graded ? { gradedBy: { jobId: i.graded.jobId, judge: i.graded.judge, graded: scores.length } } : {}),
    subtasks,
    totals: {
      source,
      replay,
      compared: paired.length,
      outputsEqual: subtasks.filter((s) => s.outputsEqual === true).length,
      costRatio: ratio(replay.costUsd, source.costUsd),
      latencyRatio: ratio(replay.latencyMs, source.latencyMs),
    },
  };
}
