/**
 * The typed client's research subtasks and code scouts, against the API listening on real
 * loopback HTTP: the contract's output back (at once, or after a wait), refusals with their
 * field paths, and the scout lifecycle (prep, dispatch, report, commit, list); a cap refusal
 * is a DelegateProblemError with its code, cap and caps, never retried.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createDelegateClient,
  DelegateProblemError,
  isScoutCapError,
  type ResearchSubtaskRequest,
  type ScoutDispatchRequest,
} from 'delegate/client';
import { ResearchSubtaskOutputSchema } from '../../schemas/research-contract';
import { ScoutReportSchema } from '../../schemas/scout';
import { jobsListedWithId, listeningApp, uniqueId } from '../helpers';
import { TEST_TENANTS } from '../tenants';

const { app, url: baseUrl }: { app: FastifyInstance; url: string } = await listeningApp({}, null);
const capped: { app: FastifyInstance; url: string } = await listeningApp({ DELEGATE_SCOUT_CAP_PER_SESSION: '1' }, null);
afterAll(async () => {
  await app.close();
  await capped.app.close();
});
const delegate = createDelegateClient({ baseUrl, apiKey: TEST_TENANTS.default.key });

/** The scout root is the process's working directory (the project), the shared worker's too. */
const TREE = 'test/fixtures/scout-tree';
const EXCERPT = 'The parent is changing the retry policy of the client and needs to know where the backoff is computed.';
const scoutRequest = (extra: Partial<ScoutDispatchRequest> = {}): ScoutDispatchRequest => ({
  question: 'where is `computeBackoff` defined',
  scopePaths: [TREE],
  parentAgent: 'client-test',
  parentSessionId: uniqueId('sess'),
  featureSlug: 'client-scouts',
  parentSessionExcerpt: EXCERPT,
  ...extra,
});
const subtask = (id: string, params: Record<string, unknown>, extra: Partial<ResearchSubtaskRequest> = {}): ResearchSubtaskRequest => ({
  id,
  parent_id: 'client_plan',
  question: 'Which PostgreSQL extensions speed up analytics?',
  budget: { latency_seconds: 60, cost_usd: 1, tool_calls: 20 },
  agent: 'sim',
  params,
  ...extra,
});
const evidence = [
  {
    id: 'e1',
    source: 'web',
    url: 'https://docs.citusdata.com/columnar',
    title: 'Columnar storage',
    snippet: 'Citus columnar tables compress well.',
    score: 0.8,
  },
];

describe('client: research subtasks', () => {
  it('run waits for the contract output; get reads it again by its job id', async () => {
    const out = await delegate.subtasks.run(
      subtask('sub_c1', { summary: 'Citus helps. It stores columns. It scans fast.', evidence, costUsd: 0.01 }),
      { waitSeconds: 60 },
    );
    expect(out.status).toBe('success');
    if (out.status === 'running') throw new Error('still running');
    const parsed = ResearchSubtaskOutputSchema.parse(out);
    expect(parsed).toMatchObject({
      id: 'sub_c1',
      failure_reason: null,
      citations: [evidence[0].url],
      evidence: [{ url: evidence[0].url, source: 'web' }],
      delegate: { parent_id: 'client_plan', agent_id: 'sim' },
    });
    expect(parsed.summary).toBe('Citus helps. It stores columns. It scans fast.');
    expect(await delegate.subtasks.get(parsed.delegate.job_id!)).toEqual(out);
  });

  it('a short wait answers running; get waits past it for the output', async () => {
    const running = await delegate.subtasks.run(subtask('sub_c2', { steps: 3, latencyMs: 400 }));
    expect(running).toMatchObject({
      id: 'sub_c2',
      status: 'running',
      job_id: expect.any(String),
      links: { self: expect.stringContaining('/v1/subtasks/') },
    });
    if (running.status !== 'running') throw new Error('finished before any wait');
    const out = await delegate.subtasks.get(running.job_id, { waitSeconds: 90 });
    expect(out).toMatchObject({ id: 'sub_c2', status: 'success', delegate: { job_id: running.job_id } });
  });

  it('an idempotency key never starts a second job; an invalid input is refused with its field path', async () => {
    const key = uniqueId('csubkey');
    const input = subtask('sub_c3', {});
    const [a, b] = [
      await delegate.subtasks.run(input, { idempotencyKey: key, waitSeconds: 30 }),
      await delegate.subtasks.run(input, { idempotencyKey: key, waitSeconds: 30 }),
    ];
    expect([a.status, b.status]).toEqual(['success', 'success']);
    expect(await jobsListedWithId(key)).toBe(1);

    const bad = await delegate.subtasks
      .run({
        ...input,
        budget: { latency_seconds: 60, cost_usd: 1 } as ResearchSubtaskRequest['budget'],
        colour: 'red',
      } as ResearchSubtaskRequest)
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(DelegateProblemError);
    expect((bad as DelegateProblemError).status).toBe(400);
    expect((bad as DelegateProblemError).errors.map((e) => e.path)).toEqual(expect.arrayContaining(['body.budget.tool_calls']));
  });
});

describe('client: code scouts', () => {
  it('prep, dispatch, the committed report, listing by feature and walking every page', async () => {
    const req = scoutRequest({ featureSlug: `cs-${Date.now().toString(36)}` });
    const prep = await delegate.scouts.prep(req);
    expect(prep).toMatchObject({
      id: expect.stringMatching(/^scout-cs-[a-z0-9]+-\d{8}-[a-z0-9]{6}$/),
      scopePaths: [TREE],
      tools: ['read_file', 'grep'],
      caps: { perSession: { remaining: 10 }, perScope: { remaining: 3 } },
    });
    expect(prep.prompt).toContain('computeBackoff');

    const scout = await delegate.scouts.run(req, { waitSeconds: 90 });
    expect(scout.state).toBe('committed');
    const report = ScoutReportSchema.parse(scout.report);
    expect(report).toMatchObject({ status: 'success', parent_agent: 'client-test', feature_slug: req.featureSlug });
    expect(report.findings[0]).toMatchObject({ file: `${TREE}/src/lib/backoff.ts`, line: 8, relevance: 'high' });
    expect(await delegate.scouts.get(scout.id)).toEqual(scout);

    const second = await delegate.scouts.dispatch({ ...req, question: 'where is the queue drained' });
    expect(second).toMatchObject({ status: 'dispatched', jobId: second.id, caps: { perSession: { limit: 10, remaining: 8 } } });
    await delegate.scouts.get(second.id, { waitSeconds: 90 });
    const page = await delegate.scouts.list({ feature: req.featureSlug!, pageSize: 1 });
    expect(page.scouts.map((s) => s.id)).toEqual([second.id]);
    expect(page.nextPageToken).toEqual(expect.any(String));
    const all: string[] = [];
    for await (const s of delegate.scouts.listAll({ feature: req.featureSlug!, pageSize: 1 })) all.push(s.id);
    expect(all).toEqual([second.id, scout.id]);
    expect((await delegate.scouts.list({ parentSessionId: req.parentSessionId })).scouts).toHaveLength(2);
  });

  it('autoCommit false: the scout waits for commit(), which stores its report once', async () => {
    const d = await delegate.scouts.dispatch(scoutRequest({ autoCommit: false }));
    // the job ends but nothing commits it: get returns once there is nothing left to wait for
    const waiting = await delegate.scouts.get(d.id, { waitSeconds: 90 });
    expect(waiting).toMatchObject({ state: 'dispatched', report: null });
    const commit = await delegate.scouts.commit(d.id);
    expect(commit).toMatchObject({ committed: true, report: { status: 'success' }, caps: { perSession: { limit: 10 } } });
    const again = await delegate.scouts.commit(d.id).catch((e: unknown) => e);
    expect((again as DelegateProblemError).status).toBe(409);
  });

  it('a scope outside the root is a 422 with code path_outside_root and the field', async () => {
    const err = await delegate.scouts.prep(scoutRequest({ scopePaths: [TREE, '../..'] })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DelegateProblemError);
    const p = err as DelegateProblemError;
    expect([p.status, p.code]).toEqual([422, 'path_outside_root']);
    expect(p.errors).toEqual([expect.objectContaining({ path: 'body.scopePaths[1]' })]);
    expect(isScoutCapError(err)).toBe(false);
  });

  it('over a cap: a 429 DelegateProblemError with code, cap and caps left, answered once (never retried)', async () => {
    let calls = 0;
    const counting: typeof fetch = (input, init) => {
      calls++;
      return fetch(input, init);
    };
    const client = createDelegateClient({ baseUrl: capped.url, apiKey: TEST_TENANTS.default.key, fetch: counting });
    const req = scoutRequest();
    const first = await client.scouts.dispatch(req);
    expect(first.caps.perSession).toEqual({ limit: 1, remaining: 0 });
    calls = 0;
    const refused = await client.scouts.prep(req).catch((e: unknown) => e);
    expect(calls).toBe(1);
    expect(isScoutCapError(refused)).toBe(true);
    if (!isScoutCapError(refused)) return;
    expect(refused.problem).toMatchObject({
      status: 429,
      code: 'scout_cap_exceeded',
      cap: 'session',
      caps: { perSession: { limit: 1, remaining: 0 } },
    });
    const dispatch = await client.scouts.dispatch(req).catch((e: unknown) => e);
    expect(isScoutCapError(dispatch)).toBe(true);
    await client.scouts.get(first.id, { waitSeconds: 90 });
  });
});
