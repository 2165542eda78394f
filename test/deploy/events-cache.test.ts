/**
 * The history service reads back the events it needs again (a parent's start-child events when it
 * starts each child, a child's start and close events) from a cache, 512 KiB per shard by default:
 * the dev server has one shard, so one job of a few hundred subtasks with real inputs outgrew it,
 * and each miss read and decoded the job's whole batch of start events from the database again.
 * Delegate's servers (DEV_THROUGHPUT_SETTINGS, deploy/temporal-dynamicconfig.yaml) keep 64 MiB per
 * host. Here one job of 300 subtasks with 1 KiB questions, all started at once, runs on a dev
 * server with Delegate's settings and on one with the stock cache, and the server's own metrics
 * count the misses.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { BENCH_TENANT, DELEGATE_BENCH_QUEUE, echoJobInput, patientResult, startBenchWorkers } from '../../bench/delegate-runs';
import { startTemporal } from '../../bench/lib';
import { DEV_THROUGHPUT_SETTINGS, EVENTS_CACHE_SETTINGS, freePort } from '../../scripts/dev-server';
import { delegationJob } from '../../workflows/delegation-job';
import { sharedWorkflowBundle } from '../dedicated-worker';
import { scrape, sumOf } from '../telemetry/scrape';

const N = 300;
const CACHE_KEYS = Object.keys(EVENTS_CACHE_SETTINGS);
const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
});

/** One N-wide echo job with 1 KiB questions on a fresh dev server with `settings`; the cache misses it caused (the server's metrics). */
async function missesOfOneJob(settings: Record<string, string>): Promise<number> {
  const metricsPort = await freePort();
  const misses = async () =>
    sumOf(await scrape(`http://127.0.0.1:${metricsPort}/metrics`), 'cache_miss', { cache_type: 'events', operation: 'EventsCacheGetEvent' });
  const t = await startTemporal('events-cache', settings, metricsPort);
  stops.push(() => t.close());
  const workers = await startBenchWorkers(t.workerConnection, {}, sharedWorkflowBundle());
  stops.push(() => workers.stop());
  const before = await misses();
  const jobId = `events-cache-${N}`;
  const input = echoJobInput(jobId, N, { maxParallel: N });
  input.spec.tasks = input.spec.tasks.map((task) => ({ ...task, question: `${task.question} ${'x'.repeat(1024)}` }));
  const result = await patientResult(
    await t.client.workflow.start(delegationJob, { taskQueue: DELEGATE_BENCH_QUEUE, workflowId: `job/${BENCH_TENANT}/${jobId}`, args: [input] }),
  );
  expect(result.metrics.subtasks).toBe(N);
  expect(result.status).toBe('success');
  return (await misses()) - before;
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
