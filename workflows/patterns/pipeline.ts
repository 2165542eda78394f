/**
 * Pipeline: stages run one after the other; each stage gets the last successful stage's
 * result as host-provided context (`StepRequest.previous`, its evidence appended to
 * `contextSeed`). A failed stage stops the pipeline (later stages `skipped`) or, with
 * `onStageFailure: "continue"`, is passed over.
 *
 *   stage 1 ──result──> stage 2 ──result──> … ──> stage n ──> output = last successful stage's data
 *              failure? stop: skip the rest · continue: next stage gets the last success
 *   history near its limits? continue as new between two stages (job/carry.ts)
 *
 * A stage succeeds for chaining only with status `success`: a `partial` stage (budget
 * ran out, stopped) counts as a failed stage, because later stages should not build on
 * an unfinished answer. Its work is still kept in `results`, and it makes the job
 * `partial` rather than `failure`.
 */
import { workflowInfo } from '@temporalio/workflow';
import type { PreviousStage } from '../../contracts/step';
import type { JobOutcome, TaskResult } from '../../schemas';
import { pastHardMark, pastSoftMark } from '../../core/engine-limits';
import { continuePipeline } from '../job/carry';
import type { JobRuntime, RunContext } from '../job/runtime';
import type { PatternOutcome } from './outcome';

/** The context the next stage gets from the last successful stage. */
function contextFrom(last: PreviousStage | undefined): RunContext {
  if (!last) return {};
  return { previous: last, contextSeed: last.evidence };
}

/** The job's status: success when every stage succeeded, partial when some did (or did part), failure otherwise. */
function pipelineStatus(results: TaskResult[], stages: number): JobOutcome {
  const succeeded = results.filter((r) => r.status === 'success').length;
  if (succeeded === stages) return 'success';
  return results.some((r) => r.status !== 'failure') ? 'partial' : 'failure';
}

/** Runs the stages of a pipeline job in order (from where the previous run stopped). */
export async function runPipeline(rt: JobRuntime): Promise<PatternOutcome> {
  const { spec } = rt;
  const onFailure = spec.pipeline?.onStageFailure ?? 'stop';
  const first = rt.input.carry?.next ?? 0;
  let last: PreviousStage | undefined = rt.input.carry?.last;
  for (let i = first; i < spec.tasks.length; i++) {
    const stage = spec.tasks[i];
    if (rt.halted) break;
    if (i > first && pastSoftMark(workflowInfo(), i - first, rt.limits.pipelineStagesPerRun)) {
      await continuePipeline(rt, i, last);
      if (pastHardMark(workflowInfo())) {
        // could not carry the state on: end here, clearly, with every finished stage kept
        rt.recordNotRun('skipped', `not started: the job's history is near Temporal's limit (stage ${i + 1} of ${spec.tasks.length})`);
        break;
      }
    }
    const r = await rt.runTask(stage, contextFrom(last));
    if (r.status === 'success') {
      last = { id: r.id, summary: r.summary, data: r.data, evidence: r.evidence };
      continue;
    }
    if (rt.halted) break; // stopped or cancelled: the job records the rest as not started
    if (onFailure === 'stop') {
      rt.recordNotRun('skipped', `skipped: stage "${stage.id}" ended ${r.status}${r.failureReason ? ` (${r.failureReason})` : ''}`);
      break;
    }
  }
  return { status: pipelineStatus(rt.records.results(), spec.tasks.length), output: last?.data ?? null, outputTaskId: last?.id };
}
