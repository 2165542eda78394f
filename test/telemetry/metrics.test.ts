/**
 * /metrics on both processes, over real HTTP: a job submitted to the API and run by a worker
 * of this file moves the API's route latency and running-jobs series and the worker's step,
 * retry and breaker series, and the worker's endpoint also carries the SDK core's temporal_*.
 * (Vitest runs each file in its own process: this one installs its own Temporal Runtime.)
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadRegistry } from '../../activities';
import type { JobSpec } from '../../schemas';
import { createLogger } from '../../telemetry/logging';
import { createWorkerMetrics } from '../../telemetry/metrics';
import { serveMetrics, type MetricsServer } from '../../telemetry/metrics-server';
import { installWorkerRuntime } from '../../telemetry/worker-runtime';
import { agentQueueFor } from '../../core/names';
import { startDedicatedWorker } from '../dedicated-worker';
import { appForTest, fastRetry, finalResult, listeningApp, pollUntil, uniqueId } from '../helpers';
import { authHeader } from '../tenants';
import { hasSeries, scrape, sumOf } from './scrape';

let worker: Awaited<ReturnType<typeof startDedicatedWorker>>;
let workerMetrics: MetricsServer;
let api: { app: FastifyInstance; url: string };
const metrics = createWorkerMetrics();

beforeAll(async () => {
  // before the dedicated worker's connection: the Runtime is fixed when the first one is made
  const { coreMetricsUrl } = await installWorkerRuntime({ log: createLogger({ level: 'silent', proc: 'worker' }) });
  workerMetrics = await serveMetrics({ registry: metrics.registry, host: '127.0.0.1', port: 0, coreMetricsUrl });
  worker = await startDedicatedWorker({ registry: loadRegistry(inject('agentsFile')), lanes: ['default'], metrics });
  api = await listeningApp({ DELEGATE_TASK_QUEUE: worker.taskQueue });
});
afterAll(async () => {
  await api?.app.close();
  await worker?.stop();
  await workerMetrics?.close();
});

describe('/metrics after a job', () => {
  it('moves the API and worker counters, and the worker serves the SDK runtime metrics too', async () => {
    const jobId = uniqueId('metrics');
    const spec: JobSpec = {
      jobId,
      pattern: 'fanout',
      tasks: [
        // answers 503 to its first attempt: one failed step, one retry
        { id: 'flaky', question: 'count these words', agent: 'flaky-http', retry: fastRetry },
        { id: 'slow', question: 'take a moment', agent: 'sim', params: { latencyMs: 7000 } },
      ],
    };
    const apiBefore = await scrape(`${api.url}/metrics`);
    const workerBefore = await scrape(workerMetrics.url);

    const submitted = await fetch(`${api.url}/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authHeader('default') },
      body: JSON.stringify(spec),
    });
    expect(submitted.status).toBe(201);
    // counted in Temporal's visibility while it runs, once the first scrape's cached count (5 s) is stale; other files' jobs of the tenant may add to it
    await pollUntil(
      async () => sumOf(await scrape(`${api.url}/metrics`), 'delegate_jobs_running', { tenant: 'default' }) >= 1,
      'the running job was never counted',
    );
    expect((await finalResult(api.app, jobId)).statusCode).toBe(200);

    const moved = (before: string, after: string, name: string, labels: Record<string, string>) =>
      sumOf(after, name, labels) - sumOf(before, name, labels);
    const apiAfter = await scrape(`${api.url}/metrics`);
    // what workflows report reaches the worker through a sink, after it reports the task: the client may hear first
    let workerAfter = '';
    await pollUntil(
      async () => {
        workerAfter = await scrape(workerMetrics.url);
        return moved(workerBefore, workerAfter, 'delegate_jobs_total', { pattern: 'fanout', status: 'success', level: 'root' }) >= 1;
      },
      'the finished job was never counted',
      10_000,
    );

    // the API: latency by route pattern (never the job's own path), the process's runtime
    expect(
      moved(apiBefore, apiAfter, 'delegate_http_request_duration_seconds_count', { method: 'POST', route: '/v1/jobs', status_code: '201' }),
    ).toBe(1);
    expect(
      moved(apiBefore, apiAfter, 'delegate_http_request_duration_seconds_count', {
        method: 'GET',
        route: '/v1/jobs/:jobId/result',
        status_code: '200',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(apiAfter).not.toContain(jobId);
    expect(hasSeries(apiAfter, 'process_resident_memory_bytes')).toBe(true);

    // the worker: steps by outcome, the retry, the breaker closed again after the retry's success
    expect(moved(workerBefore, workerAfter, 'delegate_steps_total', { agent: 'flaky-http', outcome: 'error' })).toBe(1);
    expect(moved(workerBefore, workerAfter, 'delegate_steps_total', { agent: 'flaky-http', outcome: 'ok' })).toBe(1);
    expect(moved(workerBefore, workerAfter, 'delegate_steps_total', { agent: 'sim', outcome: 'ok' })).toBe(1);
    expect(moved(workerBefore, workerAfter, 'delegate_step_retries_total', { agent: 'flaky-http' })).toBe(1);
    expect(moved(workerBefore, workerAfter, 'delegate_step_duration_seconds_count', { agent: 'sim' })).toBe(1);
    // the 7 s step, as the timers measured it (they may read a microsecond short)
    expect(sumOf(workerAfter, 'delegate_step_duration_seconds_sum', { agent: 'sim' })).toBeGreaterThanOrEqual(6.99);
    expect(workerAfter).toMatch(/^delegate_circuit_breaker_state\{agent="flaky-http"\} 0$/m);
    // what the workflows reported: each subtask by agent and outcome, its spend, the job
    expect(
      moved(workerBefore, workerAfter, 'delegate_subtasks_total', {
        agent: 'flaky-http',
        status: 'success',
        failure_reason: 'none',
        tenant: 'default',
      }),
    ).toBe(1);
    expect(moved(workerBefore, workerAfter, 'delegate_subtasks_total', { agent: 'sim', status: 'success' })).toBe(1);
    expect(moved(workerBefore, workerAfter, 'delegate_spend_latency_seconds_total', { agent: 'sim' })).toBeGreaterThanOrEqual(7);
    expect(moved(workerBefore, workerAfter, 'delegate_jobs_total', { pattern: 'fanout', status: 'success', level: 'root' })).toBe(1);
    // and the SDK core's own series, from the same endpoint: the steps ran on the tenant's lane
    const lane = agentQueueFor(worker.taskQueue, 'default');
    expect(
      moved(workerBefore, workerAfter, 'temporal_activity_execution_latency_seconds_count', {
        activity_type: 'agentStep',
        task_queue: lane,
      }),
    ).toBe(3);
    // Prometheus naming (PROMETHEUS_NAMING): counters end in _total, durations are seconds
    expect(hasSeries(workerAfter, 'temporal_workflow_completed_total')).toBe(true);
    expect(
      sumOf(workerAfter, 'temporal_activity_execution_latency_seconds_sum', { activity_type: 'agentStep', task_queue: lane }),
    ).toBeGreaterThan(6);
    // the 7 s step in seconds, not milliseconds
    expect(
      sumOf(workerAfter, 'temporal_activity_execution_latency_seconds_sum', { activity_type: 'agentStep', task_queue: lane }),
    ).toBeLessThan(60);
    expect(hasSeries(workerAfter, 'temporal_activity_execution_latency_count')).toBe(false);
    expect(hasSeries(workerAfter, 'nodejs_eventloop_lag_seconds')).toBe(true);
  });
});

describe('who may scrape', () => {
  it('the API: open by default; with DELEGATE_METRICS_TOKEN, that bearer token and not a tenant key', async () => {
    const token = 'metrics-token-0123456789';
    const app = await appForTest({ DELEGATE_METRICS_TOKEN: token }, null);
    expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/metrics', headers: authHeader('default') })).statusCode).toBe(401);
    const ok = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const open = await appForTest({}, null);
    expect((await open.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
  });

  it('the worker: the same token rule', async () => {
    const token = 'metrics-token-0123456789';
    const guarded = await serveMetrics({ registry: createWorkerMetrics().registry, host: '127.0.0.1', port: 0, token });
    try {
      expect((await fetch(guarded.url)).status).toBe(401);
      expect((await fetch(guarded.url, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      expect((await fetch(guarded.url.replace('/metrics', '/other'))).status).toBe(404);
    } finally {
      await guarded.close();
    }
  });
});
