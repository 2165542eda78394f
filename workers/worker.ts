import { bundleWorkflowCode, Worker, type NativeConnection, type WorkflowBundle } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { builtinAgents, createActivities, createAgentRegistry, type AgentRegistry, type WebhookDeps } from '../activities';

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
}

/** One tenant's agent lane: an activity task queue and how many steps a worker runs from it at once. */
export interface AgentLane {
  taskQueue: string;
  slots: number;
}

/**
 * Activity-only workers, one per tenant lane, each with its own slot cap: a tenant's steps
 * wait in its own queue on the server, so one tenant's long steps never hold the slots
 * another tenant's steps need.
 */
export async function createLaneWorkers(opts: Omit<DelegateWorkerOptions, 'taskQueue' | 'workflowBundle' | 'maxConcurrentActivities'>, lanes: AgentLane[]): Promise<Worker[]> {
  const registry = opts.registry ?? createAgentRegistry(builtinAgents);
  const activities = createActivities({ registry, stepLogPath: opts.stepLogPath, webhook: { ...opts.webhook, secret: opts.webhookSecret } });
  return Promise.all(
    lanes.map((lane) =>
      Worker.create({
        connection: opts.connection,
        namespace: opts.namespace,
        taskQueue: lane.taskQueue,
        activities,
        maxConcurrentActivityTaskExecutions: lane.slots,
        shutdownGraceTime: '5 seconds',
      }),
    ),
  );
}

/** Bundles the workflows once (tests and benchmarks reuse the bundle). */
export function bundleWorkflows(): Promise<WorkflowBundle> {
  return bundleWorkflowCode({ workflowsPath, logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never });
}

/** A worker hosting the job and subtask workflows and the builtin agents. */
export async function createWorker(opts: DelegateWorkerOptions): Promise<Worker> {
  const registry = opts.registry ?? createAgentRegistry(builtinAgents);
  return Worker.create({
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    ...(opts.workflowBundle ? { workflowBundle: opts.workflowBundle } : { workflowsPath }),
    activities: createActivities({ registry, stepLogPath: opts.stepLogPath, webhook: { ...opts.webhook, secret: opts.webhookSecret } }),
    maxConcurrentActivityTaskExecutions: opts.maxConcurrentActivities ?? 200,
    shutdownGraceTime: '5 seconds',
  });
}
