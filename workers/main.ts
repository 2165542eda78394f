/** Worker process: hosts the workflows, the shared agent pool and one agent lane per tenant (new tenants of the keys file included) until SIGINT/SIGTERM. */
import {
  createMcpPool,
  loadRegistry,
  mcpPolicyFromConfig,
  netPolicyFromConfig,
  scoutRootsOf,
  semanticOptionsFromConfig,
} from '../activities';
import { openRecord, recordLocation } from '../record';
import { breakerSettingsOf } from '../schemas/breaker';
import { Client } from '@temporalio/client';
import { createLogger } from '../telemetry/logging';
import { createWorkerMetrics } from '../telemetry/metrics';
import { serveMetrics } from '../telemetry/metrics-server';
import { installWorkerRuntime } from '../telemetry/worker-runtime';
import { connectClient, connectWorker, loadConfig } from '../config/config';
import { ensurePruneSchedule, retireLegacyPruneSchedule } from './prune-schedule';
import { ensureSearchAttributes, registerCommand } from './search-attributes';
import { hostedPools } from '../config/pools';
import { loadTenants } from '../config/tenants';
import { orExit } from '../config/startup';
import { agentQueueFor } from '../core/names';
import { createFleet, followTenantLanes } from './tenant-lanes';
import { bundleWorkflows, createWorkerSet } from './worker';
import { startTracing } from '../telemetry/tracing';
import { hostname } from 'node:os';
import { findOtherDeployments, otherDeploymentMessage, workerIdentity } from '../config/deployment';

// a bad environment, keys file or agents file (its roles too) is one line and exit code 1, before any connection
const config = orExit('worker', () => loadConfig());
const log = createLogger({ level: config.LOG_LEVEL, proc: 'worker' });
// LLM agents' MCP connections, reused across steps; closed (their processes ended) when the worker stops
const mcpPool = createMcpPool({ policy: mcpPolicyFromConfig(config) });
// the tree each tenant's scouts read, from the configuration: the scout agent, LLM agents' host tools and the commit share it
const scoutRoots = scoutRootsOf(config);
const registry = orExit('worker', () => loadRegistry(config.DELEGATE_AGENTS_FILE, semanticOptionsFromConfig(config), mcpPool, scoutRoots));
const tenants = orExit('worker', () => loadTenants(config));
// before any connection: the SDK's logger and core's metrics are fixed when the Runtime starts
const { coreMetricsUrl } = await installWorkerRuntime({ log, coreMetrics: config.DELEGATE_WORKER_METRICS_PORT !== 0 });
const metrics = createWorkerMetrics();
const metricsServer = config.DELEGATE_WORKER_METRICS_PORT
  ? await serveMetrics({
      registry: metrics.registry,
      host: config.HOST,
      port: config.DELEGATE_WORKER_METRICS_PORT,
      coreMetricsUrl,
      token: config.DELEGATE_METRICS_TOKEN,
      log,
    }).catch((err: Error) => {
      // a second worker on one host (npm start plus another, the chaos tests) finds the port taken: it still works, unscraped
      log.error({ err: err.message }, 'cannot serve /metrics: set DELEGATE_WORKER_METRICS_PORT to a free port, or 0 to turn it off');
      return undefined;
    })
  : undefined;
if (metricsServer) log.info({ url: metricsServer.url }, 'metrics endpoint');
// off unless an OTEL_* variable says where spans go (docs/guides/observability.md, "Traces")
const tracing = startTracing({
  serviceName: 'delegate-worker',
  genAi: { captureContent: config.DELEGATE_OTEL_CAPTURE_CONTENT, cost: config.DELEGATE_OTEL_GENAI_COST },
});
// one stray promise (an agent's, a library's) must not take every tenant's steps down with the process
process.on('unhandledRejection', (reason) => log.error({ err: String(reason) }, 'unhandled rejection (kept running)'));
const connection = await connectWorker(config);
const record = await openRecord(recordLocation(config));
// the deployment is its record: every worker and API on it carries its id (config/deployment.ts)
const deploymentId = await record.store.deploymentId();
log.info({ record: record.where, deploymentId }, 'job record open');
{
  const clientConnection = await connectClient(config);
  // a deployment with another record on this queue would take part of every job (its events in one record, its steps in
  // the other): refuse before polling; a look-up that fails says nothing either way
  const others = await findOtherDeployments({
    connection: clientConnection,
    namespace: config.TEMPORAL_NAMESPACE,
    queues: [config.DELEGATE_TASK_QUEUE],
    deploymentId,
  }).catch((err: Error) => {
    log.warn({ err: err.message }, 'cannot check the task queue for other deployments');
    return [];
  });
  if (others.length > 0) throw new Error(`refusing to start: ${otherDeploymentMessage(deploymentId, others)}`);
  // before any job can start a child with them: an upgrade may add attributes the namespace lacks
  await ensureSearchAttributes(clientConnection, config.TEMPORAL_NAMESPACE).then(
    (added) => added.length > 0 && log.info({ added }, 'search attributes registered'),
    (err: Error) =>
      log.error(
        { err: err.message, register: registerCommand(config.TEMPORAL_NAMESPACE) },
        'cannot check or register the search attributes: register them, or jobs fail to start their children',
      ),
  );
  const client = new Client({ connection: clientConnection, namespace: config.TEMPORAL_NAMESPACE });
  const schedule = await ensurePruneSchedule(client, config, deploymentId);
  // the one schedule per namespace of older releases: deleted when it was this deployment's, else left to its owner
  const legacySchedule = await retireLegacyPruneSchedule(client, config.DELEGATE_TASK_QUEUE).catch((err: Error) => {
    log.warn({ err: err.message }, 'cannot check the prune schedule of older releases');
    return 'unknown';
  });
  log.info(
    {
      schedule,
      legacySchedule,
      every: config.DELEGATE_RECORD_PRUNE_EVERY,
      maxAgeDays: config.DELEGATE_RECORD_MAX_AGE_DAYS,
      keepLabels: config.DELEGATE_RECORD_KEEP_LABELS,
      dryRun: config.DELEGATE_RECORD_PRUNE_DRY_RUN,
    },
    'record prune schedule',
  );
  await clientConnection.close();
}
const lanes = tenants.list().map((t) => ({ taskQueue: agentQueueFor(config.DELEGATE_TASK_QUEUE, t.tenant), slots: t.quotas.agentSlots }));
log.info({ method: registry.semantic.method, model: config.DELEGATE_EMBEDDINGS_MODEL }, 'semantic routing');
if (config.DELEGATE_JUDGE_AGENT && !registry.get(config.DELEGATE_JUDGE_AGENT)) {
  throw new Error(
    `DELEGATE_JUDGE_AGENT: no agent "${config.DELEGATE_JUDGE_AGENT}" (agents: ${registry
      .list()
      .map((m) => m.id)
      .join(', ')})`,
  );
}
// the pools this worker hosts on every lane: DELEGATE_POOLS, or every pool of the agents file
const pools = hostedPools(config.DELEGATE_POOLS, registry.list());
const set = await createWorkerSet(
  {
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.DELEGATE_TASK_QUEUE,
    identity: workerIdentity(deploymentId, process.pid, hostname()),
    stepLogPath: config.DELEGATE_STEP_LOG,
    registry,
    scoutRoots,
    judgeAgent: config.DELEGATE_JUDGE_AGENT,
    webhookSecret: config.DELEGATE_WEBHOOK_SECRET,
    webhook: { policy: netPolicyFromConfig(config), signature: config.DELEGATE_WEBHOOK_SIGNATURE },
    workflowBundle: await bundleWorkflows({ tracing: tracing !== undefined, stackFrames: config.DELEGATE_WORKFLOW_STACK_FRAMES }),
    tracing,
    maxConcurrentActivities: config.DELEGATE_WORKER_SLOTS,
    record: record.store,
    archive: {
      pauseBeforeCommitMs: config.DELEGATE_CHAOS_ARCHIVE_HOLD_MS,
      pauseAfterCommitMs: config.DELEGATE_CHAOS_ARCHIVE_HOLD_AFTER_MS,
    },
    metrics,
    breaker: breakerSettingsOf(config),
    pools,
    poolsOnly: config.DELEGATE_POOLS_ONLY,
  },
  lanes,
);
const fleet = createFleet(set.workers);
// a tenant added to the keys file gets its lane now, not at the next restart
const following = followTenantLanes({ config, set, fleet, served: tenants.list().map((t) => t.tenant), log });
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  // the SDK's runtime also reacts to these signals; whoever comes second finds it stopping
  process.on(sig, () => {
    log.info({ signal: sig }, 'worker shutting down');
    following.close();
    fleet.shutdown();
  });
}
log.info(
  {
    address: config.TEMPORAL_ADDRESS,
    taskQueue: config.DELEGATE_TASK_QUEUE,
    deploymentId,
    tracing: tracing !== undefined,
    lanes: lanes.map((l) => `${l.taskQueue}×${l.slots}`),
    pools: Object.entries(pools).map(([p, n]) => `${p}×${n}`),
  },
  'worker running',
);
await fleet.done;
await mcpPool.close();
await connection.close();
await record.close();
await metricsServer?.close();
await tracing?.shutdown();
log.info('worker stopped');
