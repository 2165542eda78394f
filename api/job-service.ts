/** The Temporal side of the API: submitting jobs and reading their state, with no HTTP in it. */
import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { createHash, randomUUID } from 'node:crypto';
import { checkCallbackUrl, netPolicyFromConfig, type AgentRegistry } from '../activities';
import { countSubtasks, type Budget, type Config, type JobProgress, type JobResult, type JobSpec, type JobView, type Ledger, type SubtaskProgress, type TaskResult } from '../schemas';
import { delegationJob, type JobInput } from '../workflows/delegation-job';
import type { subtask } from '../workflows/subtask';
import { budgetUpdate, jobStatusQuery, stopSignal, subtaskBudgetUpdate, subtaskStatusQuery } from '../workflows/messages';
import { jobAsTaskResult, notRunResult } from '../workflows/results';
import { EXECUTION_TIMEOUT_MARGIN_SECONDS } from '../workflows/engine-limits';
import { LABELS_KEY, labelKeywords, PATTERN_KEY, STATUS_KEY, TENANT_KEY } from '../workflows/search-attributes';
import { agentQueueFor, type TenantDirectory } from '../workers/tenants';
import { HttpProblem } from './errors';
import { createRunningJobsQuota } from './quotas';
import { checkRunnable, resolveAgents } from './spec-check';

/** What the job service needs. */
export interface JobServiceDeps {
  client: Client;
  config: Config;
  registry: AgentRegistry;
  tenants: TenantDirectory;
}

/** Outcome of a submission: the job and whether this call created it. */
export interface Submission {
  jobId: string;
  workflowId: string;
  created: boolean;
}

const STATE: Record<string, JobView['state']> = {
  RUNNING: 'running', COMPLETED: 'completed', FAILED: 'failed', CANCELLED: 'cancelled',
  TERMINATED: 'terminated', TIMED_OUT: 'timed_out', CONTINUED_AS_NEW: 'continued_as_new',
};

/** Largest workflow input the API submits (Temporal refuses payloads over 2 MiB). */
export const MAX_INPUT_BYTES = 1_900_000;

/** Canonical JSON: object keys sorted, so equal specs hash equal. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v as object).sort().filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** Creates the job service. */
export function createJobService({ client, config, registry, tenants }: JobServiceDeps) {
  const runningJobs = createRunningJobsQuota(client);
  const netPolicy = netPolicyFromConfig(config);
  const workflowIdOf = (tenant: string, jobId: string) => `job/${tenant}/${jobId}`;
  const handleOf = (tenant: string, jobId: string): WorkflowHandle<typeof delegationJob> => client.workflow.getHandle<typeof delegationJob>(workflowIdOf(tenant, jobId));
  const uiLink = (workflowId: string) =>
    `${config.TEMPORAL_UI_URL}/namespaces/${encodeURIComponent(config.TEMPORAL_NAMESPACE)}/workflows/${encodeURIComponent(workflowId)}`;

  async function describe(tenant: string, jobId: string) {
    try {
      return await handleOf(tenant, jobId).describe();
    } catch (err) {
      if ((err as Error).name === 'WorkflowNotFoundError') throw new HttpProblem(404, 'Not found', `no job "${jobId}"`);
      throw err;
    }
  }

  async function requireRunning(tenant: string, jobId: string): Promise<WorkflowHandle<typeof delegationJob>> {
    const d = await describe(tenant, jobId);
    if (d.status.name !== 'RUNNING') throw new HttpProblem(409, 'Conflict', `job "${jobId}" has already finished (${STATE[d.status.name] ?? d.status.name})`);
    return handleOf(tenant, jobId);
  }

  return {
    workflowIdOf,
    uiLink,

    /** Starts the job, or finds the one with the same id (a different spec under the same id is a 409). */
    async submit(tenant: string, spec: JobSpec, idempotencyKey?: string): Promise<Submission> {
      if (spec.jobId && idempotencyKey && spec.jobId !== idempotencyKey) {
        throw new HttpProblem(400, 'Invalid request', 'jobId and the Idempotency-Key header differ', [
          { path: 'body.jobId', message: `differs from Idempotency-Key "${idempotencyKey}"` },
        ]);
      }
      const policy = tenants.get(tenant);
      if (!policy) throw new HttpProblem(404, 'Not found', 'unknown tenant');
      const subtasks = countSubtasks(spec);
      if (subtasks > policy.quotas.tasksPerJob) {
        throw new HttpProblem(422, 'Job cannot run', 'the job has more subtasks than the tenant may submit at once', [
          { path: 'body.tasks', message: `${subtasks} subtasks across every level of nesting; this tenant's quota is ${policy.quotas.tasksPerJob}` },
        ]);
      }
      const callbackProblem = spec.callbackUrl ? checkCallbackUrl(spec.callbackUrl, netPolicy) : undefined;
      if (callbackProblem) throw new HttpProblem(422, 'Job cannot run', 'the callbackUrl is not allowed', [{ path: 'body.callbackUrl', message: callbackProblem }]);
      const problems = checkRunnable(spec, registry, config.DELEGATE_MAX_DEPTH, config.DELEGATE_STEP_CEILING_SECONDS);
      if (problems.length > 0) throw new HttpProblem(422, 'Job cannot run', `${problems.length} problem(s) in the job`, problems.map((p) => ({ ...p, path: `body.${p.path}` })));
      const jobId = spec.jobId ?? idempotencyKey ?? randomUUID();
      const workflowId = workflowIdOf(tenant, jobId);
      const specHash = createHash('sha256').update(canonicalJson({ ...spec, jobId: undefined })).digest('hex');
      // agents are found once, here: each subtask gets its manifest and spends no activity on it
      const resolved = resolveAgents(spec, registry);
      const input: JobInput = {
        spec: { ...resolved.spec, jobId },
        agents: resolved.agents,
        tenant,
        depth: 0,
        maxDepth: config.DELEGATE_MAX_DEPTH,
        agentQueue: agentQueueFor(config.DELEGATE_TASK_QUEUE, tenant),
        limits: { maxDurationSeconds: config.DELEGATE_JOB_MAX_SECONDS, stepCeilingSeconds: config.DELEGATE_STEP_CEILING_SECONDS },
      };
      const bytes = Buffer.byteLength(JSON.stringify(input));
      if (bytes > MAX_INPUT_BYTES) {
        throw new HttpProblem(413, 'Job too large', `the job is ${bytes} bytes as a workflow input; Temporal takes at most ${MAX_INPUT_BYTES} (2 MiB payloads): move bulky context out of the spec`);
      }
      const place = await runningJobs.reserve(tenant, policy.quotas).catch(async (err: unknown) => {
        // a resubmission of a job that exists is answered below whatever the quota says
        if (await handleOf(tenant, jobId).describe().then(() => true, () => false)) return undefined;
        throw err;
      });
      try {
        await client.workflow.start(delegationJob, {
          workflowId,
          taskQueue: config.DELEGATE_TASK_QUEUE,
          args: [input],
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          // a backstop only: the job itself halts at its maximum duration and returns what it has
          workflowExecutionTimeout: `${config.DELEGATE_JOB_MAX_SECONDS + EXECUTION_TIMEOUT_MARGIN_SECONDS} seconds`,
          staticSummary: `${spec.pattern} job of ${spec.tasks.length} task(s)${spec.objective ? `: ${spec.objective.slice(0, 120)}` : ''}`,
          memo: { specHash, jobId },
          typedSearchAttributes: [
            { key: PATTERN_KEY, value: spec.pattern },
            { key: STATUS_KEY, value: 'running' },
            { key: TENANT_KEY, value: tenant },
            ...(spec.labels ? [{ key: LABELS_KEY, value: labelKeywords(spec.labels) }] : []),
          ],
        });
        place?.release(workflowId);
        return { jobId, workflowId, created: true };
      } catch (err) {
        place?.release();
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        const existing = await describe(tenant, jobId);
        if (existing.memo?.specHash !== specHash) {
          throw new HttpProblem(409, 'Conflict', `job "${jobId}" already exists with a different spec`);
        }
        return { jobId, workflowId, created: false };
      }
    },

    /** The job's state, progress, ledger, and result when done. */
    async view(tenant: string, jobId: string, links: JobView['links']): Promise<JobView> {
      const d = await describe(tenant, jobId);
      const state = STATE[d.status.name] ?? 'running';
      const base: JobView = {
        jobId,
        workflowId: d.workflowId,
        state,
        startedAt: d.startTime.toISOString(),
        ...(d.closeTime ? { closedAt: d.closeTime.toISOString() } : {}),
        links,
      };
      const handle = handleOf(tenant, jobId);
      if (state === 'running') {
        const p = await handle.query(jobStatusQuery).catch(() => undefined);
        if (!p) return base;
        return { ...base, pattern: p.pattern, ...(await liveDetail(p)), ledger: p.ledger };
      }
      if (state !== 'completed') return base;
      const result = await expandBatches(await handle.result());
      // in a batched job, subtask i lives under the batch that held it
      const parents = (result.batches ?? []).filter((b) => b.kind === 'batch').flatMap((b) => Array<string>(b.tasks).fill(b.workflowId));
      const subtasks: SubtaskProgress[] = result.results.map((r, i) => ({
        id: r.id, state: 'completed', workflowId: `${parents[i] ?? d.workflowId}/${r.id}`, agentId: r.agentId,
        status: r.status, failureReason: r.failureReason, metrics: r.metrics,
      }));
      const progress = {
        total: result.results.length, pending: 0, running: 0, completed: result.results.length,
        succeeded: result.results.filter((r) => r.status === 'success').length,
        partial: result.results.filter((r) => r.status === 'partial').length,
        failed: result.results.filter((r) => r.status === 'failure').length,
      };
      return { ...base, status: result.status, pattern: result.pattern, progress, subtasks, result };
    },

    /** The result, waiting up to `waitSeconds` for it; undefined while the job still runs. */
    async result(tenant: string, jobId: string, waitSeconds: number): Promise<JobResult | undefined> {
      const d = await describe(tenant, jobId);
      const state = STATE[d.status.name] ?? 'running';
      if (state !== 'running' && state !== 'completed') {
        throw new HttpProblem(409, 'Conflict', `job "${jobId}" ended without a result (${state})`);
      }
      const handle = handleOf(tenant, jobId);
      if (state === 'completed') return expandBatches(await handle.result());
      if (waitSeconds <= 0) return undefined;
      try {
        const r = await client.connection.withDeadline(Date.now() + waitSeconds * 1000, () => handle.result());
        return await expandBatches(r);
      } catch (err) {
        // the deadline surfaces in several shapes (DEADLINE_EXCEEDED, a cancelled call, a wrapped
        // ServiceError): what matters is whether the job is still running
        const now = await describe(tenant, jobId);
        if (now.status.name === 'RUNNING') return undefined;
        if (now.status.name === 'COMPLETED') return expandBatches(await handle.result());
        throw err;
      }
    },

    /** Graceful stop. */
    async stop(tenant: string, jobId: string): Promise<void> {
      await (await requireRunning(tenant, jobId)).signal(stopSignal, { reason: 'api' });
    },

    /** Hard cancel. */
    async cancel(tenant: string, jobId: string): Promise<void> {
      await (await requireRunning(tenant, jobId)).cancel();
    },

    /** Job budget top-up; returns the new ledger. */
    async topUp(tenant: string, jobId: string, add: Budget): Promise<Ledger> {
      const handle = await requireRunning(tenant, jobId);
      return handle.executeUpdate(budgetUpdate, { args: [{ add }] });
    },

    /** One running subtask's top-up, within what its job has left. */
    async topUpSubtask(tenant: string, jobId: string, taskId: string, add: Budget) {
      const handle = await requireRunning(tenant, jobId);
      // the job knows its batches, not the state of each task inside them: ask the running batches
      const root = await handle.query(jobStatusQuery).catch(() => undefined);
      if (root && !root.subtasks.some((s) => s.id === taskId && !s.batch)) {
        for (const b of root.subtasks.filter((s) => s.batch && s.state === 'running')) {
          const inner = await client.workflow.getHandle(b.workflowId).query(jobStatusQuery).catch(() => undefined);
          const found = inner?.subtasks.find((s) => s.id === taskId);
          if (found && found.state !== 'running') throw new HttpProblem(409, 'Conflict', `subtask "${taskId}" is not running (${found.state})`);
        }
      }
      return handle.executeUpdate(subtaskBudgetUpdate, { args: [{ taskId, add }] });
    },

    /** Jobs of a tenant, newest first, filtered by pattern, status and labels. */
    async list(tenant: string, filter: { pattern?: string; status?: string; label?: string[]; limit: number }) {
      const q = [`DelegateTenant = ${JSON.stringify(tenant)}`];
      if (filter.pattern) q.push(`DelegatePattern = ${JSON.stringify(filter.pattern)}`);
      if (filter.status) q.push(`DelegateStatus = ${JSON.stringify(filter.status)}`);
      for (const l of filter.label ?? []) q.push(`DelegateLabels = ${JSON.stringify(l)}`);
      const jobs = [];
      for await (const wf of client.workflow.list({ query: q.join(' AND ') })) {
        // nested jobs and batches share the tenant; only root jobs (`job/<tenant>/<jobId>`) are listed
        if (wf.type !== delegationJob.name || wf.workflowId.split('/').length !== 3) continue;
        jobs.push({
          jobId: String(wf.memo?.jobId ?? wf.workflowId.split('/').slice(2).join('/')),
          workflowId: wf.workflowId,
          state: STATE[wf.status.name] ?? 'running',
          status: wf.typedSearchAttributes.get(STATUS_KEY),
          pattern: wf.typedSearchAttributes.get(PATTERN_KEY),
          startedAt: wf.startTime.toISOString(),
        });
        if (jobs.length >= filter.limit) break;
      }
      return jobs;
    },
  };

  /**
   * A wide fan-out keeps its subtask results in its batch workflows (one payload could not
   * hold them): fetch them back, in task order, and rebuild a merged output.
   */
  async function expandBatches(r: JobResult): Promise<JobResult> {
    if (!r.batches?.length) return r;
    const parts: TaskResult[][] = [];
    const outputs: unknown[] = [];
    for (let i = 0; i < r.batches.length; i += 8) {
      const slice = r.batches.slice(i, i + 8);
      const fetched = await Promise.all(
        slice.map(async (b): Promise<{ results: TaskResult[]; output: unknown }> => {
          if (b.notRun) {
            const { reason, taskIds } = b.notRun;
            return { results: taskIds.map((id) => notRunResult({ id, question: '' }, reason, `not started: ${reason}`)), output: null };
          }
          if (b.kind === 'subtask') return { results: [await client.workflow.getHandle<typeof subtask>(b.workflowId).result()], output: null };
          const job = await expandBatches(await client.workflow.getHandle<typeof delegationJob>(b.workflowId).result());
          if (b.kind === 'nested') return { results: [jobAsTaskResult({ id: b.id, question: '', job: { pattern: job.pattern, tasks: [] } } as never, job)], output: null };
          return { results: job.results, output: job.output };
        }),
      );
      for (const f of fetched) {
        parts.push(f.results);
        outputs.push(f.output);
      }
    }
    const results = parts.flat();
    let output = r.output;
    const ref = r.outputRef;
    if (ref && 'taskId' in ref) output = results.find((x) => x.id === ref.taskId)?.data ?? null;
    else if (ref?.merge) {
      // a batch's own output is its merged map (rebuilt the same way when it was dropped there too)
      output = r.batches.every((b) => b.kind === 'batch')
        ? Object.assign({}, ...outputs.filter((o) => o !== null && typeof o === 'object'))
        : Object.fromEntries(results.filter((x) => x.status !== 'failure' && x.data !== undefined).map((x) => [x.id, x.data]));
    }
    return { ...r, results, output };
  }

  /**
   * Live detail from the running children, one status query each (the first 100): every
   * subtask's own ledger, and a running batch's counts in place of "all of it running".
   */
  async function liveDetail(p: JobProgress): Promise<Pick<JobView, 'progress' | 'subtasks'>> {
    const running = p.subtasks.filter((s) => s.state === 'running').slice(0, 100);
    const answers = await Promise.all(
      // a batch or a nested job answers its JobProgress, a subtask its SubtaskStatus: both carry a ledger
      running.map((s): Promise<{ ledger: Ledger; progress?: JobProgress['progress'] } | undefined> => {
        const handle = client.workflow.getHandle(s.workflowId);
        return (s.batch || s.agentId?.startsWith('job:') ? handle.query(jobStatusQuery) : handle.query(subtaskStatusQuery)).catch(() => undefined);
      }),
    );
    const live = new Map(running.map((s, i) => [s.id, answers[i]]));
    const progress = { ...p.progress };
    for (const s of running) {
      const b = s.batch ? live.get(s.id)?.progress : undefined;
      if (!b) continue;
      progress.running -= b.total;
      for (const k of ['pending', 'running', 'completed', 'succeeded', 'partial', 'failed'] as const) progress[k] += b[k];
    }
    const subtasks = p.subtasks.map((s) => {
      const ledger = live.get(s.id)?.ledger;
      return ledger ? { ...s, ledger } : s;
    });
    return { progress, subtasks };
  }
}

/** The job service's interface. */
export type JobService = ReturnType<typeof createJobService>;
