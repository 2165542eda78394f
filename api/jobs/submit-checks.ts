/**
 * The refusals of a job before anything of it starts: the spec's (tenant quota, callback URL,
 * runnable agents and output schemas: 400/404/422), shared with the estimate so that a spec it
 * forecasts is one submit would take, and the deployment's (503 when the workers are up but
 * none serves the job's queues), so that a job nobody would run is refused, not left waiting.
 *
 *   spec ──checkSubmission──> policy        agents ──stepQueuesOf──> queues ──unservedLanes──> missing ──noWorker──> 503
 */
import { checkCallbackUrl, netPolicyFromConfig } from '../../activities';
import { countSubtasks, type AgentManifest, type JobSpec } from '../../schemas';
import { agentQueueFor, providerQueueFor } from '../../core/names';
import { declaredPools } from '../../config/pools';
import { HttpProblem } from '../errors';
import { laneQueues, type LaneWatch, type QueueRef } from '../lanes';
import { checkOutputSchemas, checkRunnable } from '../spec-check';
import type { JobServiceDeps } from './handles';

/** Refuses a spec this tenant may not run, with the field paths at fault (its outputSchemas compile off the event loop). */
export async function checkSubmission(
  { config, registry, tenants }: JobServiceDeps,
  netPolicy: ReturnType<typeof netPolicyFromConfig>,
  tenant: string,
  spec: JobSpec,
  idempotencyKey?: string,
) {
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
      {
        path: 'body.tasks',
        message: `${subtasks} subtasks across every level of nesting; this tenant's quota is ${policy.quotas.tasksPerJob}`,
      },
    ]);
  }
  const callbackProblem = spec.callbackUrl ? checkCallbackUrl(spec.callbackUrl, netPolicy) : undefined;
  if (callbackProblem)
    throw new HttpProblem(422, 'Job cannot run', 'the callbackUrl is not allowed', [
      { path: 'body.callbackUrl', message: callbackProblem },
    ]);
  const problems = [
    ...(await checkOutputSchemas(spec, tenant)),
    ...checkRunnable(spec, registry, config.DELEGATE_MAX_DEPTH, config.DELEGATE_STEP_CEILING_SECONDS),
  ];
  if (problems.length > 0)
    throw new HttpProblem(
      422,
      'Job cannot run',
      `${problems.length} problem(s) in the job`,
      problems.map((p) => ({ ...p, path: `body.${p.path}` })),
    );
  return policy;
}

/** The activity queues a job's steps run on: the tenant's lane, the pool queue on it of each agent resolved at submission, and each limited provider's queue. */
export function stepQueuesOf(
  taskQueue: string,
  tenant: string,
  agents: Record<string, Pick<AgentManifest, 'pool' | 'provider'>>,
): QueueRef[] {
  const providers = [...new Set(Object.values(agents).flatMap((a) => (a.provider !== undefined ? [a.provider] : [])))].sort();
  return [
    ...laneQueues(agentQueueFor(taskQueue, tenant), declaredPools(Object.values(agents))),
    ...providers.map((p): QueueRef => ({ name: providerQueueFor(taskQueue, p), kind: 'activity' })),
  ];
}

/**
 * The step queues of a job that no worker serves while the deployment's workers are up (they
 * poll the workflow queue). With no worker polling at all (starting, or all down) a job is
 * accepted and waits for them, as any Temporal job does: an outage delays jobs, it does not refuse them.
 */
export async function unservedLanes(
  lanes: LaneWatch,
  taskQueue: string,
  tenant: string,
  agents: Record<string, Pick<AgentManifest, 'pool'>>,
): Promise<string[]> {
  if ((await lanes.served({ name: taskQueue, kind: 'workflow' })) !== true) return [];
  return lanes.unserved(stepQueuesOf(taskQueue, tenant, agents));
}

/** The 503 of a job whose queues have no worker: it would wait there without an error. */
export function noWorker(tenant: string, missing: string[]): HttpProblem {
  const list = missing.map((q) => `"${q}"`).join(', ');
  return new HttpProblem(
    503,
    'No worker serves the lane',
    `no worker has polled task queue ${list} in the last 5 minutes, so the job would wait there without an error: start a worker that serves tenant "${tenant}" ` +
      '(a worker serves every tenant of its DELEGATE_API_KEYS_FILE and picks up tenants added to it) and hosts the pools of its agents, then submit again',
    undefined,
    { 'retry-after': '5' },
    { lanes: missing },
  );
}
