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
  CancellationScope,
  condition,
  defineQuery,
  defineSignal,
  defineUpdate,
  isCancellation,
  log,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { Budget, JobBatch, JobProgress, JobResult, Ledger, TaskResult, TaskSpec } from '../schemas';
import { remaining, topUp, grow, EPSILON } from './budget-ledger';
import { runFanout } from './fanout';
import { flattenBatches, planBatches, realTaskCount } from './batching';
import { DEFAULT_MAX_PARALLEL, JobRuntime, type JobInput } from './job-runtime';
import type { PatternOutcome } from './patterns';
import { runPipeline } from './pipeline';
import { dedupe, dedupeEvidence, sumMetrics } from './results';
import { STATUS_KEY } from './search-attributes';
import { grantSignal } from './subtask';
import { validateTopUp } from './top-up';
import { runVote } from './vote';

export type { JobInput } from './job-runtime';

/** Graceful stop: running subtasks finish their step in flight, nothing new starts. */
export const stopSignal = defineSignal<[{ reason?: string }?]>('stop');
/** Hard stop sent by a parent job to a nested job (a root job is cancelled through Temporal). */
export const cancelJobSignal = defineSignal<[{ reason?: string }?]>('cancelJob');
/** Adds to the job budget; running children the job had clipped get their share. */
export const budgetUpdate = defineUpdate<Ledger, [{ add: Budget }]>('budget');
/** Adds to one running subtask's allocation, within what the job has left. */
export const subtaskBudgetUpdate = defineUpdate<{ taskId: string; granted: Budget; ledger: Ledger }, [{ taskId: string; add: Budget }]>(
  'subtaskBudget',
);
/** Live progress, per-subtask state and the job's ledger. */
export const statusQuery = defineQuery<JobProgress>('status');

const PATTERNS: Record<string, (rt: JobRuntime) => Promise<PatternOutcome>> = {
  fanout: runFanout,
  pipeline: runPipeline,
  vote: runVote,
};

/** Markdown shown in the Temporal UI's "current details" of the job. */
function renderDetails(rt: JobRuntime): string {
  const c = rt.counts();
  const l = rt.ledgerSnapshot();
  const fmt = (a: { limit: number | null; spent: number; reserved: number }) =>
    `${+a.spent.toFixed(6)} spent, ${+a.reserved.toFixed(6)} reserved, limit ${a.limit ?? '∞'}`;
  return [
    `**${rt.spec.pattern}** job \`${rt.spec.jobId}\``,
    '',
    '| total | pending | running | done | ok | partial | failed |',
    '|---|---|---|---|---|---|---|',
    `| ${c.total} | ${c.pending} | ${c.running} | ${c.completed} | ${c.succeeded} | ${c.partial} | ${c.failed} |`,
    '',
    `cost: ${fmt(l.costUsd)} · tokens: ${fmt(l.tokens)} · tool calls: ${fmt(l.toolCalls)}`,
  ].join('\n');
}

const { sendWebhook } = proxyActivities<Activities>({
  startToCloseTimeout: '15 seconds',
  summary: 'completion webhook',
  retry: { maximumAttempts: 5, initialInterval: '1 second', backoffCoefficient: 2, nonRetryableErrorTypes: ['WebhookRejected'] },
});

/** At most this many evidence items and follow-ups in one JobResult. */
const MAX_LISTED = 2000;

/** Above this many JSON characters a result leaves its subtask results in the children (payloads cap at 2 MiB). */
const MAX_RESULT_CHARS = 1_500_000;

/** Moves a too-large result's subtask results (and a too-large output) out to references; the API stitches them. */
function spill(rt: JobRuntime, result: JobResult, byId: Map<string, TaskResult>): void {
  result.batches = rt.spec.tasks.map((t) => {
    const r = byId.get(t.id);
    const ran = rt.allocations.has(t.id);
    return {
      id: t.id,
      workflowId: rt.childId(t),
      tasks: 1,
      kind: t.job ? ('nested' as const) : ('subtask' as const),
      status: r?.status ?? 'failure',
      ...(ran ? {} : { notRun: { reason: r?.failureReason ?? 'cancelled', taskIds: [t.id] } }),
    };
  });
  result.results = [];
  if (JSON.stringify(result.output ?? null).length > MAX_RESULT_CHARS / 2) result.output = null;
}

/** Where a batch's results live, and which tasks never ran when the batch itself did not. */
function batchSummary(rt: JobRuntime, t: TaskSpec, r: TaskResult | undefined): JobBatch {
  const nested = rt.nestedResults.get(t.id);
  return {
    id: t.id,
    workflowId: rt.childId(t),
    tasks: t.job?.tasks.length ?? 0,
    kind: 'batch',
    status: nested?.status ?? 'failure',
    ...(nested ? {} : { notRun: { reason: r?.failureReason ?? 'cancelled', taskIds: (t.job?.tasks ?? []).map((x) => x.id) } }),
  };
}

/** Runs a delegation job to its JobResult. The function name is the workflow type: do not rename. */
export async function delegationJob(input: JobInput): Promise<JobResult> {
  const plan = planBatches(input.spec, DEFAULT_MAX_PARALLEL);
  const rt = new JobRuntime(plan ? { ...input, spec: plan.spec } : input);
  plan?.batchIds.forEach((id) => rt.batchIds.add(id));
  let phase: JobProgress['phase'] = 'running';
  rt.onChange = () => setCurrentDetails(renderDetails(rt));
  rt.onChange();

  setHandler(stopSignal, () => {
    phase = 'stopping';
    rt.stopAll();
  });
  setHandler(cancelJobSignal, () => {
    phase = 'cancelling';
    rt.cancelAll('cancelled');
  });
  setHandler(statusQuery, () => ({
    jobId: rt.spec.jobId,
    pattern: rt.spec.pattern,
    phase,
    progress: rt.counts(),
    subtasks: [...rt.progress.values()],
    ledger: rt.ledgerSnapshot(),
  }));
  setHandler(
    budgetUpdate,
    async ({ add }) => {
      topUp(rt.ledger, add);
      await rt.shareTopUp();
      rt.onChange?.();
      return rt.ledgerSnapshot();
    },
    { validator: ({ add }) => validateTopUp(add) },
  );
  setHandler(
    subtaskBudgetUpdate,
    async ({ taskId, add }) => {
      const r = rt.running.get(taskId)!;
      const left = remaining(rt.ledger, rt.elapsed());
      const granted: Budget = {};
      for (const axis of ['costUsd', 'tokens', 'toolCalls', 'latencySeconds'] as const) {
        const want = add[axis];
        if (want === undefined) continue;
        const give = axis === 'latencySeconds' ? want : Math.min(want, left[axis] ?? Infinity);
        if (give > EPSILON) granted[axis] = give;
      }
      grow(rt.ledger, granted);
      for (const axis of Object.keys(granted) as (keyof Budget)[]) r.allocation[axis] = (r.allocation[axis] ?? 0) + (granted[axis] ?? 0);
      await CancellationScope.nonCancellable(() => r.handle.signal(grantSignal, { add: granted }));
      return { taskId, granted, ledger: rt.ledgerSnapshot() };
    },
    {
      validator: ({ taskId, add }) => {
        validateTopUp(add);
        const r = rt.running.get(taskId);
        if (!r) throw new Error(rt.progress.has(taskId) ? `subtask "${taskId}" is not running` : `no subtask "${taskId}"`);
        if (r.nested) throw new Error(`subtask "${taskId}" is a nested job: top up its job instead`);
      },
    },
  );

  // Temporal cancellation (API cancel, UI, parent): hard-stop every running child at once;
  // the pattern then finishes over what it has and the result keeps every finished subtask.
  CancellationScope.current().cancelRequested.catch(() => {
    phase = 'cancelling';
    rt.cancelAll('cancelled');
  });

  const run = PATTERNS[rt.spec.pattern];
  let outcome: PatternOutcome;
  try {
    if (!run) throw new Error(`pattern "${rt.spec.pattern}" is not supported`);
    outcome = await run(rt);
  } catch (err) {
    if (!isCancellation(err)) throw err;
    phase = 'cancelling';
    rt.cancelAll('cancelled');
    await CancellationScope.nonCancellable(() => condition(() => rt.active === 0));
    outcome = { status: 'cancelled', output: null };
  }
  if (rt.cancelRequested && rt.haltReason === 'cancelled') outcome = { ...outcome, status: 'cancelled' };
  rt.recordNotRun(rt.haltReason, `not started: job ${rt.haltReason}`);
  phase = 'done';

  const byId = new Map(rt.completed.map((r) => [r.id, r]));
  const results = rt.spec.tasks.map((t) => byId.get(t.id)!).filter(Boolean);
  const batched = rt.batchIds.size > 0;
  // a batched job's results stay in its batches (one payload could not hold them); the API stitches them
  const all = batched ? flattenBatches(rt.spec.tasks, rt.nestedResults) : results;
  const result: JobResult = {
    jobId: rt.spec.jobId,
    pattern: rt.spec.pattern,
    status: outcome.status,
    output: outcome.output,
    results: batched ? [] : results,
    ...(batched ? { batches: rt.spec.tasks.map((t) => batchSummary(rt, t, byId.get(t.id))) } : {}),
    ...(outcome.vote ? { vote: outcome.vote } : {}),
    evidence: dedupeEvidence(all.flatMap((r) => r.evidence)).slice(0, MAX_LISTED),
    followUps: dedupe(all.flatMap((r) => r.followUps)).slice(0, MAX_LISTED),
    metrics: { ...sumMetrics(all, Date.now() - rt.started, rt.savedUsd), subtasks: realTaskCount(rt.spec.tasks, rt.batchIds) },
    budget: { ledger: rt.ledgerSnapshot(), clipped: [...rt.clipped], refused: [...rt.refused] },
  };
  if (!batched && JSON.stringify(result).length > MAX_RESULT_CHARS) spill(rt, result, byId);
  await CancellationScope.nonCancellable(async () => {
    upsertSearchAttributes([{ key: STATUS_KEY, value: result.status }]);
    rt.onChange?.();
    if (rt.spec.callbackUrl) {
      // the result is final whatever the receiver does: a failed delivery is logged, not fatal
      await sendWebhook({ url: rt.spec.callbackUrl, jobId: rt.spec.jobId, workflowId: workflowInfo().workflowId, result }).catch((err) =>
        log.warn('webhook not delivered', { jobId: rt.spec.jobId, error: String(err) }),
      );
    }
  });
  return result;
}
