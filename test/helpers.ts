/** Shared test helpers: a client and an API app against the run's dev server, unique ids. */
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, inject, onTestFinished } from 'vitest';
import { loadRegistry, type AgentRegistry } from '../activities';
import { buildApp } from '../api/app';
import type { JobResult, JobSpec } from '../schemas';
import type { EngineLimits } from '../core/engine-limits';
import { openRecord, type RecordStore } from '../record';
import { loadConfig } from '../config/config';
import { loadTenants } from '../config/tenants';
import { authHeader, type TestTenant } from './tenants';
import { delegationJob } from '../workflows/delegation-job';
import { subtaskStatusQuery, type SubtaskStatus } from '../contracts/messages';

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

let recordPromise: Promise<RecordStore> | undefined;
/** The run's job record (the one the shared worker archives into), opened once per test file. */
export function testRecord(): Promise<RecordStore> {
  recordPromise ??= openRecord({ sqliteFile: inject('recordFile') }).then((r) => r.store);
  return recordPromise;
}

/** The test configuration: the run's server, task queue and tenants' keys file. */
export function testConfig(extra: Record<string, string | undefined> = {}) {
  return loadConfig({
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    DELEGATE_TASK_QUEUE: inject('taskQueue'),
    DELEGATE_API_KEYS_FILE: inject('keysFile'),
    DELEGATE_RECORD_FILE: inject('recordFile'),
    // webhook receivers in tests listen on loopback
    DELEGATE_WEBHOOK_ALLOW_LOOPBACK: 'true',
    LOG_LEVEL: 'silent',
    // the scout reads only a configured root: the repository, as the test worker's
    DELEGATE_SCOUT_ROOT: process.cwd(),
    ...extra,
  });
}

/**
 * The API app, not listening: drive it with `app.inject`. Requests carry the key of `as`
 * (tenant `default` unless said otherwise) unless they set their own `authorization`
 * header; `as: null` sends none. It reads the run's record and the run's agents file unless given
 * others. The caller closes it: prefer `useApp` or `appForTest`.
 */
export async function testApp(
  extra: Record<string, string | undefined> = {},
  as: TestTenant | null = 'default',
  record?: RecordStore,
  registry?: AgentRegistry,
): Promise<FastifyInstance> {
  const config = testConfig(extra);
  const app = await buildApp({
    config,
    client: await testClient(),
    registry: registry ?? loadRegistry(inject('agentsFile')),
    tenants: loadTenants(config),
    record: record ?? (await testRecord()),
  });
  await app.ready();
  if (as !== null) {
    const inject = app.inject.bind(app) as (opts: InjectOptions) => Promise<LightMyRequestResponse>;
    // every request of this app is the tenant's unless it says otherwise
    app.inject = ((opts: InjectOptions | string) => {
      const o: InjectOptions = typeof opts === 'string' ? { url: opts } : opts;
      return inject({ ...o, headers: { ...authHeader(as), ...o.headers } });
    }) as typeof app.inject;
  }
  return app;
}

/**
 * The API app (see `testApp`) listening on a free loopback port, for what needs a real socket
 * (SSE, HTTP clients, the CLI and MCP in other processes); its base URL. The caller closes it.
 */
export async function listeningApp(
  extra: Record<string, string | undefined> = {},
  as: TestTenant | null = 'default',
  record?: RecordStore,
  registry?: AgentRegistry,
): Promise<{ app: FastifyInstance; url: string }> {
  const app = await testApp(extra, as, record, registry);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

/** `listeningApp` for a whole file: started in beforeAll, closed in afterAll; read `url` and `app` inside a test. */
export function useListeningApp(
  extra: Record<string, string> = {},
  as: TestTenant | null = 'default',
): { readonly url: string; readonly app: FastifyInstance } {
  let listening: { app: FastifyInstance; url: string } | undefined;
  beforeAll(async () => {
    listening = await listeningApp(extra, as);
  });
  afterAll(async () => {
    await listening?.app.close();
  });
  const started = () => {
    if (!listening) throw new Error('useListeningApp: the app listens from beforeAll on; read it inside a test');
    return listening;
  };
  return {
    get url() {
      return started().url;
    },
    get app() {
      return started().app;
    },
  };
}

/**
 * The file's API app (see `testApp`): built before its tests, closed after them. Returns a
 * stand-in that forwards to the app once built, so tests write `app.inject(...)` as usual.
 */
export function useApp(extra: Record<string, string> = {}, as: TestTenant | null = 'default'): FastifyInstance {
  let app: FastifyInstance | undefined;
  beforeAll(async () => {
    app = await testApp(extra, as);
  });
  afterAll(async () => {
    await app?.close();
  });
  return new Proxy({} as FastifyInstance, {
    get(_, prop) {
      if (!app) throw new Error(`useApp: the app is built in beforeAll; read app.${String(prop)} inside a test`);
      const v: unknown = Reflect.get(app, prop, app);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(app) : v;
    },
  });
}

/** An API app for one test (its own config or tenant), closed when that test finishes, pass or fail. */
export async function appForTest(
  extra: Record<string, string> = {},
  as: TestTenant | null = 'default',
  record?: RecordStore,
): Promise<FastifyInstance> {
  const app = await testApp(extra, as, record);
  onTestFinished(() => app.close());
  return app;
}

/** Fast retries for tests: the backoff is not what is under test. */
export const fastRetry = { maxAttempts: 3, initialIntervalSeconds: 0.1, backoffCoefficient: 1, maximumIntervalSeconds: 0.2 };

/** Runs a job straight through Temporal (no API) and returns its result. */
export async function runJob(spec: JobSpec & { jobId: string }, opts: { maxDepth?: number } = {}): Promise<JobResult> {
  const client = await testClient();
  return client.workflow.execute(delegationJob, {
    taskQueue: inject('taskQueue'),
    workflowId: `job/test/${spec.jobId}`,
    args: [{ spec, tenant: 'test', maxDepth: opts.maxDepth ?? 3 }],
  });
}

/** How many workflows were started with the root job id `job/<tenant>/<jobId>` (0 when refused). */
export async function jobsStartedWithId(jobId: string, tenant = 'default'): Promise<number> {
  const client = await testClient();
  let n = 0;
  for await (const wf of client.workflow.list({ query: `WorkflowId = "job/${tenant}/${jobId}"` })) if (wf) n++;
  return n;
}

/**
 * Workflows with this job id once the job is listed: visibility is written after the start,
 * asynchronously, so a count taken at once may still be 0. For "exactly one job started".
 */
export async function jobsListedWithId(jobId: string, tenant = 'default'): Promise<number> {
  await pollUntil(async () => (await jobsStartedWithId(jobId, tenant)) > 0, `job ${jobId} listed`, 10_000).catch(() => undefined);
  return jobsStartedWithId(jobId, tenant);
}

/**
 * Polls `check` every 100 ms until it holds; after `timeoutMs` throws `what` (a function: the
 * message is built then, so it can say what was last seen) and how long it waited.
 */
export async function pollUntil(check: () => Promise<boolean>, what: string | (() => string), timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${typeof what === 'function' ? what() : what} (waited ${(timeoutMs / 1000).toFixed(0)} s)`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until subtask `taskId` of the default tenant's job `jobId` reports `phase`, or has taken `{ steps }` (its own status query). */
export async function waitForSubtask(jobId: string, taskId: string, until: string | { steps: number }): Promise<void> {
  const client = await testClient();
  let seen: SubtaskStatus | undefined;
  await pollUntil(
    async () => {
      seen = await client.workflow
        .getHandle(`job/default/${jobId}/${taskId}`)
        .query(subtaskStatusQuery)
        .catch(() => undefined);
      return typeof until === 'string' ? seen?.phase === until : (seen?.steps ?? 0) >= until.steps;
    },
    () =>
      `${taskId} never ${typeof until === 'string' ? until : `took ${until.steps} steps`} (last: ${seen ? `${seen.phase}, ${seen.steps} steps` : 'no answer to the status query'})`,
  );
}

/**
 * How long `finalResult` waits by default: under the project's test timeout, so a job that never
 * ends fails with its last status rather than vitest's bare timeout (the soak project sets more).
 */
const RESULT_WAIT_MS = Number(process.env.DELEGATE_TEST_RESULT_WAIT_MS ?? 170_000);

/** `GET /v1/jobs/:jobId/result`, waiting as long as the job runs (up to `timeoutMs`, then it throws with the last status); the final response. */
export async function finalResult(app: FastifyInstance, jobId: string, timeoutMs = RESULT_WAIT_MS) {
  const deadline = Date.now() + timeoutMs;
  const get = () =>
    app.inject({
      method: 'GET',
      url: `/v1/jobs/${jobId}/result?waitSeconds=${Math.max(1, Math.min(60, Math.ceil((deadline - Date.now()) / 1000)))}`,
    });
  let res = await get();
  while (res.statusCode === 202) {
    if (Date.now() >= deadline)
      throw new Error(`job ${jobId} still running after ${(timeoutMs / 1000).toFixed(0)} s; its last status: ${res.body.slice(0, 2000)}`);
    res = await get();
  }
  return res;
}

/** Submits a fan-out of `tasks` as `as` (201 expected) and waits up to 60 s for its result (200 expected). */
export async function submitFanout(app: FastifyInstance, prefix: string, tasks: object[], as: TestTenant = 'default') {
  const jobId = uniqueId(prefix);
  const res = await app.inject({ method: 'POST', url: '/v1/jobs', headers: authHeader(as), payload: { jobId, pattern: 'fanout', tasks } });
  expect(res.statusCode, res.body).toBe(201);
  const result = await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}/result?waitSeconds=60`, headers: authHeader(as) });
  expect(result.statusCode, result.body).toBe(200);
  return { jobId, result: result.json() as JobResult };
}

/**
 * Starts a job straight through Temporal as tenant `tenant` (`job/<tenant>/<jobId>`), with
 * engine-limit knobs, its steps on `agentQueue` (a tenant's lane, as the API sets it) when given; its handle.
 */
export async function startJob(spec: JobSpec & { jobId: string }, limits: EngineLimits = {}, tenant = 'test', agentQueue?: string) {
  const client = await testClient();
  return client.workflow.start(delegationJob, {
    taskQueue: inject('taskQueue'),
    workflowId: `job/${tenant}/${spec.jobId}`,
    args: [{ spec, tenant, maxDepth: 3, limits, ...(agentQueue ? { agentQueue } : {}) }],
  });
}

/** Every run of a workflow id (a continue-as-new chain), oldest first. */
export async function runsOf(workflowId: string) {
  const client = await testClient();
  const runs = [];
  for await (const wf of client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) runs.push(wf);
  return runs.sort((a, b) => a.startTime.getTime() - b.startTime.getTime());
}

/** Deletes closed workflows through Temporal's API, as retention does, and waits until they are gone. */
export async function deleteLikeRetention(workflowIds: string[]): Promise<void> {
  const client = await testClient();
  for (const workflowId of workflowIds) {
    await client.workflowService.deleteWorkflowExecution({ namespace: 'default', workflowExecution: { workflowId } });
  }
  for (const workflowId of workflowIds) {
    await pollUntil(
      () =>
        client.workflow
          .getHandle(workflowId)
          .describe()
          .then(
            () => false,
            (err: Error) => err.name === 'WorkflowNotFoundError',
          ),
      `workflow ${workflowId} still exists after its deletion`,
      60_000,
    );
  }
}
