/**
 * The job: a pattern over subtasks, each a child workflow, under one job budget.
 *
 *   JobSpec ──> fanout | pipeline | vote ──> children (subtask | nested job) ──> JobResult
 *                 ▲ stop (signal) · cancel (Temporal cancel) · budget (update) · status (query)
 *
 * Cancelling or stopping the job reaches every running child; every result a child
 * finished is kept in the JobResult, whatever ended the job.
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  log,
  ParentClosePolicy,
  patched,
  proxySinks,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { JobProgress, JobResult } from '../schemas';
import { ErrorType } from '../core/errors';
import { withTaskPriorities } from '../core/priority';
import { runFanout } from './patterns/fanout';
import { showCurrentDetails } from './current-details';
import { inMiddleBand, MIDDLE_BATCH_PATCH, planBatches } from './patterns/batching';
import { installBudgetHandlers } from './job/budget';
import { installModelHandler } from './job/model';
import { cancelJobSignal, jobMessages, jobStatusQuery, stopSignal } from '../contracts/messages';
import { restoreCarry } from './job/carry';
import { archiveIfRoot } from './job/archive';
import { finishScoutJob } from './job/scout';
import { buildJobResult } from './job/result-payload';
import { DEFAULT_MAX_PARALLEL, JobRuntime } from './job/runtime';
import type { JobInput } from '../contracts/job';
import type { PatternOutcome } from './patterns/outcome';
import { runPipeline } from './patterns/pipeline';
import { STATUS_KEY } from '../core/search-attributes';
import type { DelegateMetricsSinks } from '../contracts/sinks';
import { jobDetails } from './ui-details';
import { runVote } from './patterns/vote';
import { webhookDelivery, webhookWorkflowId } from './webhook-delivery';
import { a2aPushOf } from '../core/a2a';
import { traceIdOf } from '../core/trace-context';
import { setLogContext } from './log-context';

export type { JobInput } from '../contracts/job';
export * from '../contracts/messages';

/** After the deadline, children get this long to return their own `timeout` result before they are cancelled. */
const DEADLINE_GRACE_MS = 30_000;

const PATTERNS: Record<string, (rt: JobRuntime) => Promise<PatternOutcome>> = {
  fanout: runFanout,
  pipeline: runPipeline,
  vote: runVote,
};

/** Markdown shown in the Temporal UI's "current details" of the job. */
function renderDetails(rt: JobRuntime): string {
  return jobDetails(rt.spec.pattern, rt.spec.jobId, rt.records.counts(), rt.ledgerSnapshot(), rt.records.throttledMs());
}

/** Runs a delegation job to its JobResult. The function name is the workflow type: do not rename. */
export async function delegationJob(input: JobInput): Promise<JobResult> {
  // the same rules as the API's, for jobs started straight through Temporal. Loaded here, not
  // imported: every workflow run evaluates the modules it imports afresh, and zod plus the
  // schemas cost a subtask (which needs neither) several times its own work (bench/history/2026-12-05-diary.md)
  // Not for an input that says it was `checked`: the API's (it ran these rules before the start) and
  // a job's batches and nested jobs (cut by the job from the input it checked). The check (zod and
  // every schema, evaluated anew in each run) is work a batch would repeat for nothing (bench/history/2026-12-05-diary.md)
  if (!input.checked) {
    const { jobInputProblems } = await import(/* webpackMode: "eager" */ '../schemas/job-input');
    const problems = jobInputProblems(input);
    if (problems.length > 0) {
      throw ApplicationFailure.create({
        type: ErrorType.InvalidInput,
        nonRetryable: true,
        message: `invalid job input: ${problems.join('; ')}`,
      });
    }
  }
  // every line this run logs carries the job's trace id (api/trace-context.ts), traced or not
  setLogContext({ traceId: traceIdOf(input.traceparent) });
  // every task's priority, resolved once (its own, else the job's): children and their steps run at it
  const spec = withTaskPriorities(input.spec, workflowInfo().priority?.priorityKey);
  // a fan-out of 101–500 tasks is a tree since MIDDLE_BATCH_PATCH (asked only of those: no marker in other jobs)
  // a batch is never cut again: a wide fan-out's batches of 250 stay one level below their job
  // (the width it stays flat up to is the deployment's, carried in the input: a run replays with the cut it began with)
  const plan = planBatches(
    spec,
    DEFAULT_MAX_PARALLEL,
    !input.batch && inMiddleBand(spec, input.limits?.fanoutFlatMax) && patched(MIDDLE_BATCH_PATCH),
  );
  const rt = new JobRuntime(plan ? { ...input, spec: plan.spec } : spec === input.spec ? input : { ...input, spec }, plan?.batchIds);
  if (input.carry) restoreCarry(rt, input.carry);
  let done = false;
  const phase = (): JobProgress['phase'] =>
    done ? 'done' : rt.children.cancelling ? 'cancelling' : rt.children.stopping ? 'stopping' : 'running';
  if (!workflowInfo().parent)
    rt.events.emit('job.started', 'job.started', {
      pattern: input.spec.pattern,
      tasks: input.spec.tasks.length,
      ...(input.spec.labels ? { labels: input.spec.labels } : {}),
    });
  showCurrentDetails(() => renderDetails(rt));

  setHandler(stopSignal, () => rt.children.stopAll(), { description: jobMessages.stop });
  setHandler(cancelJobSignal, () => rt.children.cancelAll(), { description: jobMessages.cancelJob });
  setHandler(
    jobStatusQuery,
    () => ({
      jobId: rt.spec.jobId,
      pattern: rt.spec.pattern,
      phase: phase(),
      progress: rt.records.counts(),
      subtasks: rt.records.subtasks(),
      ledger: rt.ledgerSnapshot(),
    }),
    { description: jobMessages.status },
  );
  installBudgetHandlers(rt);
  installModelHandler(rt.input, rt.depth);

  // Temporal cancellation (API cancel, UI, parent): hard-stop every running child at once;
  // the pattern then finishes over what it has and the result keeps every finished subtask.
  CancellationScope.current().cancelRequested.catch(() => rt.children.cancelAll());
  // the maximum duration: children halt themselves at the deadline; this backstop stops the rest
  void CancellationScope.nonCancellable(() => condition(() => done, Math.max(1, rt.deadline + DEADLINE_GRACE_MS - Date.now()))).then(
    (finished) => finished || rt.children.timeoutAll(),
  );

  const run = PATTERNS[rt.spec.pattern];
  let outcome: PatternOutcome;
  try {
    if (!run) throw new Error(`pattern "${rt.spec.pattern}" is not supported`);
    outcome = await run(rt);
  } catch (err) {
    if (!isCancellation(err)) throw err;
    rt.children.cancelAll();
    await CancellationScope.nonCancellable(() => condition(() => rt.children.inFlightCount() === 0));
    outcome = { status: 'cancelled', output: null };
  }
  if (rt.children.cancelling) outcome = { ...outcome, status: 'cancelled' };
  rt.recordNotRun(rt.children.haltReason, `not started: job ${rt.children.haltReason}`);
  done = true;

  const result = buildJobResult(rt, outcome);
  if (!input.batch) {
    proxySinks<DelegateMetricsSinks>().delegateMetrics.jobFinished({
      tenant: rt.tenant,
      pattern: result.pattern,
      status: result.status,
      root: !workflowInfo().parent,
      costUsd: result.metrics.costUsd,
      savedUsd: result.metrics.savedUsd,
    });
  }
  // let a top-up in progress answer before the run closes
  await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  // every event this job emitted is written before the archive adds job.finished
  await CancellationScope.nonCancellable(() => rt.events.settled());
  // a scout's report is settled before the job's record says finished
  await finishScoutJob(input, rt.tenant, result);
  // the record first: once the status or the webhook says finished, the result outlives the workflow
  await archiveIfRoot(input.spec, rt.tenant, result);
  await CancellationScope.nonCancellable(async () => {
    upsertSearchAttributes([{ key: STATUS_KEY, value: result.status }]);
    // a reference into the record keeps the URL and token out of histories
    const { callbackUrl: url } = rt.spec;
    const target = url ? { url } : input.callbackRef && { callbackRef: input.callbackRef };
    if (target) {
      // delivery runs in its own workflow, off the result's path: wait until it has started, not delivered
      const { workflowId } = workflowInfo();
      await startChild(webhookDelivery, {
        workflowId: webhookWorkflowId(workflowId),
        args: [{ ...target, tenant: rt.tenant, jobId: rt.spec.jobId, workflowId, result, ...a2aWebhookOf(rt.spec) }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        staticSummary: `completion webhook of job ${rt.spec.jobId}`,
      }).catch((err) => log.warn('webhook delivery not started', { jobId: rt.spec.jobId, error: String(err) }));
    }
  });
  return result;
}

/** The A2A push part of the completion webhook (jobs started over A2A with a push config), spread into its input. */
function a2aWebhookOf(spec: JobInput['spec']): { a2a?: { contextId: string; token?: string } } {
  const a2a = a2aPushOf(spec);
  return a2a ? { a2a } : {};
}
