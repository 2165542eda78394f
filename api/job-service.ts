/**
 * The Temporal side of the API, with no HTTP in it, one module per concern:
 *
 *   jobs/handles.ts  ids, handles, describe (404), requireRunning (409)
 *   jobs/submit.ts   checks, admission control, agent resolution, idempotent start
 *   jobs/submit-checks.ts  the refusals before a start (spec, tenant, lanes without a worker), shared with the estimate
 *   jobs/estimate.ts the same checks, then the forecast (nothing starts)
 *   jobs/read.ts     view, result wait, list, live detail; finished jobs from the record
 *   jobs/control.ts  stop, cancel, budget top-ups
 *   jobs/replay.ts   a finished job again on another agent or model, and the comparison
 */
import { createControls } from './jobs/control';
import { createJobHandles, type JobServiceDeps } from './jobs/handles';
import { createLaneWatch, laneQueues, type LaneWatch } from './lanes';
import { createReads } from './jobs/read';
import { createSubmit } from './jobs/submit';
import { createReplay } from './jobs/replay';
import { createEstimate } from './jobs/estimate';
import { createJobFollowers, onClose } from './jobs/followers';
import { createStreamCaps } from './jobs/stream-caps';
import { createParentModel } from './jobs/parent-model';
import { declaredPools } from '../config/pools';
import { agentQueueFor, providerQueueFor } from '../core/names';

export type { JobServiceDeps } from './jobs/handles';
export type { Submission } from './jobs/submit';

/** Creates the job service: every operation the routes call, as plain functions (no `this`). `lanes` defaults to a watch through `deps.client`. */
export function createJobService(deps: JobServiceDeps, lanes: LaneWatch = createLaneWatch({ client: deps.client })) {
  const handles = createJobHandles(deps);
  // one follower per job, however many streams watch it; each stream counted against its tenant's caps
  const followers = createJobFollowers({ after: (...a) => deps.record.events.after(...a), ended: handles.isOver });
  const caps = createStreamCaps({
    perTenant: deps.config.DELEGATE_QUOTA_OPEN_STREAMS,
    perJob: deps.config.DELEGATE_QUOTA_OPEN_STREAMS_PER_JOB,
  });
  const controls = createControls(deps.client, handles);
  const submit = createSubmit(deps, handles, lanes);
  const reads = createReads(deps.client, deps.record, handles);
  return {
    workflowIdOf: handles.workflowIdOf,
    uiLink: handles.uiLink,
    requireJob: handles.requireJob,
    /**
     * A job's live events from `seq` on, until it finishes or `signal` aborts (SSE, A2A, MCP progress).
     * Throws 429 at once, before anything is sent, when the tenant or the job holds as many open
     * streams as its cap; the stream counts until it ends, is returned, or `signal` aborts.
     */
    events: (tenant: string, jobId: string, seq: number, signal?: AbortSignal) => {
      const release = caps.open(tenant, jobId, signal);
      return onClose(followers.subscribe(tenant, jobId, seq, signal), release);
    },
    /** Open event streams and the followers they share, now (tests, metrics). */
    streams: () => followers.size(),
    submit,
    /** The forecast of a spec (POST /v1/jobs/estimate). */
    estimate: createEstimate(deps),
    /** The workflow queue, every tenant's agent lane and each declared pool's queue on it, and each limited provider's queue, that no worker polled lately (for /readyz). */
    lanesWithoutWorker: () => {
      const queue = deps.config.DELEGATE_TASK_QUEUE;
      const pools = declaredPools(deps.registry.list());
      const providers = [...new Set(deps.registry.list().flatMap((m) => (m.provider !== undefined ? [m.provider] : [])))].sort();
      return lanes.unserved([
        { name: queue, kind: 'workflow' },
        ...deps.tenants.list().flatMap((t) => laneQueues(agentQueueFor(queue, t.tenant), pools)),
        ...providers.map((p) => ({ name: providerQueueFor(queue, p), kind: 'activity' as const })),
      ]);
    },
    ...reads,
    /** Replays of finished jobs and their comparisons (jobs/replay.ts). */
    ...createReplay(deps, handles, submit, reads),
    ...controls,
    ...createParentModel(deps, controls.setModel),
  };
}

/** The job service's interface. */
export type JobService = ReturnType<typeof createJobService>;
