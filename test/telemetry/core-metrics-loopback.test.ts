/**
 * The SDK core's own Prometheus exporter serves without the metrics token (core has no
 * setting for one), so it listens on loopback only: scrapers read it through the worker's
 * /metrics, which checks DELEGATE_METRICS_TOKEN; no other machine reaches it.
 * (Vitest runs each file in its own process: this one installs its own Temporal Runtime.)
 */
import { NativeConnection } from '@temporalio/worker';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../../telemetry/logging';
import { installWorkerRuntime } from '../../telemetry/worker-runtime';

let coreMetricsUrl: string | undefined;
let connection: NativeConnection;

beforeAll(async () => {
  ({ coreMetricsUrl } = await installWorkerRuntime({ log: createLogger({ level: 'silent', proc: 'worker' }) }));
  // the runtime (and its exporter) starts with the first connection
  connection = await NativeConnection.connect({ address: inject('temporalAddress') });
});
afterAll(async () => {
  await connection?.close();
});

describe("the SDK core's metrics exporter", () => {
  it('listens on 127.0.0.1 only: answered there, refused on every other IPv4 address of the host', async () => {
    const url = new URL(coreMetricsUrl!);
    expect(url.hostname).toBe('127.0.0.1');
    expect((await fetch(url)).status).toBe(200);
    const elsewhere = Object.values(networkInterfaces())
      .flat()
      .filter((i) => i !== undefined && !i.internal && i.family === 'IPv4')
      .map((i) => i!.address);
    for (const ip of elsewhere) {
      const reached = await fetch(`http://${ip}:${url.port}/metrics`, { signal: AbortSignal.timeout(2000) }).then(
        () => true,
        () => false,
      );
      expect(reached, `core metrics reachable on ${ip}`).toBe(false);
    }
  });
});
