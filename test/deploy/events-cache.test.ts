/**
 * The history service reads back the events it needs again (a parent's start-child events when it
 * starts each child, a child's start and close events) from a cache, 512 KiB per shard by default:
 * the dev server has one shard, so one job of a few hundred subtasks with real inputs outgrew it,
 * and each miss read and decoded the job's whole batch of start events from the database again.
 * Delegate's servers (DEV_THROUGHPUT_SETTINGS, deploy/temporal-dynamicconfig.yaml) keep 64 MiB per
 * host. Here one job of 300 subtasks with 1 KiB questions, all started at once, runs on a dev server with Delegate's
 * settings and on one with the stock cache, and the server's own metrics count the misses.
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { BENCH_TENANT, DELEGATE_BENCH_QUEUE, echoJobInput, patientResult, startBenchWorkers } from '../../bench/delegate-runs';
import { DEV_THROUGHPUT_SETTINGS, freePort, startDevServer, type DevServer } from '../../scripts/dev-server';
import { delegationJob } from '../../workflows/delegation-job';

const N = 300;
const CACHE_KEYS = ['history.enableHostLevelEventsCache', 'history.eventsHostLevelCacheMaxSizeBytes'];
const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
});

/** The server's events-cache misses so far (its Prometheus endpoint). */
async function misses(metricsPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('cache_miss{') && l.includes('operation="EventsCacheGetEvent"'))
    .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
}

/** One N-wide echo job with 1 KiB questions on a fresh dev server with `settings`; the cache misses it caused. */
async function missesOfOneJob(settings: Record<string, string>): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'delegate-events-cache-'));
  const metricsPort = await freePort();
  const server: DevServer = await startDevServer({ dbFile: join(dir, 'temporal.sqlite'), port: await freePort(), headless: true, settings, metricsPort });
  const workerConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  stops.push(async () => {
    await connection.close();
    await workerConnection.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const workers = await startBenchWorkers(workerConnection, {}, { code: readFileSync(inject('workflowBundleFile'), 'utf8') });
  stops.push(() => workers.stop());
  const client = new Client({ connection });
  const before = await misses(metricsPort);
  const jobId = `events-cache-${N}`;
  const input = echoJobInput(jobId, N, { maxParallel: N });
  input.spec.tasks = input.spec.tasks.map((t) => ({ ...t, question: `${t.question} ${'x'.repeat(1024)}` }));
  const result = await patientResult(
    await client.workflow.start(delegationJob, { taskQueue: DELEGATE_BENCH_QUEUE, workflowId: `job/${BENCH_TENANT}/${jobId}`, args: [input] }),
  );
  expect(result.metrics.subtasks).toBe(N);
  expect(result.status).toBe('success');
  return (await misses(metricsPort)) - before;
}

describe("the history service's events cache", () => {
  it('holds a 300-wide job with 1 KiB questions on Delegate’s dev server, and does not with the stock 512 KiB', { timeout: 120_000 }, async () => {
    const stock = Object.fromEntries(Object.entries(DEV_THROUGHPUT_SETTINGS).filter(([k]) => !CACHE_KEYS.includes(k)));
    expect(Object.keys(stock)).toHaveLength(Object.keys(DEV_THROUGHPUT_SETTINGS).length - CACHE_KEYS.length);
    expect(await missesOfOneJob(DEV_THROUGHPUT_SETTINGS)).toBe(0);
    // measured: 284 of 300 children read their start event back from the database
    expect(await missesOfOneJob(stock)).toBeGreaterThan(N / 3);
  });
});
