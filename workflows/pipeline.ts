/**
 * Pipeline: stages run one after the other; each stage gets the last successful stage's
 * result as host-provided context (`StepRequest.previous`, its evidence appended to
 * `contextSeed`). A failed stage stops the pipeline (later stages `skipped`) or, with
 * `onStageFailure: "continue"`, is passed over.
 *
 *   stage 1 ──result──> stage 2 ──result──> … ──> stage n ──> output = last successful stage's data
 *              failure? stop: skip the rest · continue: next stage gets the last success
 *
 * A stage succeeds for chaining only with status `success`: a `partial` stage (budget
 * ran out, stopped) counts as a failed stage, because later stages should not build on
 * an unfinished answer. Its work is still kept in `results`, and it makes the job
 * `partial` rather than `failure`.
 */
import type { JobOutcome, TaskResult } from '../schemas';
import type { JobRuntime, RunContext } from './job-runtime';
import type { PatternOutcome } from './patterns';

/** The context the next stage gets from the last successful stage. */
function contextFrom(last: TaskResult | undefined): RunContext {
  if (!last) return {};
  return {
    previous: { id: last.id, summary: last.summary, data: last.data, evidence: last.evidence },
    contextSeed: last.evidence,
  };
}

/** The job's status: success when every stage succeeded, partial when some did (or did part), failure otherwise. */
function pipelineStatus(results: TaskResult[], stages: number): JobOutcome {
  const succeeded = results.filter((r) => r.status === 'success').length;
  if (succeeded === stages) return 'success';
  return results.some((r) => r.status !== 'failure') ? 'partial' : 'failure';
}

/** Runs the stages of a pipeline job in order. */
export async function runPipeline(rt: JobRuntime): Promise<PatternOutcome> {
  const { spec } = rt;
  const onFailure = spec.pipeline?.onStageFailure ?? 'stop';
  let last: TaskResult | undefined;
  for (const stage of spec.tasks) {
    if (rt.halted) break;
    const r = await rt.runTask(stage, contextFrom(last));
    if (r.status === 'success') {
      last = r;
      continue;
    }
    if (rt.halted) break; // stopped or cancelled: the job records the rest as not started
    if (onFailure === 'stop') {
      rt.recordNotRun('skipped', `skipped: stage "${stage.id}" ended ${r.status}${r.failureReason ? ` (${r.failureReason})` : ''}`);
      break;
    }
  }
  return { status: pipelineStatus(rt.completed, spec.tasks.length), output: last?.data ?? null };
}
