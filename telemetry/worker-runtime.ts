/**
 * The worker process's Temporal Runtime: the SDK's logger is pino (core's lines forwarded to
 * it, so nothing reaches stderr in another format) and core's metrics are exported on a
 * loopback port that the worker's own /metrics reads and merges at each scrape.
 *
 *   Runtime ──core metrics──> 127.0.0.1:<free port>/metrics ──fetched by──> worker /metrics
 *          └──every SDK log line──> sdkLogger ──> pino
 */
import { Runtime } from '@temporalio/worker';
import { createServer } from 'node:net';
import type { Logger } from 'pino';
import { sdkLogger } from './logging';

/** Options of `installWorkerRuntime`. */
export interface WorkerRuntimeOptions {
  /** Where the SDK's lines go. */
  log: Logger;
  /** Loopback port of core's own Prometheus exporter: it checks no token (DELEGATE_METRICS_TOKEN guards the worker's /metrics), so it never listens elsewhere. @default a free port */
  coreMetricsPort?: number;
  /** False: core exports no metrics at all (the worker serves no /metrics). @default true */
  coreMetrics?: boolean;
}

/**
 * Core's series named as Prometheus names them, like Delegate's own: counters end in `_total`,
 * durations are seconds with the unit in the name (`temporal_workflow_completed_total`,
 * `temporal_activity_execution_latency_seconds_bucket`), not core's defaults (no suffix, milliseconds).
 */
export const PROMETHEUS_NAMING = { countersTotalSuffix: true, unitSuffix: true, useSecondsForDurations: true } as const;

/** A free TCP port on loopback, chosen by the OS (a moment before core binds it). */
function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * Installs the Runtime; call once per process, before any `NativeConnection`. Returns the URL
 * of core's metrics (the SDK's `temporal_*` series), for `serveMetrics`.
 */
export async function installWorkerRuntime({
  log,
  coreMetricsPort,
  coreMetrics = true,
}: WorkerRuntimeOptions): Promise<{ coreMetricsUrl?: string }> {
  const port = coreMetrics ? (coreMetricsPort ?? (await freeLoopbackPort())) : undefined;
  // core's debug lines are many per workflow task: only at trace
  Runtime.install({
    logger: sdkLogger(log),
    telemetryOptions: {
      // forward, not console: core's own format would interleave non-JSON lines with pino's
      logging: {
        forward: {},
        filter: { core: log.isLevelEnabled('trace') ? 'DEBUG' : log.isLevelEnabled('debug') ? 'INFO' : 'WARN', other: 'ERROR' },
      },
      ...(port !== undefined ? { metrics: { prometheus: { bindAddress: `127.0.0.1:${port}`, ...PROMETHEUS_NAMING } } } : {}),
    },
  });
  return port !== undefined ? { coreMetricsUrl: `http://127.0.0.1:${port}/metrics` } : {};
}
