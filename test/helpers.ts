/** Shared test helpers: a client and an API app against the run's dev server, unique ids. */
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { inject } from 'vitest';
import { loadRegistry } from '../activities';
import { buildApp } from '../api/app';
import type { JobResult, JobSpec } from '../schemas';
import { loadConfig } from '../workers/config';

let counter = 0;
/** An id unique across test files and runs. */
export function uniqueId(prefix: string): string {
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${++counter}`;
}

let clientPromise: Promise<Client> | undefined;
/** A Temporal client connected to the test server. */
export function testClient(): Promise<Client> {
  clientPromise ??= Connection.connect({ address: inject('temporalAddress') }).then((connection) => new Client({ connection }));
  return clientPromise;
}

/** The test configuration: the run's server and task queue. */
export function testConfig(extra: Record<string, string> = {}) {
  return loadConfig({ TEMPORAL_ADDRESS: inject('temporalAddress'), DELEGATE_TASK_QUEUE: inject('taskQueue'), LOG_LEVEL: 'silent', ...extra });
}

/** The API app, not listening: drive it with `app.inject`. */
export async function testApp(extra: Record<string, string> = {}): Promise<FastifyInstance> {
  const app = await buildApp({ config: testConfig(extra), client: await testClient(), registry: loadRegistry(inject('agentsFile')) });
  await app.ready();
  return app;
}

/** Fast retries for tests: the backoff is not what is under test. */
export const fastRetry = { maxAttempts: 3, initialIntervalSeconds: 0.1, backoffCoefficient: 1, maximumIntervalSeconds: 0.2 };

/** Runs a job straight through Temporal (no API) and returns its result. */
export async function runJob(spec: JobSpec & { jobId: string }, opts: { maxDepth?: number } = {}): Promise<JobResult> {
  const client = await testClient();
  return client.workflow.execute('delegationJob', {
    taskQueue: inject('taskQueue'),
    workflowId: `job/test/${spec.jobId}`,
    args: [{ spec, tenant: 'test', maxDepth: opts.maxDepth ?? 3 }],
  }) as Promise<JobResult>;
}

/** How many workflows were started with the root job id `job/default/<jobId>` (0 when refused). */
export async function jobsStartedWithId(jobId: string): Promise<number> {
  const client = await testClient();
  let n = 0;
  for await (const wf of client.workflow.list({ query: `WorkflowId = "job/default/${jobId}"` })) if (wf) n++;
  return n;
}

/** Polls `check` every 100 ms until it holds; throws `what` after `timeoutMs`. */
export async function pollUntil(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(what);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `GET /v1/jobs/:jobId/result`, waiting as long as the job runs; the final response. */
export async function finalResult(app: FastifyInstance, jobId: string) {
  let res = await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}/result?waitSeconds=60` });
  while (res.statusCode === 202) res = await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}/result?waitSeconds=60` });
  return res;
}
