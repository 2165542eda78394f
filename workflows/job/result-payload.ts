/**
 * Assembling a job's result so that it always fits one Temporal payload (2 MiB): past
 * `MAX_RESULT_BYTES`, full subtask results stay in the children (listed in `batches`, the
 * API stitches them back) and only compact results, capped evidence and follow-ups remain.
 *
 *   children's results ──> JobResult ──too big?──> compact results + references ──> payload
 */
import type { JobBatch, JobResult, TaskResult } from '../../schemas';
import { flattenBatches, realTaskCount } from '../patterns/batching';
import { carriedLists, isCarried } from './carry';
import type { JobRuntime } from './runtime';
import type { PatternOutcome } from '../patterns/outcome';
import { compactResult, dedupe, dedupeEvidence, fitList, jsonBytes, sumMetrics } from '../../core/task-results';
import { traceIdOf, withTraceId } from '../../core/trace-context';

/** A job result stays under this many JSON bytes (Temporal refuses payloads over 2 MiB). */
export const MAX_RESULT_BYTES = 1_500_000;
/** At most this many evidence items and follow-ups in one JobResult. */
const MAX_LISTED = 2000;

/**
 * Where each child's full result lives, for the API to stitch back: a batch's JobResult, a
 * subtask's TaskResult or a nested job's JobResult; with the task ids that never ran when
 * the child itself never did.
 */
function childRefs(rt: JobRuntime, byId: Map<string, TaskResult>): JobBatch[] {
  return rt.spec.tasks.map((t) => {
    const r = byId.get(t.id);
    const batch = rt.records.isBatch(t.id);
    const nested = rt.records.nestedResult(t.id);
    const ran = batch ? nested !== undefined : rt.budget.allocated(t.id);
    return {
      id: t.id,
      workflowId: rt.childId(t),
      tasks: batch ? (t.job?.tasks.length ?? 0) : 1,
      kind: batch ? ('batch' as const) : t.job ? ('nested' as const) : ('subtask' as const),
      status: (batch ? nested?.status : r?.status) ?? 'failure',
      ...(ran
        ? {}
        : { notRun: { reason: r?.failureReason ?? 'cancelled', taskIds: batch ? (t.job?.tasks ?? []).map((x) => x.id) : [t.id] } }),
    };
  });
}

/** The job's result from its runtime and its pattern's verdict, always payload-sized. */
export function buildJobResult(rt: JobRuntime, outcome: PatternOutcome): JobResult {
  // a subtask's own result has it already; a task that never ran, or ran as a nested job, gets it here
  const byId = new Map(rt.records.results().map((r) => [r.id, withTraceId(r, rt.input.traceparent)]));
  const traceId = traceIdOf(rt.input.traceparent);
  const results = rt.spec.tasks.map((t) => byId.get(t.id)!).filter(Boolean);
  const batchIds = rt.records.batches();
  const batched = batchIds.size > 0;
  const nested = rt.spec.tasks.map((t) => rt.records.nestedResult(t.id)).filter((n) => n !== undefined);
  // a batched job judges on its batches' (possibly compact) results and takes their evidence lists
  const all = batched ? flattenBatches(rt.spec.tasks, rt.records.nestedResults()) : results;
  // a continued pipeline's earlier stages are compact here: their lists came along in the carry
  const carried = carriedLists(rt);
  const evidence = [...carried.evidence, ...(batched ? nested.flatMap((n) => n.evidence) : all.flatMap((r) => r.evidence))];
  const followUps = [...carried.followUps, ...(batched ? nested.flatMap((n) => n.followUps) : all.flatMap((r) => r.followUps))];
  const result: JobResult = {
    jobId: rt.spec.jobId,
    pattern: rt.spec.pattern,
    status: outcome.status,
    output: outcome.output,
    results: batched ? [] : results,
    ...(batched ? { batches: childRefs(rt, byId) } : {}),
    ...(outcome.vote ? { vote: outcome.vote } : {}),
    evidence: dedupeEvidence(evidence).slice(0, MAX_LISTED),
    followUps: dedupe(followUps).slice(0, MAX_LISTED),
    metrics: { ...sumMetrics(all, Date.now() - rt.started, rt.budget.saved()), subtasks: realTaskCount(rt.spec.tasks, batchIds) },
    budget: { ledger: rt.ledgerSnapshot(), ...rt.budget.lists() },
    ...(traceId ? { traceId } : {}),
  };
  // a continued run holds compact results of earlier stages: the full ones are read back from the children
  if (jsonBytes(result) <= MAX_RESULT_BYTES && !isCarried(rt)) return result;
  if (!batched) {
    result.batches = childRefs(rt, byId);
    result.results = results.map(compactResult);
  }
  if (jsonBytes(result.output ?? null) > MAX_RESULT_BYTES / 2) dropOutput(rt, result, all, outcome.outputTaskId);
  if (jsonBytes(result) > MAX_RESULT_BYTES) {
    result.evidence = fitList(result.evidence, 256 * 1024);
    result.followUps = fitList(result.followUps, 64 * 1024);
  }
  if (jsonBytes(result) > MAX_RESULT_BYTES) dropOutput(rt, result, all, outcome.outputTaskId);
  return result;
}

/** Drops an output too big to keep, saying where the API can rebuild it from. */
function dropOutput(rt: JobRuntime, result: JobResult, all: TaskResult[], ownerId?: string): void {
  if (result.output === null || result.outputRef) return;
  const merge = rt.spec.pattern === 'fanout' && (rt.spec.aggregation?.strategy ?? 'merge') === 'merge';
  // other patterns output one task's data: find which (the same object, not a copy)
  const owner = merge ? undefined : (all.find((r) => r.data !== undefined && r.data === result.output)?.id ?? ownerId);
  result.outputRef = merge ? { merge: true } : owner ? { taskId: owner } : undefined;
  result.output = null;
}
