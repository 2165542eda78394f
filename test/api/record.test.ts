/**
 * The durable record, end to end on both stores: a job's reads, idempotency and controls
 * after Temporal deleted its workflows (what retention does); the whole result of a job that
 * spilled into its children; jobs started straight through Temporal; prune through Temporal.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadRegistry } from '../../activities';
import { wholeResult } from '../../activities/whole-result';
import type { JobResult, JobSpec, JobView } from '../../schemas';
import { ensurePruneSchedule, PRUNE_SCHEDULE_ID, pruneScheduleId, retireLegacyPruneSchedule } from '../../workers/prune-schedule';
import { delegationJob } from '../../workflows/delegation-job';
import { pruneArchive } from '../../workflows/prune-archive';
import { startDedicatedWorker } from '../dedicated-worker';
import { deleteLikeRetention, finalResult, jobsStartedWithId, testApp, testClient, testConfig, uniqueId } from '../helpers';
import { openFreshRecord, RECORD_STORES } from '../record-stores';

describe.each(RECORD_STORES)('the job record on %s', (kind) => {
  const record = openFreshRecord(kind);
  let worker: Awaited<ReturnType<typeof startDedicatedWorker>>;
  let app: FastifyInstance;
  let alpha: FastifyInstance;
  beforeAll(async () => {
    worker = await startDedicatedWorker({
      record: record.store,
      registry: loadRegistry(inject('agentsFile')),
      lanes: ['default', 'alpha'],
    });
    app = await testApp({ DELEGATE_TASK_QUEUE: worker.taskQueue }, 'default', record.store);
    alpha = await testApp({ DELEGATE_TASK_QUEUE: worker.taskQueue }, 'alpha', record.store);
  });
  afterAll(async () => {
    await app?.close();
    await alpha?.close();
    await worker?.stop();
  });

  const reads = async (jobId: string) => {
    const get = async (url: string) => {
      const res = await app.inject({ method: 'GET', url });
      return { code: res.statusCode, body: res.json() as unknown };
    };
    return {
      view: await get(`/v1/jobs/${jobId}`),
      result: await get(`/v1/jobs/${jobId}/result`),
      list: await get('/v1/jobs?label=feature=card-retries&limit=5'),
      reports: await get(`/v1/reports?label=feature=card-retries&q=processors+retr`),
    };
  };

  it('answers every read route, resubmission and control the same after Temporal deleted the job', async () => {
    const jobId = uniqueId('kept');
    const spec: JobSpec = {
      jobId,
      pattern: 'fanout',
      objective: 'Which card processors retry failed charges?',
      labels: { feature: 'card-retries', team: 'payments' },
      tasks: [1, 2, 3].map((i) => ({
        id: `t${i}`,
        question: `Does processor ${i} retry a declined charge?`,
        agent: 'sim',
        params: { answer: { i }, latencyMs: 300, costUsd: 0.011 * i },
      })),
    };
    expect((await app.inject({ method: 'POST', url: '/v1/jobs', payload: spec })).statusCode).toBe(201);
    // while it runs, the view comes from Temporal
    const live = (await app.inject({ method: 'GET', url: `/v1/jobs/${jobId}` })).json() as JobView;
    expect(live.state).toBe('running');
    expect((await finalResult(app, jobId)).statusCode).toBe(200);

    const before = await reads(jobId);
    expect(before.view.code).toBe(200);
    expect((before.view.body as JobView).state).toBe('completed');
    // the record holds what Temporal holds: the same result, the same start
    const client = await testClient();
    const handle = client.workflow.getHandle<typeof delegationJob>(`job/default/${jobId}`);
    expect(before.result.body).toEqual(await wholeResult(client, await handle.result()));
    const d = await handle.describe();
    expect((before.view.body as JobView).startedAt).toBe(d.startTime.toISOString());
    expect(Date.parse((before.view.body as JobView).closedAt!)).toBeLessThanOrEqual(d.closeTime!.getTime());
    expect((before.list.body as { jobs: { jobId: string }[] }).jobs.map((j) => j.jobId)).toContain(jobId);
    expect((before.reports.body as { reports: { jobId: string }[] }).reports.map((r) => r.jobId)).toEqual([jobId]);

    await deleteLikeRetention([d.workflowId, ...(before.view.body as JobView).subtasks!.map((s) => s.workflowId)]);
    expect(await reads(jobId)).toEqual(before);

    // the job id stays taken: the same spec is the same job, another spec a conflict; nothing starts again
    const again = await app.inject({ method: 'POST', url: '/v1/jobs', payload: spec });
    expect(again.statusCode).toBe(200);
    expect(again.json().status).toBe('existing');
    const { jobId: _omit, ...noId } = spec;
    expect((await app.inject({ method: 'POST', url: '/v1/jobs', headers: { 'idempotency-key': jobId }, payload: noId })).statusCode).toBe(
      200,
    );
    const other = await app.inject({ method: 'POST', url: '/v1/jobs', payload: { ...spec, objective: 'something else' } });
    expect(other.statusCode).toBe(409);
    expect(await jobsStartedWithId(jobId)).toBe(0);
    for (const verb of ['stop', 'cancel'])
      expect((await app.inject({ method: 'POST', url: `/v1/jobs/${jobId}/${verb}`, payload: {} })).statusCode).toBe(409);
    expect((await app.inject({ method: 'POST', url: `/v1/jobs/${jobId}/budget`, payload: { add: { costUsd: 1 } } })).statusCode).toBe(409);
    // another tenant sees none of it
    expect((await alpha.inject({ method: 'GET', url: `/v1/jobs/${jobId}` })).statusCode).toBe(404);
    expect((await alpha.inject({ method: 'GET', url: '/v1/reports?label=feature=card-retries' })).json().reports).toEqual([]);
  });

  it('keeps the whole result of a job whose results stay in its children', async () => {
    const jobId = uniqueId('spilled');
    const blob = 'x'.repeat(240_000);
    const tasks = Array.from({ length: 7 }, (_, i) => ({ id: `b${i}`, question: `q${i}`, agent: 'sim', params: { answer: { i, blob } } }));
    expect((await app.inject({ method: 'POST', url: '/v1/jobs', payload: { jobId, pattern: 'fanout', tasks } })).statusCode).toBe(201);
    const res = await finalResult(app, jobId);
    const kept = await record.store.get('default', jobId);
    expect(kept?.result.batches?.length).toBe(7);
    expect(kept?.result.results.map((r) => (r.data as { i: number }).i)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(kept?.result).toEqual(res.json());
  });

  it('archives a job started straight through Temporal, once, with its nested jobs inside', async () => {
    const jobId = uniqueId('direct');
    const spec = {
      jobId,
      pattern: 'pipeline' as const,
      tasks: [
        { id: 'outer', question: 'first stage', agent: 'sim' },
        {
          id: 'inner',
          question: 'a nested job',
          job: { pattern: 'fanout' as const, tasks: [{ id: 'n1', question: 'nested question', agent: 'sim' }] },
        },
      ],
    };
    const client = await testClient();
    const result: JobResult = await client.workflow.execute(delegationJob, {
      taskQueue: worker.taskQueue,
      workflowId: `job/direct/${jobId}`,
      args: [{ spec, tenant: 'direct' }],
    });
    const kept = await record.store.get('direct', jobId);
    expect(kept?.result).toEqual(result);
    expect(kept?.specHash).toBeNull();
    // the nested job is part of its root's record, not a record of its own
    const rows = await record.db.db.selectFrom('jobs').select('job_id').where('tenant', '=', 'direct').execute();
    expect(rows.map((r) => r.job_id)).toEqual([jobId]);
    expect((await record.store.search('direct', { text: 'nested question', limit: 5 })).reports.map((r) => r.jobId)).toEqual([jobId]);
  });

  it("sums up the tenant's jobs as they ran, and refuses a bad cursor or period with the field's path", async () => {
    const rows = await record.db.db.selectFrom('jobs').select('job_id').where('tenant', '=', 'default').execute();
    const results = await Promise.all(rows.map(async (r) => (await record.store.get('default', r.job_id))!.result));
    const micros = (xs: number[]) => xs.reduce((a, x) => a + Math.round(x * 1e6), 0);
    const summary = (await app.inject({ method: 'GET', url: '/v1/reports/summary' })).json();
    expect(summary).toMatchObject({
      jobs: results.length,
      subtasks: results.reduce((n, r) => n + r.results.length, 0),
      spend: { costUsd: micros(results.map((r) => r.metrics.costUsd)) / 1e6 },
      byAgent: [{ agentId: 'sim', subtasks: results.reduce((n, r) => n + r.results.length, 0) }],
      topLabels: [
        { label: 'feature=card-retries', jobs: 1 },
        { label: 'team=payments', jobs: 1 },
      ],
    });
    expect(summary.spend.costUsd).toBe(0.066);
    expect((await alpha.inject({ method: 'GET', url: '/v1/reports/summary' })).json()).toMatchObject({ jobs: 0, subtasks: 0, byAgent: [] });
    const bad = async (query: string, path: string) => {
      const res = await app.inject({ method: 'GET', url: `/v1/reports${query}` });
      expect(res.statusCode, query).toBe(400);
      expect(JSON.stringify(res.json()), query).toContain(path);
    };
    await bad('?cursor=not-a-cursor', 'cursor');
    await bad('?from=2026-12-01T00:00:00Z&to=2026-11-01T00:00:00Z', 'querystring.from');
    await bad('/summary?from=yesterday', 'from');
    await bad('?status=done', 'status');
  });

  it('prunes through Temporal: a dry run lists, a run deletes all but keep-labelled records', async () => {
    const client = await testClient();
    const run = (dryRun: boolean) =>
      client.workflow.execute(pruneArchive, {
        taskQueue: worker.taskQueue,
        workflowId: uniqueId('prune'),
        args: [{ maxAgeDays: 1e-9, keepLabels: ['feature'], dryRun }],
      });
    const kept = await record.db.db.selectFrom('jobs').select('job_id').where('labels', 'like', '%"feature"%').execute();
    const all = await record.db.db.selectFrom('jobs').select('job_id').execute();
    expect(kept.length).toBeGreaterThan(0);
    expect(all.length).toBeGreaterThan(kept.length);
    // scouts: one without a feature past the 90 days goes, one with a feature stays, a recent one stays
    const day = 86_400_000;
    const scout = (id: string, featureSlug: string | null, age: number) =>
      record.store.scouts.reserve(
        'default',
        {
          id,
          parentAgent: 'a',
          parentSessionId: uniqueId('s'),
          featureSlug,
          question: 'where is x',
          scopePaths: ['src'],
          excerpt: 'x'.repeat(60),
          createdAt: Date.now() - age,
        },
        { perSession: 5, perScope: 5 },
      );
    await scout('scout-old-20260801-aaaaaa', null, 91 * day);
    await scout('scout-kept-20260801-aaaaaa', 'feat', 91 * day);
    await scout('scout-new-20261130-aaaaaa', null, day);
    const dry = await run(true);
    expect(dry).toMatchObject({ dryRun: true, jobs: all.length - kept.length, scouts: 1 });
    expect(dry.listed.map((l) => l.jobId).sort()).toEqual(
      all
        .map((r) => r.job_id)
        .filter((id) => !kept.some((k) => k.job_id === id))
        .sort(),
    );
    expect(await record.db.db.selectFrom('jobs').select('job_id').execute()).toHaveLength(all.length);
    expect(await run(false)).toMatchObject({ dryRun: false, jobs: all.length - kept.length, scouts: 1 });
    expect(await record.store.scouts.get('default', 'scout-old-20260801-aaaaaa')).toBeUndefined();
    expect(await record.store.scouts.get('default', 'scout-kept-20260801-aaaaaa')).toBeDefined();
    expect(await record.store.scouts.get('default', 'scout-new-20261130-aaaaaa')).toBeDefined();
    expect((await record.db.db.selectFrom('jobs').select('job_id').execute()).map((r) => r.job_id).sort()).toEqual(
      kept.map((r) => r.job_id).sort(),
    );
  });
});

describe('the prune schedule', () => {
  it("is created at the first worker start and updated at the next, under its deployment's own id", async () => {
    const client = await testClient();
    const deploymentId = uniqueId('dep').replace(/[^A-Za-z0-9]/g, '');
    const id = pruneScheduleId(deploymentId);
    try {
      expect(await ensurePruneSchedule(client, testConfig({ DELEGATE_RECORD_PRUNE_EVERY: '6h' }), deploymentId)).toBe('created');
      // another deployment in the namespace gets its own schedule, not this one
      const other = `${deploymentId}x`;
      expect(await ensurePruneSchedule(client, testConfig({ DELEGATE_TASK_QUEUE: 'another-queue' }), other)).toBe('created');
      await client.schedule
        .getHandle(pruneScheduleId(other))
        .delete()
        .catch(() => undefined);
      expect(
        await ensurePruneSchedule(
          client,
          testConfig({
            DELEGATE_RECORD_PRUNE_EVERY: '12h',
            DELEGATE_RECORD_KEEP_LABELS: 'feature,audit',
            DELEGATE_RECORD_MAX_AGE_DAYS: '30',
          }),
          deploymentId,
        ),
      ).toBe('updated');
      const d = await client.schedule.getHandle(id).describe();
      expect(d.spec.intervals?.[0]?.every).toBe(12 * 3600 * 1000);
      expect(d.action).toMatchObject({
        type: 'startWorkflow',
        workflowType: 'pruneArchive',
        taskQueue: inject('taskQueue'),
        args: [{ maxAgeDays: 30, keepLabels: ['feature', 'audit'], dryRun: false }],
      });
    } finally {
      await client.schedule
        .getHandle(id)
        .delete()
        .catch(() => undefined);
    }
  });

  it("retires the namespace's schedule of older releases when it ran on this deployment's queue, and keeps another queue's", async () => {
    const client = await testClient();
    const legacy = (taskQueue: string) =>
      client.schedule.create({
        scheduleId: PRUNE_SCHEDULE_ID,
        spec: { intervals: [{ every: '6h' }] },
        action: { type: 'startWorkflow', workflowType: 'pruneArchive', taskQueue, args: [{}], workflowId: PRUNE_SCHEDULE_ID },
        state: { paused: true },
      });
    try {
      expect(await retireLegacyPruneSchedule(client, inject('taskQueue'))).toBe('none');
      await legacy('another-deployments-queue');
      expect(await retireLegacyPruneSchedule(client, inject('taskQueue'))).toBe('kept');
      await client.schedule.getHandle(PRUNE_SCHEDULE_ID).delete();
      await legacy(inject('taskQueue'));
      expect(await retireLegacyPruneSchedule(client, inject('taskQueue'))).toBe('deleted');
      await expect(client.schedule.getHandle(PRUNE_SCHEDULE_ID).describe()).rejects.toThrow();
    } finally {
      await client.schedule
        .getHandle(PRUNE_SCHEDULE_ID)
        .delete()
        .catch(() => undefined);
    }
  });
});
