import { Client } from '@temporalio/client';
import { log } from '@temporalio/activity';
import { bundleWorkflowCode, Worker, type NativeConnection, type WorkerOptions, type WorkflowBundle } from '@temporalio/worker';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  builtinAgents,
  createActivities,
  createAgentRegistry,
  createCircuitBreaker,
  createLoadRouter,
  describeWithClient,
  type AgentRegistry,
  type ArchiveDeps,
  type WebhookDeps,
} from '../activities';
import { Context } from '@temporalio/activity';
import { DEFAULT_POOL_SLOTS, type PoolSlots } from '../schemas/pools';
import type { ProviderLimits } from '../schemas/provider';
import { providerQueueFor, stepQueueFor } from '../core/names';
import { DEFAULT_WORKFLOW_STACK_FRAMES } from '../core/engine-limits';
import type { RecordStore } from '../record';
import type { Tracing } from '../telemetry/tracing';
import { tracingWorkflowModules, workerTracing } from '../telemetry/worker-tracing';
import { activityLogIds } from '../telemetry/logging';
import { createWorkerMetrics, type WorkerMetrics } from '../telemetry/metrics';
import { metricsSinks } from '../telemetry/metrics-sinks';
import { reportSinks } from '../telemetry/report-sinks';

/** Path of the one workflows module the worker registers. */
export const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

/** Workflow interceptor modules every worker loads: the ids on every workflow log line. */
export const workflowInterceptorModules = [fileURLToPath(new URL('../workflows/log-context.ts', import.meta.url))];

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
  /** The agents this worker runs. @default the builtin agents */
  registry?: AgentRegistry;
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

/** Bundles that hold the tracing interceptors: a worker checks its bundle matches its tracing. */
const tracedBundles = new WeakSet<WorkflowBundle>();

/** The workflow interceptor modules of a bundle: the log ids always, the tracing ones when traced. */
export const interceptorModules = (tracing: boolean) => [...workflowInterceptorModules, ...(tracing ? tracingWorkflowModules : [])];

/**
 * The modules a reusable V8 context evaluates once and shares with every workflow run: the
 * workflows and everything they import statically (workflows/, core/, the SDK), and the pure
 * rules of core/ that only the API and activities reach otherwise. A module a run evaluates
 * afresh costs every subtask its evaluation and its own copy of every function and class it
 * defines (CPU per run, and the heap of every run the worker caches), so none is left to the
 * run: only what a dynamic `import()` loads (the job's input check) is evaluated per run. The SDK
 * deep-freezes what it shares; shared modules keep no state of their own (lint forbids a
 * module-level `let` in workflows/ and core/; a run's own ids live on its own globals:
 * log-context.ts).
 */
export function preloadModules(): string[] {
  const dir = fileURLToPath(new URL('../core/', import.meta.url));
  const core = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map((f) => join(dir, f));
  // first: the stack depth is set before anything else runs in the context, and before the SDK freezes `Error`
  return [stackFramesModule, ...core, workflowsPath, ...workflowInterceptorModules];
}

/** The module that sets the workflow context's stack depth (preloaded first). */
const stackFramesModule = fileURLToPath(new URL('../workflows/stack-frames.ts', import.meta.url));

/** A webpack configuration, as the SDK's bundler hands it to `webpackConfigHook`. */
type WebpackConfig = Parameters<NonNullable<NonNullable<WorkerOptions['bundlerOptions']>['webpackConfigHook']>>[0];

/** The syntax level our workflow code is compiled to: what the worker's Node (20) runs natively. */
const WORKFLOW_TARGET = 'es2022';

/**
 * Compiles our TypeScript for the Node that runs it. The SDK's bundler asks swc for ES2017, so
 * every object spread became a call to a helper that copies key by key (`_object_spread`, 248
 * in the bundle), every class field a `defineProperty` call (149), every `?.` and `??` a ladder
 * of temporaries; a subtask run spent workflow-thread time in those helpers alone
 * (replay profile, bench/history/2026-12-05-diary.md). Node 20's V8 runs ES2022 as it is, so the bundle keeps
 * it: same semantics (class fields are defined either way), same commands, less work per run.
 */
function modernWorkflowCode(config: WebpackConfig): WebpackConfig {
  const rules = config.module?.rules ?? [];
  let found = 0;
  for (const rule of rules) {
    if (!rule || typeof rule !== 'object' || !rule.use || typeof rule.use !== 'object' || Array.isArray(rule.use)) continue;
    const use = rule.use as { loader?: string; options?: { jsc?: { target?: string } } };
    if (!use.loader?.includes('swc-loader') || !use.options?.jsc) continue;
    use.options.jsc.target = WORKFLOW_TARGET;
    found++;
  }
  // the SDK's bundler changed shape: say so rather than bundle slower code unnoticed
  if (found !== 1) throw new Error(`modernWorkflowCode: expected the SDK's one swc-loader rule, found ${found}`);
  return config;
}

/** A webpack plugin that defines `name` as `value` in the bundle, with the bundling compiler's own webpack. */
const definePlugin = (name: string, value: number) => ({
  apply(compiler: { webpack: { DefinePlugin: new (defs: Record<string, string>) => { apply(c: unknown): void } } }) {
    new compiler.webpack.DefinePlugin({ [name]: JSON.stringify(value) }).apply(compiler);
  },
});

/**
 * The worker's changes to the SDK's webpack configuration: our code compiled for Node 20
 * (`modernWorkflowCode`), and the frames a stack trace keeps in the workflow context
 * (`stackFrames`, DELEGATE_WORKFLOW_STACK_FRAMES; workflows/stack-frames.ts says why it is not V8's 10).
 */
export function workflowWebpackConfig(stackFrames: number = DEFAULT_WORKFLOW_STACK_FRAMES) {
  if (!Number.isInteger(stackFrames) || stackFrames < 1) throw new Error(`stackFrames must be a positive integer, not ${stackFrames}`);
  return (config: WebpackConfig): WebpackConfig => {
    const modern = modernWorkflowCode(config);
    return { ...modern, plugins: [...(modern.plugins ?? []), definePlugin('__DELEGATE_WORKFLOW_STACK_FRAMES__', stackFrames) as never] };
  };
}

/**
 * Bundles the workflows once (tests and benchmarks reuse the bundle). A traced bundle also
 * holds the tracing interceptors: workflow interceptors are compiled into the bundle, so
 * tracing on or off is a bundle of its own, and an untraced worker runs no tracing code.
 */
export async function bundleWorkflows({
  tracing = false,
  stackFrames,
}: { tracing?: boolean; stackFrames?: number } = {}): Promise<WorkflowBundle> {
  const bundle = await bundleWorkflowCode({
    workflowsPath,
    workflowInterceptorModules: interceptorModules(tracing),
    preloadModules: preloadModules(),
    webpackConfigHook: workflowWebpackConfig(stackFrames),
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never,
  });
  if (tracing) tracedBundles.add(bundle);
  return bundle;
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
  const registry = opts.registry ?? createAgentRegistry(builtinAgents);
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
    router,
    // `{ capability, routing: 'adaptive' }` routes by the record's task statistics
    stats: opts.record.stats,
  });
  if (opts.workflowBundle && tracedBundles.has(opts.workflowBundle) !== (opts.tracing !== undefined)) {
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
