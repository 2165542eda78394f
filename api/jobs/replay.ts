/**
 * Replaying a finished job against another agent or model, and comparing the two runs.
 *
 *   POST replay ──source finished? (404 unknown, 409 running)──> its spec: the record's (job_specs),
 *               else the workflow's input while Temporal keeps it (a job started straight through Temporal), else 409
 *               ──filter tasks (422 unknown id)──> overrides (agent on every agent task, model on the job)
 *               ──label replayOf=<source>, id <source>-replay-<n>──> submit (the usual checks, idempotent on the id)
 *   GET comparison ──replay's kept spec names its source (404 otherwise)──> both results
 *                  ──a judge configured? the grading job's result (replay-grade.ts)──> per subtask and totals
 */
import { defaultPayloadConverter } from '@temporalio/common';
import { JobSpecSchema, type JobResult, type JobSpec, type TaskSpec } from '../../schemas';
import type { JobComparison, ReplayRequest } from '../../schemas/replay';
import { HttpProblem, formatPath } from '../errors';
import type { JobHandles, JobServiceDeps } from './handles';
import type { createReads } from './read';
import type { createSubmit, Submission } from './submit';
import { compareRuns } from './replay-compare';
import { gradingSpec, scoresOf } from './replay-grade';

/** Tries a generated replay id gets when a concurrent replay took the one before. */
const ID_TRIES = 3;

/** What POST replay answers: the new job, and the job it replays. */
export type ReplaySubmission = Submission & { replayOf: string };

/** Every agent task of the tree on `agent` (its fallbacks dropped: the replay is about that agent); role tasks keep their role's. */
function onAgent(tasks: TaskSpec[], agent: string): TaskSpec[] {
  return tasks.map((t) => {
    if (t.job) return { ...t, job: { ...t.job, tasks: onAgent(t.job.tasks, agent) } };
    if (t.role !== undefined) return t;
    const { fallback: _f, ...rest } = t;
    return { ...rest, agent };
  });
}

/** The replay's spec: the source's tasks (filtered), the overrides, the label; quorums cut to the tasks left. */
export function replaySpecOf(source: JobSpec, sourceId: string, replayId: string, req: ReplayRequest): JobSpec {
  const keep = req.tasks ? new Set(req.tasks) : undefined;
  const picked = keep ? source.tasks.filter((t) => keep.has(t.id)) : source.tasks;
  const tasks = req.agent ? onAgent(picked, req.agent) : picked;
  const { jobId: _j, callbackUrl: _u, callbackToken: _t, callbackFormat: _f, aggregation, ...rest } = source;
  const cut = (n: number | undefined) => (n === undefined ? undefined : Math.min(n, tasks.length));
  return {
    ...rest,
    jobId: replayId,
    tasks,
    ...(aggregation
      ? {
          aggregation: {
            ...aggregation,
            ...(aggregation.quorum ? { quorum: cut(aggregation.quorum) } : {}),
            ...(aggregation.minSuccess ? { minSuccess: cut(aggregation.minSuccess) } : {}),
          },
        }
      : {}),
    ...(req.model ? { model: req.model } : {}),
    labels: { ...source.labels, replayOf: sourceId },
  };
}

/** The replay operations over the job service's parts. */
export function createReplay(
  { record, registry, config }: JobServiceDeps,
  { handleOf, requireJob }: JobHandles,
  submit: ReturnType<typeof createSubmit>,
  reads: ReturnType<typeof createReads>,
) {
  /** The finished job's result; 409 while it runs (404 when there is no such job). */
  async function finished(tenant: string, jobId: string): Promise<JobResult> {
    const result = await reads.result(tenant, jobId, 0);
    if (!result) throw new HttpProblem(409, 'Conflict', `job "${jobId}" is still running: replay it once it has finished`);
    return result;
  }

  /** The spec the job ran with: the record's, else its workflow's input while Temporal still has it. */
  async function sourceSpec(tenant: string, jobId: string): Promise<JobSpec> {
    const kept = await record.specs.get(tenant, jobId);
    if (kept) return kept.spec;
    const history = await handleOf(tenant, jobId)
      .fetchHistory()
      .catch(() => undefined);
    const payload = history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    const input = payload ? (defaultPayloadConverter.fromPayload(payload) as { spec?: JobSpec } | undefined) : undefined;
    if (input?.spec) return input.spec;
    throw new HttpProblem(
      409,
      'Conflict',
      `the record keeps no spec of job "${jobId}" (it was started straight through Temporal, or before Delegate kept specs) and Temporal's retention has deleted its input: submit its spec again instead`,
    );
  }

  /** Starts the replay; 422 names an unknown task or agent. */
  async function replay(tenant: string, sourceId: string, req: ReplayRequest): Promise<ReplaySubmission> {
    await finished(tenant, sourceId);
    const source = await sourceSpec(tenant, sourceId);
    const ids = new Set(source.tasks.map((t) => t.id));
    const problems = [
      ...(req.tasks ?? []).flatMap((id, i) =>
        ids.has(id)
          ? []
          : [{ path: `body.tasks[${i}]`, message: `job "${sourceId}" has no task "${id}" (it has ${[...ids].slice(0, 20).join(', ')})` }],
      ),
      ...(req.agent && !registry.get(req.agent) ? [{ path: 'body.agent', message: `no agent "${req.agent}" is registered` }] : []),
    ];
    if (problems.length) throw new HttpProblem(422, 'Replay cannot run', `${problems.length} problem(s) in the replay`, problems);
    for (let n = (await record.specs.replayCount(tenant, sourceId)) + 1, tries = 0; ; n++, tries++) {
      const replayId = req.jobId ?? `${sourceId}-replay-${n}`;
      if (replayId.length > 128)
        throw new HttpProblem(422, 'Replay cannot run', 'the generated replay id is longer than 128 characters', [
          { path: 'body.jobId', message: 'give the replay an id of its own' },
        ]);
      const parsed = JobSpecSchema.safeParse(replaySpecOf(source, sourceId, replayId, req));
      if (!parsed.success)
        throw new HttpProblem(
          422,
          'Replay cannot run',
          'the replayed spec does not meet the job rules',
          parsed.error.issues.map((i) => ({ path: formatPath(i.path as (string | number)[], 'replay'), message: i.message })),
        );
      try {
        const overrides = { ...(req.agent ? { agent: req.agent } : {}), ...(req.model ? { model: req.model } : {}) };
        return { ...(await submit(tenant, parsed.data, undefined, { replay: { of: sourceId, overrides } })), replayOf: sourceId };
      } catch (err) {
        // a concurrent replay took the generated id with other overrides: count on
        const taken = err instanceof HttpProblem && err.status === 409 && req.jobId === undefined && tries + 1 < ID_TRIES;
        if (!taken) throw err;
      }
    }
  }

  /** The comparison of a finished replay with its source; undefined while the replay runs after `waitSeconds`. */
  async function comparison(tenant: string, replayId: string, waitSeconds: number): Promise<JobComparison | undefined> {
    const kept = await record.specs.get(tenant, replayId);
    if (!kept?.replay) {
      await requireJob(tenant, replayId);
      throw new HttpProblem(404, 'Not found', `job "${replayId}" is not a replay: POST /v1/jobs/{jobId}/replay makes one`);
    }
    const deadline = Date.now() + waitSeconds * 1000;
    const replayed = await reads.result(tenant, replayId, waitSeconds);
    if (!replayed) return undefined;
    const source = await finished(tenant, kept.replay.of);
    const compared = { replayId, sourceId: kept.replay.of, overrides: kept.replay.overrides, source, replay: replayed, spec: kept.spec };
    const judge = config.DELEGATE_JUDGE_AGENT;
    const spec = judge && registry.get(judge) ? gradingSpec(replayId, judge, kept.spec, source, replayed) : undefined;
    if (!judge || !spec) return compareRuns(compared);
    // a grading job that ended without a result (terminated) scores nothing: the comparison goes without
    const grading = await graded(tenant, spec, Math.max(0, (deadline - Date.now()) / 1000)).catch((err: unknown) => {
      if (err instanceof HttpProblem && err.status === 409) return null;
      throw err;
    });
    if (grading === undefined) return undefined;
    return compareRuns({ ...compared, graded: { jobId: spec.jobId!, judge, scores: grading ? scoresOf(grading) : new Map() } });
  }

  /** The grading job's result, started by the first comparison that needs it (the same spec again is the same job); undefined while it runs. */
  async function graded(tenant: string, spec: JobSpec, waitSeconds: number): Promise<JobResult | undefined> {
    const jobId = spec.jobId!;
    const done = await record.get(tenant, jobId);
    if (done) return done.result;
    // started by an earlier poll (its spec is kept): wait for it, without going through submission's checks again
    if (!(await record.specs.get(tenant, jobId))) await submit(tenant, spec);
    return reads.result(tenant, jobId, waitSeconds);
  }

  return { replay, comparison };
}
