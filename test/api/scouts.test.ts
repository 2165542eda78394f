import { afterAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { ScoutReportSchema } from '../../schemas/scout';
import { scoutTree } from '../activities/scout-tree';
import { jobsStartedWithId, testApp, uniqueId, useApp } from '../helpers';

const TREE = 'test/fixtures/scout-tree';
const EXCERPT = 'The parent is changing the retry policy of the client and needs to know where the backoff is computed.';
/** The worker's scout root is its working directory (the project): the API's is too. */
// tenant alpha: no other test file dispatches scouts for it, so the summary's top topics are this file's
const app = useApp({}, 'alpha');

const request = (extra: Record<string, unknown> = {}) => ({
  question: 'where is `computeBackoff` defined',
  scopePaths: [TREE],
  parentAgent: 'claude-code',
  parentSessionId: uniqueId('sess'),
  featureSlug: 'retry-policy',
  parentSessionExcerpt: EXCERPT,
  ...extra,
});
const BACKOFF = {
  file: `${TREE}/src/lib/backoff.ts`,
  line: 8,
  evidence: 'export function computeBackoff(attempt: number, opts: BackoffOptions): number {',
  relevance: 'high',
  explanation: 'computeBackoff is defined here: the delay before each retry.',
};
const FABRICATED = {
  file: `${TREE}/src/client.ts`,
  line: 3,
  evidence: 'const retries = forever();',
  relevance: 'medium',
  explanation: 'A line the scout made up: the host must drop it.',
};
const answer = (findings: object[]) => ({
  findings,
  confidence: 'high',
  recommendation: 'Change the delay in computeBackoff; the client only calls it.',
  files_inspected: [`${TREE}/src/lib/backoff.ts`],
  status: 'success',
});

async function dispatch(body: object) {
  const res = await app.inject({ method: 'POST', url: '/v1/scouts', payload: body });
  expect(res.statusCode, res.body).toBe(201);
  const settled = await app.inject({ url: `/v1/scouts/${res.json().id}?waitSeconds=30` });
  return { dispatched: res.json(), scout: settled.json() };
}

describe('scout prep refuses before anything is dispatched', () => {
  const tree = scoutTree();
  let treeApp: FastifyInstance;
  afterAll(async () => {
    await treeApp?.close();
    tree.cleanup();
  });

  it('a path outside the root, a symlink that escapes, a missing excerpt, a cap reached: each refused with its reason; nothing starts', async () => {
    treeApp = await testApp({ DELEGATE_SCOUT_ROOT: tree.root, DELEGATE_SCOUT_CAP_PER_SESSION: '2' });
    const prep = (body: object) => treeApp.inject({ method: 'POST', url: '/v1/scouts/prep', payload: body });
    const outside = await prep(request({ scopePaths: ['src', '../outside'] }));
    expect(outside.statusCode).toBe(422);
    expect(outside.json()).toMatchObject({
      code: 'path_outside_root',
      errors: [{ path: 'body.scopePaths[1]', message: 'path_outside_root: ../outside' }],
    });
    // the re-audit's critical finding: the deployment's secrets are never in scope
    const secrets = await prep(request({ scopePaths: ['src', '.data'] }));
    expect(secrets.json()).toMatchObject({
      status: 422,
      code: 'path_denied',
      errors: [{ path: 'body.scopePaths[1]', message: 'path_denied: .data' }],
    });
    const unset = await testApp({ DELEGATE_SCOUT_ROOT: undefined });
    const off = await unset.inject({ method: 'POST', url: '/v1/scouts/prep', payload: request({ scopePaths: ['src'] }) });
    await unset.close();
    expect(off.json()).toMatchObject({ status: 422, code: 'scout_root_unset', detail: expect.stringContaining('DELEGATE_SCOUT_ROOT') });
    const escape = await prep(request({ scopePaths: ['src/escape'] }));
    expect(escape.json()).toMatchObject({ status: 422, code: 'path_outside_root', errors: [{ path: 'body.scopePaths[0]' }] });
    const inside = await prep(request({ scopePaths: ['lib-link', 'src'] }));
    expect(inside.statusCode).toBe(200);
    expect(inside.json()).toMatchObject({
      id: expect.stringMatching(/^scout-retry-policy-\d{8}-[a-z0-9]{6}$/),
      tools: ['read_file', 'grep'],
      caps: { perSession: { limit: 2, remaining: 2 }, perScope: { limit: 3, remaining: 3 } },
    });
    expect(inside.json().prompt).toContain('computeBackoff');
    const { parentSessionExcerpt: _gone, ...noExcerpt } = request();
    const missing = await prep(noExcerpt);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors).toEqual([{ path: 'body.parentSessionExcerpt', message: expect.stringContaining('50–1000 characters') }]);
    expect((await prep(request({ parentSessionExcerpt: 'too short' }))).statusCode).toBe(400);
    // fill the session's cap in the record, then ask again
    const full = request({ scopePaths: ['src'] });
    for (const n of [1, 2]) {
      const r = await treeApp.record.scouts.reserve(
        'default',
        {
          id: `scout-x-20261201-aaaaa${n}`,
          parentAgent: 'a',
          parentSessionId: full.parentSessionId,
          featureSlug: null,
          question: 'q',
          scopePaths: [`src/${n}`],
          excerpt: EXCERPT,
          createdAt: Date.now(),
        },
        { perSession: 2, perScope: 3 },
      );
      expect(r.ok).toBe(true);
    }
    const capped = await prep(full);
    expect(capped.statusCode).toBe(429);
    expect(capped.json()).toMatchObject({ code: 'scout_cap_exceeded', cap: 'session', caps: { perSession: { limit: 2, remaining: 0 } } });
    const refused = await treeApp.inject({ method: 'POST', url: '/v1/scouts', payload: full });
    expect(refused.statusCode).toBe(429);
    const listed = (await treeApp.inject({ url: `/v1/scouts?parentSessionId=${full.parentSessionId}` })).json();
    expect(listed.scouts).toHaveLength(2);
    expect(await jobsStartedWithId(capped.json().id ?? 'none')).toBe(0);
  });
});

describe('a scout dispatched, validated and committed', () => {
  it('the offline scout finds a known symbol in the fixture tree; its report is committed, small, and on the job stream; the caps go down', async () => {
    const body = request();
    const { dispatched, scout } = await dispatch(body);
    expect(dispatched.caps.perSession.remaining).toBe(9);
    expect(scout.state).toBe('committed');
    const report = ScoutReportSchema.parse(scout.report);
    expect(report.findings[0]).toMatchObject({ file: `${TREE}/src/lib/backoff.ts`, line: 8, relevance: 'high' });
    expect(report).toMatchObject({ status: 'success', feature_slug: 'retry-policy', parent_agent: 'claude-code', dropped_findings: 0 });
    expect(report.tokens).toBeLessThanOrEqual(500);
    const events = (await app.inject({ url: `/v1/jobs/${dispatched.jobId}/events`, headers: { accept: 'text/event-stream' } })).body;
    expect(events).toMatch(/event: scout\.committed[\s\S]*event: job\.finished/);
    const prep = (await app.inject({ method: 'POST', url: '/v1/scouts/prep', payload: body })).json();
    expect(prep.caps).toEqual({ perSession: { limit: 10, remaining: 9 }, perScope: { limit: 3, remaining: 2 } });
    const byFeature = (await app.inject({ url: '/v1/scouts?feature=retry-policy&pageSize=500' })).json();
    expect(byFeature.scouts.map((s: { id: string }) => s.id)).toContain(dispatched.id);
    const summary = (await app.inject({ url: '/v1/reports/summary' })).json();
    expect(summary.scouts.line).toMatch(/^scouts dispatched: \d+ \(top topics .*retry-policy/);
  });

  it('a tool outside read_file and grep is denied by the host, whatever the model asks: the scout ends in error and frees its place', async () => {
    const body: Record<string, unknown> = request({ agent: 'rogue-llm' });
    const { dispatched, scout } = await dispatch(body);
    expect(scout).toMatchObject({ state: 'error', report: { status: 'error', findings: [] } });
    const job = (await app.inject({ url: `/v1/jobs/${dispatched.jobId}/result` })).json();
    expect(job.results[0]).toMatchObject({ status: 'failure', failureReason: 'tool_denied' });
    expect(job.results[0].errors.join(' ')).toMatch(/"shell"/);
    const { agent: _agent, ...plain } = body;
    const prep = (await app.inject({ method: 'POST', url: '/v1/scouts/prep', payload: plain })).json();
    expect(prep.caps.perSession.remaining).toBe(10);
  });

  it('an invalid report is re-prompted once quoting its errors, then passes; a fabricated finding is dropped by the host', async () => {
    const { dispatched, scout } = await dispatch(
      request({ agent: 'sim', params: { answer: { findings: [], confidence: 'sure' }, repromptAnswer: answer([BACKOFF, FABRICATED]) } }),
    );
    expect(scout.state).toBe('committed');
    expect(scout.report).toMatchObject({ status: 'success', dropped_findings: 1, findings: [{ line: 8 }] });
    expect(scout.report.findings).toHaveLength(1);
    const job = (await app.inject({ url: `/v1/jobs/${dispatched.jobId}/result` })).json();
    // the error the re-prompt fixed is no error of the success: its note keeps it
    expect(job.results[0].errors).toEqual([]);
    expect(job.results[0].notes).toContainEqual(
      expect.stringMatching(/^re-prompted after: output does not satisfy outputSchema: .*confidence/),
    );
  });

  it('a second invalid report ends the scout in error', async () => {
    const { dispatched, scout } = await dispatch(request({ agent: 'sim', params: { answer: { findings: 'none' } } }));
    expect(scout).toMatchObject({ state: 'error', report: { status: 'error' } });
    const job = (await app.inject({ url: `/v1/jobs/${dispatched.jobId}/result` })).json();
    expect(job.results[0]).toMatchObject({ status: 'failure', failureReason: 'invalid_output' });
    expect(job.results[0].errors).toHaveLength(2);
  });

  it('autoCommit false waits for an explicit commit, which stores the report once', async () => {
    const { dispatched, scout } = await dispatch(request({ autoCommit: false }));
    expect(scout).toMatchObject({ state: 'dispatched', report: null });
    const commit = await app.inject({ method: 'POST', url: `/v1/scouts/${dispatched.id}/commit`, payload: {} });
    expect(commit.statusCode).toBe(200);
    expect(commit.json()).toMatchObject({ committed: true, report: { status: 'success' } });
    expect((await app.inject({ method: 'POST', url: `/v1/scouts/${dispatched.id}/commit`, payload: {} })).statusCode).toBe(409);
    expect((await app.inject({ url: `/v1/scouts/${dispatched.id}` })).json().state).toBe('committed');
  });
});
