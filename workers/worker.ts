/**
 * The worker set of a process: the shared queue's worker (workflows and the shared agent pool),
 * one activity-only worker per tenant lane, per hosted agent pool on each lane, and per provider
 * with declared limits, all sharing one set of activities. The workflow bundle they run is
 * bundle.ts's.
 */
import { Client } from '@temporalio/client';
import { log } from '@temporalio/activity';
import { Worker, type NativeConnection, type WorkerOptions, type WorkflowBundle } from '@temporalio/worker';
import {
  builtinAgentsFor,
  createActivities,
  createAgentRegistry,
  createCircuitBreaker,
  createLoadRouter,
  describeWithClient,
  noScoutRoot,
  type AgentRegistry,
  type ArchiveDeps,
  type ScoutRootFor,
  type WebhookDeps,
} from '../activities';
import { Context } from '@temporalio/activity';
import { DEFAULT_POOL_SLOTS, type PoolSlots } from '../schemas/pools';
import type { ProviderLimits } from '../schemas/provider';
import { providerQueueFor, stepQueueFor } from '../core/names';
import type { RecordStore } from '../record';
import type { Tracing } from '../telemetry/tracing';
import { workerTracing } from '../telemetry/worker-tracing';
import { activityLogIds } from '../telemetry/logging';
import { createWorkerMetrics, type WorkerMetrics } from '../telemetry/metrics';
import { metricsSinks } from '../telemetry/metrics-sinks';
import { reportSinks } from '../telemetry/report-sinks';
import { interceptorModules, isTracedBundle, preloadModules, workflowsPath, workflowWebpackConfig } from './bundle';

// what a process that runs workers imports with them; the benches also load an earlier commit's workers/worker.ts and take its bundler from it
export { bundleWorkflows } from './bundle';

/** Options of `createWorker`. */
export interface DelegateWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /** Every worker's Temporal identity: `workerIdentity(deploymentId, …)` (config/deployment.ts) tells this deployment's pollers from another's. @default the SDK's `<pid>@<host>` */
  identity?: string;
  /** A prebuilt bundle (tests bundle once per run); default: bundle `workflowsPath` now. */
  workflowBundle?: WorkflowBundle;
  /** Append-only log of completed agent steps. */
  stepLogPath?: string;
  /** The agents this worker runs. @default the builtin agents, the scout under `scoutRoots` */
  registry?: AgentRegistry;
  /** The tree each tenant's scouts read (`scoutRootsOf(config)`): the commit of a scout's report checks its lines there. @default none: scouts are off */
  scoutRoots?: ScoutRootFor;
  /** Master HMAC-SHA256 key; each tenant's webhooks are signed with a key derived from it. Unset = unsigned. */
  webhookSecret?: string;
  /** Where webhooks may go and how they are sent. @default private, loopback and metadata addresses refused */
  webhook?: Omit<WebhookDeps, 'secret'>;
  /** Concurrent agent steps on this worker: the size of its agent pool. @default 200 */
  maxConcurrentActivities?: number;
  /** The durable record the jobs archive their results in. */
  record: RecordStore;
  /** Archive settings beyond the record (chaos tests hold the write open). */
  archive?: Omit<ArchiveDeps, 'record'>;
  /** Frames a workflow's stack traces keep when this worker bundles (no `workflowBundle`); a bundle has its own (`bundleWorkflows`). @default 4 */
  workflowStackFrames?: number;
  /** Workflow-side worker settings of the shared queue (cache, pollers); the SDK's defaults unless set. */
  tuning?: WorkerTuning;
  /** Trace workflows and activities into this (see telemetry/tracing.ts); the bundle must come from `bundleWorkflows({ tracing: true })`. @default untraced */
  tracing?: Tracing;
  /** The agent that judges free-text stop conditions (DELEGATE_JUDGE_AGENT). @default none: rubrics never hold */
  judgeAgent?: string;
  /** Where the workers count steps, retries, breaker states and what workflows report. @default a registry of their own, not served */
  metrics?: WorkerMetrics;
  /** The remote agents' circuit breakers (one entity workflow per agent, shared by every worker). @default 5 failures, 30 s, on `taskQueue` */
  breaker?: WorkerBreakerOptions;
  /** The agent pools this worker hosts on the shared queue and on every lane, with each one's concurrent steps (see config/pools.ts). @default none */
  pools?: PoolSlots;
  /** Host only the pool queues: no workflows, no shared queue, no lanes (a worker dedicated to its pools). @default false */
  poolsOnly?: boolean;
}

/** How the workers' circuit breakers behave and where their workflows run. */
export interface WorkerBreakerOptions {
  /** Failed steps in a row that open an agent's circuit (DELEGATE_BREAKER_FAILURES). @default 5 */
  failures?: number;
  /** How long an open circuit refuses steps (DELEGATE_BREAKER_COOLDOWN_SECONDS × 1000). @default 30000 */
  cooldownMs?: number;
  /** The queue the breaker workflows run on: one a worker always serves. @default the worker's `taskQueue` */
  taskQueue?: string;
}

/** The worker settings a deployment (or the bench's A/B) may change. */
export type WorkerTuning = Pick<
  WorkerOptions,
  | 'maxCachedWorkflows'
  | 'workflowThreadPoolSize'
  | 'maxConcurrentWorkflowTaskExecutions'
  | 'workflowTaskPollerBehavior'
  | 'activityTaskPollerBehavior'
>;

/** One tenant's agent lane: an activity task queue and how many steps a worker runs from it at once. */
export interface AgentLane {
  taskQueue: string;
  slots: number;
}

/**
 * The worker of the shared queue (workflows and the shared agent pool) and one activity-only
 * worker per tenant lane, each lane with its own slot cap: a tenant's steps wait in its own
 * queue on the server, so one tenant's long steps never hold the slots another's need. Each
 * hosted agent pool adds an activity-only worker per lane (`<lane>.pool-<pool>`) with the
 * pool's slots. All share one set of activities (the load router has one cache per process);
 * a remote agent's circuit breaker is an entity workflow shared by every worker of the
 * deployment (activities/circuit-breaker.ts).
 */
export async function createWorkers(opts: DelegateWorkerOptions, lanes: AgentLane[] = []): Promise<[Worker, ...Worker[]]> {
  return (await createWorkerSet(opts, lanes)).workers;
}

/** A process's workers, and more lanes for them while they run (a tenant added to the keys file). */
export interface WorkerSet {
  /** The workers `createWorkers` returns: the shared queue's first (unless pools only), then the lanes', then the pools'. */
  workers: [Worker, ...Worker[]];
  /** Creates the workers of more lanes (each lane, and each hosted pool on it) with the set's activities; the caller runs them. */
  addLanes(lanes: AgentLane[]): Promise<Worker[]>;
}

/** As `createWorkers`, with `addLanes` for lanes that appear later. */
export async function createWorkerSet(opts: DelegateWorkerOptions, lanes: AgentLane[] = []): Promise<WorkerSet> {
  const registry = opts.registry ?? createAgentRegistry(builtinAgentsFor(opts.scoutRoots ?? noScoutRoot));
  const metrics = opts.metrics ?? createWorkerMetrics();
  const breaker = createCircuitBreaker({
    client: new Client({ connection: opts.connection, namespace: opts.namespace }),
    taskQueue: opts.breaker?.taskQueue ?? opts.taskQueue,
    failures: opts.breaker?.failures,
    cooldownMs: opts.breaker?.cooldownMs,
    // called from a step: the line carries the step's ids; a breaker Temporal cannot reach lets the step through
    onError: (what, agentId, err) => log.warn(`cannot ${what} the circuit breaker: the step goes ahead`, { agentId, error: String(err) }),
    // a breaker left on a queue no worker serves (a renamed DELEGATE_TASK_QUEUE) moves to this worker's
    onMoved: (agentId, from, to) => log.info('moved the circuit breaker off a queue no worker serves', { agentId, from, to }),
  });
  metrics.watchBreaker(breaker);
  // every agent pool on every lane (and on the shared queue, for jobs started without a lane)
  const poolLanesOf = (queues: string[]) =>
    Object.entries(opts.pools ?? {}).flatMap(([pool, slots]) => queues.map((lane) => ({ taskQueue: stepQueueFor(lane, pool), slots })));
  const poolLanes = poolLanesOf([opts.taskQueue, ...lanes.map((l) => l.taskQueue)]);
  if (opts.poolsOnly && poolLanes.length === 0)
    throw new Error('DELEGATE_POOLS_ONLY: this worker would poll nothing: no agent declares a pool, or DELEGATE_POOLS lists none');
  // the load router sizes a queue by this worker's own slots; a pool it does not host, by the default
  const slotsByQueue = new Map([
    [opts.taskQueue, opts.maxConcurrentActivities ?? 200],
    ...[...lanes, ...poolLanes].map((l): [string, number] => [l.taskQueue, l.slots]),
  ]);
  const router = createLoadRouter({
    describe: (queue) => describeWithClient(Context.current().client)(queue),
    slotsOf: (queue) => slotsByQueue.get(queue) ?? DEFAULT_POOL_SLOTS,
  });
  const activities = createActivities({
    registry,
    stepLogPath: opts.stepLogPath,
    events: opts.record.events,
    webhook: { ...opts.webhook, secret: opts.webhookSecret, callbacks: opts.record.callbacks },
    archive: { ...opts.archive, record: opts.record },
    breaker,
    observer: metrics.observer,
    judgeAgent: opts.judgeAgent,
    scoutRoots: opts.scoutRoots,
    router,
    // `{ capability, routing: 'adaptive' }` routes by the record's task statistics
    stats: opts.record.stats,
  });
  if (opts.workflowBundle && isTracedBundle(opts.workflowBundle) !== (opts.tracing !== undefined)) {
    // a traced bundle without the sink logs an error per workflow task; an untraced one with it loses the workflow spans
    throw new Error(
      `the workflow bundle was built with tracing ${opts.tracing ? 'off' : 'on'}: bundleWorkflows({ tracing: ${opts.tracing !== undefined} })`,
    );
  }
  const traced = opts.tracing && workerTracing(opts.tracing);
  // every line an activity logs names its job, task, agent and tenant; traced workers add spans
  const activityInterceptors = [activityLogIds, ...(traced ? traced.interceptors.activity : [])];
  const common = {
    connection: opts.connection,
    namespace: opts.namespace,
    ...(opts.identity ? { identity: opts.identity } : {}),
    activities,
    shutdownGraceTime: '5 seconds',
    interceptors: { activity: activityInterceptors },
    // a cancel reaches a step with a heartbeat's answer: sent every 2 s (the host's beat), not every 8 s
    // (0.8 × the 10 s heartbeat timeout), so a cancelled step acknowledges with its spend within seconds
    maxHeartbeatThrottleInterval: '2 seconds',
  } as const;
  const activityWorkers = (of: AgentLane[]) =>
    Promise.all(of.map((lane) => Worker.create({ ...common, taskQueue: lane.taskQueue, maxConcurrentActivityTaskExecutions: lane.slots })));
  /** A later lane gets what a first one gets: itself (unless pools only) and the hosted pools on it. */
  const addLanes = async (more: AgentLane[]) => {
    const added = [...(opts.poolsOnly ? [] : more), ...poolLanesOf(more.map((l) => l.taskQueue))];
    for (const l of added) slotsByQueue.set(l.taskQueue, l.slots);
    return activityWorkers(added);
  };
  const poolWorkers = await activityWorkers(poolLanes);
  if (opts.poolsOnly) return { workers: poolWorkers as [Worker, ...Worker[]], addLanes };
  // each provider with declared limits: one queue every tenant's steps share, its rate enforced by the
  // server across every worker polling it (the worker's maxTaskQueueActivitiesPerSecond is the queue's)
  const providerWorkers = await Promise.all(
    providerQueues(registry, opts.taskQueue).map((p) =>
      Worker.create({
        ...common,
        taskQueue: p.taskQueue,
        maxConcurrentActivityTaskExecutions: p.limits.concurrent ?? opts.maxConcurrentActivities ?? 200,
        ...(p.limits.requestsPerMinute !== undefined ? { maxTaskQueueActivitiesPerSecond: p.limits.requestsPerMinute / 60 } : {}),
      }),
    ),
  );
  const main = await Worker.create({
    ...common,
    taskQueue: opts.taskQueue,
    // a bundle has its workflow interceptors compiled in (bundleWorkflows); bundling here takes them as modules
    ...(opts.workflowBundle
      ? { workflowBundle: opts.workflowBundle }
      : {
          workflowsPath,
          bundlerOptions: { preloadModules: preloadModules(), webpackConfigHook: workflowWebpackConfig(opts.workflowStackFrames) },
        }),
    interceptors: { ...common.interceptors, ...(opts.workflowBundle ? {} : { workflowModules: interceptorModules(Boolean(traced)) }) },
    sinks: { ...metricsSinks(metrics), ...reportSinks(metrics), ...(traced ? traced.sinks : {}) },
    maxConcurrentActivityTaskExecutions: opts.maxConcurrentActivities ?? 200,
    ...opts.tuning,
  });
  const laneWorkers = await activityWorkers(lanes);
  return { workers: [main, ...laneWorkers, ...poolWorkers, ...providerWorkers], addLanes };
}

/** The queues of the providers the agents declare limits for (core/names.ts), with each one's limits. */
export function providerQueues(
  registry: AgentRegistry,
  taskQueue: string,
): { provider: string; taskQueue: string; limits: ProviderLimits }[] {
  const found = new Map<string, ProviderLimits>();
  for (const m of registry.list()) {
    const limits = m.provider !== undefined ? registry.get(m.id)?.service?.limits : undefined;
    if (m.provider !== undefined && limits) found.set(m.provider, limits);
  }
  return [...found].map(([provider, limits]) => ({ provider, taskQueue: providerQueueFor(taskQueue, provider), limits }));
}

/** A worker hosting the job and subtask workflows and the agents, on the shared queue only. */
export async function createWorker(opts: DelegateWorkerOptions): Promise<Worker> {
  const [worker] = await createWorkers(opts);
  return worker;
}
