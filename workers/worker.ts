import { bundleWorkflowCode, Worker, type NativeConnection, type WorkerOptions, type WorkflowBundle } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { builtinAgents, createActivities, createAgentRegistry, createCircuitBreaker, type AgentRegistry, type ArchiveDeps, type WebhookDeps } from '../activities';
import type { RecordStore } from '../record';
import { activityLogIds } from '../telemetry/logging';
import { createWorkerMetrics, type WorkerMetrics } from '../telemetry/metrics';
import { metricsSinks } from '../telemetry/metrics-sinks';

/** Path of the one workflows module the worker registers. */
export const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

/** Options of `createWorker`. */
export interface DelegateWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
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
  /** Workflow-side worker settings of the shared queue (cache, pollers); the SDK's defaults unless set. */
  tuning?: WorkerTuning;
  /** Where the workers count steps, retries, breaker states and what workflows report. @default a registry of their own, not served */
  metrics?: WorkerMetrics;
  /**
   * Workflow interceptor modules beyond `workflowInterceptorModules`, when the worker bundles
   * here (no `workflowBundle`); a prebuilt bundle has its own (`bundleWorkflows`).
   */
  interceptors?: { workflowModules?: string[] };
}

/** The worker settings a deployment (or the bench's A/B) may change. */
export type WorkerTuning = Pick<WorkerOptions, 'maxCachedWorkflows' | 'workflowThreadPoolSize' | 'maxConcurrentWorkflowTaskExecutions' | 'workflowTaskPollerBehavior' | 'activityTaskPollerBehavior'>;

/** One tenant's agent lane: an activity task queue and how many steps a worker runs from it at once. */
export interface AgentLane {
  taskQueue: string;
  slots: number;
}

/** The workflow interceptor modules every Delegate worker runs (a bundle carries them: they cannot be added to one later). */
export const workflowInterceptorModules: string[] = [];

/** Bundles the workflows once (tests and benchmarks reuse the bundle), with Delegate's interceptor modules and `extraModules`. */
export function bundleWorkflows(extraModules: string[] = []): Promise<WorkflowBundle> {
  return bundleWorkflowCode({
    workflowsPath,
    workflowInterceptorModules: [...workflowInterceptorModules, ...extraModules],
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never,
  });
}

/**
 * The worker of the shared queue (workflows and the shared agent pool) and one activity-only
 * worker per tenant lane, each lane with its own slot cap: a tenant's steps wait in its own
 * queue on the server, so one tenant's long steps never hold the slots another's need. All
 * share one set of activities, so a remote agent has one circuit breaker per process.
 */
export async function createWorkers(opts: DelegateWorkerOptions, lanes: AgentLane[] = []): Promise<[Worker, ...Worker[]]> {
  const registry = opts.registry ?? createAgentRegistry(builtinAgents);
  const metrics = opts.metrics ?? createWorkerMetrics();
  const breaker = createCircuitBreaker();
  metrics.watchBreaker(breaker);
  const activities = createActivities({ registry, stepLogPath: opts.stepLogPath, events: opts.record.events, webhook: { ...opts.webhook, secret: opts.webhookSecret }, archive: { ...opts.archive, record: opts.record }, breaker, observer: metrics.observer });
  // every line an activity logs names its job, task, agent and tenant
  const activityInterceptors = [activityLogIds];
  const common = { connection: opts.connection, namespace: opts.namespace, activities, shutdownGraceTime: '5 seconds', interceptors: { activity: activityInterceptors } } as const;
  const main = await Worker.create({
    ...common,
    interceptors: { activity: activityInterceptors, workflowModules: [...workflowInterceptorModules, ...(opts.interceptors?.workflowModules ?? [])] },
    sinks: metricsSinks(metrics),
    taskQueue: opts.taskQueue,
    ...(opts.workflowBundle ? { workflowBundle: opts.workflowBundle } : { workflowsPath }),
    maxConcurrentActivityTaskExecutions: opts.maxConcurrentActivities ?? 200,
    ...opts.tuning,
  });
  const laneWorkers = await Promise.all(lanes.map((lane) => Worker.create({ ...common, taskQueue: lane.taskQueue, maxConcurrentActivityTaskExecutions: lane.slots })));
  return [main, ...laneWorkers];
}

/** A worker hosting the job and subtask workflows and the agents, on the shared queue only. */
export async function createWorker(opts: DelegateWorkerOptions): Promise<Worker> {
  const [worker] = await createWorkers(opts);
  return worker;
}
