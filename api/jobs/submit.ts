/**
 * Submitting a job: checks (tenant quotas, callback URL, runnable spec and the lanes' workers
 * in submit-checks.ts, the payload size here), agents resolved once, then a start that is
 * idempotent on the job id.
 *
 *   spec ──checks (400/404/413/422)──> in the record? ──> resolve agents ──workers up but none on its lanes? (503)──running-jobs quota (429)──> start
 *                                        same spec hash → 200, else 409                                 already started? same spec hash → 200, else 409
 * The record keeps a finished job's spec hash after Temporal has deleted its workflow: a
 * resubmission never starts the job again, however long ago it ran.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { createHash, randomUUID } from 'node:crypto';
import { netPolicyFromConfig } from '../../activities';
import type { JobSpec } from '../../schemas';
import { researchJobLabels } from '../../schemas/research-mapping';
import { jobInputIssues } from '../../schemas/job-input';
import type { delegationJob, JobInput } from '../../workflows/delegation-job';
import { EXECUTION_TIMEOUT_MARGIN_SECONDS } from '../../core/engine-limits';
import { LABELS_KEY, labelKeywords, PATTERN_KEY, STATUS_KEY, TENANT_KEY } from '../../core/search-attributes';
import { canonicalJson } from '../../core/vote-tally';
import { agentQueueFor, JOB_WORKFLOW } from '../../core/names';
import { tagActiveSpan } from '../../telemetry/tracing';
import { formatPath, HttpProblem } from '../errors';
import type { LaneWatch } from '../lanes';
import { createRunningJobsQuota } from '../quotas';
import { resolveAgents } from '../spec-check';
import type { JobHandles, JobServiceDeps } from './handles';
import { checkSubmission, noWorker, unservedLanes } from './submit-checks';
import { admit, type Admitted } from '../admission';
import { createForecaster } from '../forecast';
import { callerContext } from '../caller-context';
import { jobTraceparent } from '../trace-context';
import { traceIdOf } from '../../core/trace-context';
import { startingModel } from './parent-model';
import type { AdmissionDecision } from '../../schemas';
import type { KeptSpec } from '../../record/job-specs';
import { resolveDownshifts } from '../downshift';
import { recordedStepFloors } from './step-floors';

/** Outcome of a submission: the job and whether this call created it. */
export interface Submission {
  jobId: string;
  workflowId: string;
  created: boolean;
  /** What admission control decided (a job that asked for it and was started by this call). */
  admission?: AdmissionDecision;
  /** The job's W3C trace id (a job this call started): its results, events, log lines and agents' `traceparent` carry it. */
  traceId?: string;
}

/** Largest workflow input the API submits (Temporal refuses payloads over 2 MiB). */
export const MAX_INPUT_BYTES = 1_900_000;

/** The spec's identity for idempotency: equal specs (keys in any order, any job id) hash equal. */
export function specHashOf(spec: JobSpec): string {
  return createHash('sha256')
    .update(canonicalJson({ ...spec, jobId: undefined }))
    .digest('hex');
}

/** The submit operation; `lanes` says which queues have a worker. */
export function createSubmit(deps: JobServiceDeps, { workflowIdOf, handleOf, describe }: JobHandles, lanes: LaneWatch) {
  const { client, config, registry, record } = deps;
  const runningJobs = createRunningJobsQuota(client, record);
  const netPolicy = netPolicyFromConfig(config);
  const forecaster = createForecaster({ registry, record });

  /** Starts the job, or finds the one with the same id (a different spec under the same id is a 409). */
  return async function submit(
    tenant: string,
    submitted: JobSpec,
    idempotencyKey?: string,
    extra: Pick<JobInput, 'scout' | 'routes'> & { replay?: KeptSpec['replay'] } = {},
  ): Promise<Submission> {
    // research-contract tasks make the job findable by its contract and parent_id; the job's own labels win
    const contractLabels = researchJobLabels(submitted.tasks);
    const spec = Object.keys(contractLabels).length > 0 ? { ...submitted, labels: { ...contractLabels, ...submitted.labels } } : submitted;
    const policy = await checkSubmission(deps, netPolicy, tenant, spec, idempotencyKey);
    const jobId = spec.jobId ?? idempotencyKey ?? randomUUID();
    const workflowId = workflowIdOf(tenant, jobId);
    tagActiveSpan({ 'delegate.job_id': jobId, 'delegate.tenant': tenant });
    const specHash = specHashOf(spec);
    const sameOrConflict = (existingHash: unknown): Submission => {
      if (existingHash !== specHash) throw new HttpProblem(409, 'Conflict', `job "${jobId}" already exists with a different spec`);
      return { jobId, workflowId, created: false };
    };
    const archived = await record.specHashOf(tenant, jobId);
    if (archived) return sameOrConflict(archived.specHash);
    // admission control: refused (422), warned, or re-planned before anything starts; a
    // resubmission of a job that exists is answered below whatever today's forecast says
    const admitted: Admitted = await admit(forecaster, registry, tenant, spec).catch(async (err: unknown) => {
      if (
        err instanceof HttpProblem &&
        (await handleOf(tenant, jobId)
          .describe()
          .then(
            () => true,
            () => false,
          ))
      )
        return { spec };
      throw err;
    });
    // agents are found once, here: each subtask gets its manifest and spends no activity on it
    const resolved = resolveAgents(admitted.spec, registry);
    // ladders too, with each agent's measured quality and cost: the workflow decides from its input alone
    const ladders = await resolveDownshifts(resolved.spec, registry, record.stats, tenant);
    // each agent's step as the record measured it: a fair grant's floor before the job measures its own
    const floors = await recordedStepFloors(resolved.spec, resolved.agents, record.stats, tenant);
    // why the API chose each agent a task did not name: its result's routing.reason
    const routes = { ...resolved.routes, ...extra.routes };
    // the webhook's URL and token stay out of the input, which every history of the job keeps: the record holds them
    const { callbackUrl, callbackToken, ...runSpec } = resolved.spec;
    // the caller's trace (or a new one) and its parent session's latest model (caller-context.ts)
    const caller = callerContext();
    const traceparent = jobTraceparent(caller?.traceparent);
    const traceId = traceIdOf(traceparent)!;
    const session = caller?.parent?.session;
    const model = session ? await startingModel(record, tenant, session, runSpec) : undefined;
    const input: JobInput = {
      spec: { ...runSpec, jobId },
      agents: resolved.agents,
      ...(Object.keys(routes).length > 0 ? { routes } : {}),
      ...ladders,
      ...floors,
      tenant,
      depth: 0,
      maxDepth: config.DELEGATE_MAX_DEPTH,
      agentQueue: agentQueueFor(config.DELEGATE_TASK_QUEUE, tenant),
      limits: {
        maxDurationSeconds: config.DELEGATE_JOB_MAX_SECONDS,
        stepCeilingSeconds: config.DELEGATE_STEP_CEILING_SECONDS,
        stepScheduleToStartSeconds: config.DELEGATE_STEP_SCHEDULE_TIMEOUT_SECONDS,
        fanoutFlatMax: config.DELEGATE_FANOUT_FLAT_MAX,
      },
      ...(extra.scout ? { scout: extra.scout } : {}),
      ...(model ? { model } : {}),
      traceparent,
      // checked below by the workflow's own rules: the run need not load them again
      checked: true,
    };
    // the spec passed the request's schema; the input built from it must pass the workflow's rules too:
    // the spec's problems are the client's (400), the rest (tenant, lane, limits) the deployment's (500)
    const issues = jobInputIssues(input);
    const ours = issues.filter((i) => i.path[0] !== 'spec');
    if (ours.length > 0)
      throw new Error(
        `the job input the API built breaks the workflow's rules: ${ours.map((i) => `${formatPath(i.path)}: ${i.message}`).join('; ')}`,
      );
    if (issues.length > 0)
      throw new HttpProblem(
        400,
        'Invalid request',
        'the job does not meet the job workflow rules',
        issues.map((i) => ({ path: formatPath(i.path.slice(1), 'body'), message: i.message })),
      );
    const bytes = Buffer.byteLength(JSON.stringify(input));
    if (bytes > MAX_INPUT_BYTES) {
      throw new HttpProblem(
        413,
        'Job too large',
        `the job is ${bytes} bytes as a workflow input; Temporal takes at most ${MAX_INPUT_BYTES} (2 MiB payloads): move bulky context out of the spec`,
      );
    }
    const exists = () =>
      handleOf(tenant, jobId)
        .describe()
        .then(
          () => true,
          () => false,
        );
    // a job nobody would run is refused, not left waiting; a resubmission of one that exists is answered below
    const missing = await unservedLanes(lanes, config.DELEGATE_TASK_QUEUE, tenant, resolved.agents);
    if (missing.length > 0 && !(await exists())) throw noWorker(tenant, missing);
    const place = await runningJobs.reserve(tenant, policy.quotas).catch(async (err: unknown) => {
      // a resubmission of a job that exists is answered below whatever the quota says
      if (await exists()) return undefined;
      throw err;
    });
    let callbackRef: string | undefined;
    try {
      if (callbackUrl) {
        const format = runSpec.callbackFormat ?? 'delegate';
        callbackRef = await record.callbacks.put({
          tenant,
          jobId,
          url: callbackUrl,
          format,
          ...(callbackToken ? { token: callbackToken } : {}),
        });
      }
      await client.workflow.start<typeof delegationJob>(JOB_WORKFLOW, {
        workflowId,
        taskQueue: config.DELEGATE_TASK_QUEUE,
        args: [callbackRef ? { ...input, callbackRef } : input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        // a backstop only: the job itself halts at its maximum duration and returns what it has
        workflowExecutionTimeout: `${config.DELEGATE_JOB_MAX_SECONDS + EXECUTION_TIMEOUT_MARGIN_SECONDS} seconds`,
        staticSummary: `${spec.pattern} job of ${spec.tasks.length} task(s)${spec.objective ? `: ${spec.objective.slice(0, 120)}` : ''}`,
        staticDetails: jobStaticDetails(tenant, spec),
        memo: { specHash, jobId },
        // the job's own workflow tasks too: an urgent job's children start before a bulk job's. The tenant
        // is the fairness key, with its weight: the job's children and steps inherit both, so tenants
        // share the workflow queue and a provider's queue by weight (docs/guides/llm-agents.md)
        priority: {
          ...(spec.priority !== undefined ? { priorityKey: spec.priority } : {}),
          fairnessKey: tenant,
          fairnessWeight: policy.quotas.fairnessWeight,
        },
        typedSearchAttributes: [
          { key: PATTERN_KEY, value: spec.pattern },
          { key: STATUS_KEY, value: 'running' },
          { key: TENANT_KEY, value: tenant },
          ...(spec.labels ? [{ key: LABELS_KEY, value: labelKeywords(spec.labels) }] : []),
        ],
      });
      place?.release(workflowId);
      // before the answer: the job's events carry its trace id, and a model switch in its session reaches it
      await record.sessions.origin({ tenant, jobId, traceId, ...(session ? { parentSession: session } : {}) });
      // the spec as submitted, for a replay after Temporal's retention (its webhook's URL and token left out)
      await record.specs.put({ tenant, jobId, spec: { ...spec, jobId }, ...(extra.replay ? { replay: extra.replay } : {}) });
      if (admitted.decision) await recordAdmission(record, tenant, jobId, admitted);
      return { jobId, workflowId, created: true, traceId, ...(admitted.decision ? { admission: admitted.decision } : {}) };
    } catch (err) {
      place?.release();
      // no job refers to it: the job that exists has its own
      if (callbackRef) await record.callbacks.drop(callbackRef).catch(() => undefined);
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      // deleted by retention since the start was refused: its record answers
      const existing = await describe(tenant, jobId).catch(async (e: unknown) => {
        const late = await record.specHashOf(tenant, jobId);
        if (late) return { memo: { specHash: late.specHash } };
        throw e;
      });
      return sameOrConflict(existing.memo?.specHash);
    }
  };
}

/** The job page's "Details" in the Temporal UI: who submitted it, its labels, budget and tasks. */
function jobStaticDetails(tenant: string, spec: JobSpec): string {
  const budget =
    Object.entries(spec.budget ?? {})
      .map(([axis, v]) => `${axis} ${v}`)
      .join(', ') || 'none';
  const labels =
    Object.entries(spec.labels ?? {})
      .map(([k, v]) => `\`${k}=${v}\``)
      .join(' ') || 'none';
  return [
    `tenant \`${tenant}\` · labels ${labels} · budget ${budget}`,
    '',
    ...spec.tasks.slice(0, 20).map((t) => `- ${t.id}: ${t.question.replace(/\s+/g, ' ').slice(0, 100)}`),
    ...(spec.tasks.length > 20 ? [`- … and ${spec.tasks.length - 20} more`] : []),
  ].join('\n');
}

/** The admission decision and the forecast it rests on (the job level and its first tasks), as the job's `job.admission` event. */
async function recordAdmission(record: JobServiceDeps['record'], tenant: string, jobId: string, a: Admitted): Promise<void> {
  const f = a.forecast;
  const job = f ? { ...f.job, children: f.job.children?.slice(0, 100) } : undefined;
  await record.events.append(tenant, jobId, [
    {
      key: 'job.admission',
      type: 'job.admission',
      data: { ...a.decision, ...(f ? { forecast: { ...f, job } } : {}) },
    },
  ]);
}
