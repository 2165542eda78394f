/**
 * The typed client end to end, against the API listening on real loopback HTTP: submit,
 * get, waitForResult, list, agents, stop and cancel, budget top-ups, refusals as
 * DelegateProblemError with field paths, idempotent resubmission, retries only where
 * idempotent, reports, and the live event stream.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { createDelegateClient, DelegateNetworkError, DelegateProblemError, type JobEvent, type JobSpecInput } from 'delegate/client';
import { jobsListedWithId, listeningApp, pollUntil, uniqueId, waitForSubtask } from '../helpers';
import { TEST_TENANTS } from '../tenants';

const { app, url: baseUrl }: { app: FastifyInstance; url: string } = await listeningApp({}, null);
afterAll(() => app.close());
const delegate = createDelegateClient({ baseUrl, apiKey: TEST_TENANTS.default.key });
const fanout = (jobId: string, suite: string): JobSpecInput => ({
  jobId,
  pattern: 'fanout',
  objective: 'client end to end',
  tasks: [
    { id: 'a', question: 'What is A?', agent: 'echo' },
    { id: 'b', question: 'What is B?', agent: 'sim', params: { answer: { b: 2 }, costUsd: 0.01, tokens: 100, steps: 2 } },
    { id: 'c', question: 'What is C?', agent: { capability: 'sim' } },
  ],
  labels: { suite },
});
const slow = (jobId: string): JobSpecInput => ({
  jobId,
  pattern: 'fanout',
  tasks: [{ id: 's', question: 'slow', agent: 'sim', params: { steps: 1000, latencyMs: 20, costUsd: 0.001 } }],
});

describe('typed client', () => {
  it('submits a fan-out, reads it while and after it runs, lists it, and finds it in the record', async () => {
    const suite = uniqueId('suite');
    const jobId = uniqueId('cfan');
    const since = new Date(Date.now() - 1000);
    const accepted = await delegate.submit(fanout(jobId, suite));
    expect(accepted).toMatchObject({ jobId, workflowId: `job/default/${jobId}`, status: 'running' });
    const view = await delegate.get(jobId);
    expect(view.jobId).toBe(jobId);

    const result = await delegate.waitForResult(jobId, { timeoutSeconds: 120 });
    expect(result.status).toBe('success');
    expect(result.results.map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect(result.output).toEqual({ a: 'What is A?', b: { b: 2 }, c: 'What is C?' });
    expect(result.metrics).toMatchObject({ subtasks: 3, costUsd: 0.02, tokens: 200 });
    expect(await delegate.get(jobId)).toMatchObject({ state: 'completed', status: 'success', progress: { total: 3, completed: 3 } });

    const listed = await delegate.list({ labels: { suite }, status: 'success' });
    expect(listed.jobs.map((j) => j.jobId)).toEqual([jobId]);
    expect(listed.nextPageToken).toBeNull();
    const all: string[] = [];
    for await (const j of delegate.listAll({ labels: { suite }, pageSize: 1 })) all.push(j.jobId);
    expect(all).toEqual([jobId]);
    expect(await delegate.list({ labels: { suite }, status: 'failure' })).toEqual({ jobs: [], nextPageToken: null });

    const page = await delegate.reports({ labels: { suite } });
    expect(page.reports.map((r) => [r.jobId, r.status, r.subtasks])).toEqual([[jobId, 'success', 3]]);
    expect(page.nextPageToken).toBeNull();
    const summary = await delegate.reportsSummary({ from: since, top: 100 });
    expect(summary.jobs).toBeGreaterThanOrEqual(1);
    expect(summary.topLabels).toContainEqual({ label: `suite=${suite}`, jobs: 1 });
  });

  it('resubmits idempotently: the same jobId or idempotency key answers the existing job, never a second one', async () => {
    const jobId = uniqueId('cidem');
    const spec = fanout(jobId, 'idem');
    const [first, again] = [await delegate.submit(spec), await delegate.submit(spec)];
    expect([first.status, again.status]).toEqual(['running', 'existing']);
    const key = uniqueId('ckey');
    const { jobId: _drop, ...noId } = spec;
    const k1 = await delegate.submit(noId, { idempotencyKey: key });
    const k2 = await delegate.submit(noId, { idempotencyKey: key });
    expect([k1.jobId, k2.jobId, k1.status, k2.status]).toEqual([key, key, 'running', 'existing']);
    expect(await jobsListedWithId(jobId)).toBe(1);
    expect(await jobsListedWithId(key)).toBe(1);
    await delegate.waitForResult(key);
  });

  it('lists the agents', async () => {
    const agents = await delegate.agents();
    expect(agents.map((a) => a.id)).toEqual(expect.arrayContaining(['echo', 'sim']));
    expect(agents.find((a) => a.id === 'sim')?.capabilities).toContain('sim');
  });

  it('surfaces refusals as DelegateProblemError with field paths: 400, 422, 401, 404', async () => {
    const invalid = await delegate
      .submit({ pattern: 'fanout', tasks: [{ id: 'x', question: '', agent: 'echo' }] })
      .catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(DelegateProblemError);
    expect((invalid as DelegateProblemError).status).toBe(400);
    expect((invalid as DelegateProblemError).errors.map((e) => e.path)).toContain('body.tasks[0].question');

    const unrunnable = await delegate
      .submit({ pattern: 'fanout', tasks: [{ id: 'x', question: 'q', agent: 'no-such-agent' }] })
      .catch((e: unknown) => e);
    expect(unrunnable).toBeInstanceOf(DelegateProblemError);
    expect((unrunnable as DelegateProblemError).problem).toMatchObject({ status: 422, title: 'Job cannot run' });
    expect((unrunnable as DelegateProblemError).errors).toEqual([expect.objectContaining({ path: 'body.tasks[0].agent' })]);

    const stranger = createDelegateClient({ baseUrl, apiKey: 'not-a-key-0123456789' });
    const denied = await stranger.agents().catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(DelegateProblemError);
    expect((denied as DelegateProblemError).status).toBe(401);

    const missing = await delegate.get(uniqueId('nojob')).catch((e: unknown) => e);
    expect((missing as DelegateProblemError).status).toBe(404);
  });

  it('stops one slow job (partial, work kept) and cancels another', async () => {
    const stopId = uniqueId('cstop');
    const cancelId = uniqueId('ccancel');
    await delegate.submit(slow(stopId));
    await delegate.submit(slow(cancelId));
    await waitForSubtask(stopId, 's', 'running');
    await waitForSubtask(cancelId, 's', 'running');
    expect(await delegate.stop(stopId, { reason: 'enough' })).toMatchObject({ jobId: stopId, status: 'stopping' });
    expect(await delegate.cancel(cancelId)).toMatchObject({ jobId: cancelId, status: 'cancelling' });
    const stopped = await delegate.waitForResult(stopId);
    expect(stopped.results[0]).toMatchObject({ status: 'partial', failureReason: 'stopped' });
    expect(stopped.results[0].metrics.steps).toBeGreaterThan(0);
    await pollUntil(async () => (await delegate.get(cancelId)).state !== 'running', 'the cancelled job still runs', 60_000);
    const cancelled = await delegate.get(cancelId);
    expect(cancelled.state === 'cancelled' || cancelled.status === 'cancelled').toBe(true);
  });

  it('tops up a job budget and a subtask budget while they wait for one', async () => {
    const jobId = uniqueId('ctop');
    await delegate.submit({
      jobId,
      pattern: 'fanout',
      budget: { costUsd: 0.02 },
      tasks: [
        { id: 'w', question: 'four steps', agent: 'sim', params: { steps: 4, costUsd: 0.01, answer: 'done' }, budgetWaitSeconds: 60 },
      ],
    });
    await waitForSubtask(jobId, 'w', 'waiting_for_budget');
    const top = await delegate.addBudget(jobId, { costUsd: 0.03 });
    expect(top.jobId).toBe(jobId);
    expect(top.ledger.costUsd.limit).toBeCloseTo(0.05, 10);
    expect((await delegate.waitForResult(jobId)).results[0]).toMatchObject({ status: 'success', data: 'done' });

    const subId = uniqueId('csub');
    await delegate.submit({
      jobId: subId,
      pattern: 'fanout',
      budget: { costUsd: 0.05 },
      tasks: [
        {
          id: 'w',
          question: 'four steps',
          agent: 'sim',
          params: { steps: 4, costUsd: 0.01 },
          budget: { costUsd: 0.01 },
          budgetWaitSeconds: 60,
        },
      ],
    });
    await waitForSubtask(subId, 'w', 'waiting_for_budget');
    const nope = await delegate.addSubtaskBudget(subId, 'nope', { costUsd: 0.01 }).catch((e: unknown) => e);
    expect((nope as DelegateProblemError).status).toBe(404);
    const granted = await delegate.addSubtaskBudget(subId, 'w', { costUsd: 1 });
    expect(granted.granted.costUsd).toBeCloseTo(0.04, 10);
    expect((await delegate.waitForResult(subId)).results[0]).toMatchObject({ status: 'success', metrics: { steps: 4 } });
  });

  it('retries a GET after a network error, but never a stop, and not a submission without an id', async () => {
    let calls = 0;
    let failNext = 0;
    const flaky: typeof fetch = async (input, init) => {
      calls++;
      if (failNext > 0) {
        failNext--;
        throw new TypeError('fetch failed (test)');
      }
      return fetch(input, init);
    };
    const client = createDelegateClient({ baseUrl, apiKey: TEST_TENANTS.default.key, fetch: flaky, retries: 2 });
    failNext = 1;
    expect((await client.agents()).length).toBeGreaterThan(0);
    expect(calls).toBe(2);

    calls = 0;
    failNext = 1;
    const stop = await client.stop(uniqueId('nojob')).catch((e: unknown) => e);
    expect(stop).toBeInstanceOf(DelegateNetworkError);
    expect(calls).toBe(1);

    calls = 0;
    failNext = 1;
    const { jobId: _drop, ...noId } = fanout('x', 'retry');
    expect(await client.submit(noId).catch((e: unknown) => e)).toBeInstanceOf(DelegateNetworkError);
    expect(calls).toBe(1);

    // with a job id the submission is idempotent: retried, one job
    calls = 0;
    failNext = 1;
    const jobId = uniqueId('cretry');
    expect((await client.submit(fanout(jobId, 'retry'))).jobId).toBe(jobId);
    expect(calls).toBe(2);
    expect(await jobsListedWithId(jobId)).toBe(1);
    await client.waitForResult(jobId);
  });

  it('waitForResult gives up after timeoutSeconds with the job still running', async () => {
    const jobId = uniqueId('cwait');
    await delegate.submit(slow(jobId));
    const err = await delegate.waitForResult(jobId, { timeoutSeconds: 0.5 }).catch((e: unknown) => e);
    expect((err as Error).name).toBe('DelegateTimeoutError');
    await delegate.cancel(jobId);
  });

  it('events(): every event of a fan-out in order, ending with job.finished; resumes after a seq', async () => {
    const jobId = uniqueId('cev');
    await delegate.submit(fanout(jobId, 'events'));
    const all: JobEvent[] = [];
    for await (const e of delegate.events(jobId)) all.push(e);
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
    expect(all[0].type).toBe('job.started');
    expect(all.at(-1)).toMatchObject({ type: 'job.finished', data: { status: 'success' } });
    const finished = all.filter((e) => e.type === 'subtask.finished').map((e) => e.data.taskId);
    expect(finished.sort()).toEqual(['a', 'b', 'c']);
    expect(all.filter((e) => e.type === 'subtask.step' && e.data.taskId === 'b')).toHaveLength(2);

    // a finished job replays and closes; `after` skips what was seen
    const rest: number[] = [];
    for await (const e of delegate.events(jobId, { after: 2 })) rest.push(e.seq);
    expect(rest).toEqual(all.slice(2).map((e) => e.seq));
    const unknown = await delegate
      .events(uniqueId('nojob'))
      .next()
      .catch((e: unknown) => e);
    expect((unknown as DelegateProblemError).status).toBe(404);
  });
});
