/**
 * A scout the harness runs itself: prep with `harness: true` takes the id, the harness's own
 * sub-agent writes the answer, and `POST /v1/scouts/{id}/report` validates and commits it (caps
 * taken at commit); an invalid report gets one retry, the second is final; a path outside the
 * prep's scope is refused. Then the feature's close files its scouts into a dossier, idempotently.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { scoutTree } from '../activities/scout-tree';
import { testApp, uniqueId } from '../helpers';

const EXCERPT = 'The parent is changing the retry policy of the client and needs to know where the backoff is computed.';
const BACKOFF = {
  file: 'src/lib/backoff.ts',
  line: 8,
  evidence: 'export function computeBackoff(attempt: number, opts: BackoffOptions): number {',
  relevance: 'high',
  explanation: 'computeBackoff is defined here: the delay before each retry.',
};
const answer = (over: Record<string, unknown> = {}) => ({
  findings: [BACKOFF],
  confidence: 'high',
  recommendation: 'Change the delay in computeBackoff; the client only calls it.',
  files_inspected: ['src/lib/backoff.ts'],
  status: 'success',
  ...over,
});

describe('a harness-run scout: prep, report, commit; then the feature closes', () => {
  const tree = scoutTree();
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await testApp({ DELEGATE_SCOUT_ROOT: tree.root, DELEGATE_SCOUT_CAP_PER_SESSION: '3' });
  });
  afterAll(async () => {
    await app?.close();
    tree.cleanup();
  });
  const feature = uniqueId('feat')
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-');
  const session = uniqueId('sess');
  const prep = async (scopePaths = ['src/lib']) => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/scouts/prep',
      payload: {
        question: 'where is `computeBackoff` defined',
        scopePaths,
        parentAgent: 'claude-code',
        parentSessionId: session,
        featureSlug: feature,
        parentSessionExcerpt: EXCERPT,
        harness: true,
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { id: string; tools: string[]; caps: { perSession: { remaining: number } }; prompt: string };
  };
  const report = (id: string, body: unknown, validateOnly = false) =>
    app.inject({ method: 'POST', url: `/v1/scouts/${id}/report${validateOnly ? '?validateOnly=true' : ''}`, payload: body as object });

  it('a valid report is validated, then committed: the record has it and the session cap is one lower', async () => {
    const p = await prep();
    expect(p.tools).toEqual(['read_file', 'grep']);
    expect(p.caps.perSession.remaining).toBe(3);
    expect((await app.inject({ url: `/v1/scouts/${p.id}` })).json()).toMatchObject({ state: 'prepped', report: null });
    const checked = await report(p.id, answer(), true);
    expect(checked.statusCode, checked.body).toBe(200);
    expect(checked.json()).toMatchObject({ valid: true, committed: false, caps: { perSession: { remaining: 3 } } });
    const done = await report(p.id, answer());
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({
      committed: true,
      report: { id: p.id, status: 'success', feature_slug: feature, findings: [{ file: 'src/lib/backoff.ts', line: 8 }] },
      caps: { perSession: { remaining: 2 } },
    });
    expect((await app.inject({ url: `/v1/scouts/${p.id}` })).json()).toMatchObject({ state: 'committed', report: { status: 'success' } });
    // a second report of a committed scout changes nothing
    expect((await report(p.id, answer())).statusCode).toBe(409);
  });

  it('an invalid report: 422 with the JSON path and one retry; the second invalid one is final', async () => {
    const p = await prep();
    const first = await report(p.id, answer({ recommendation: 'too short', findings: [{ ...BACKOFF, relevance: 'very' }] }));
    expect(first.statusCode).toBe(422);
    expect(first.json()).toMatchObject({ code: 'report_invalid', attempts: 1, retriesLeft: 1, final: false });
    expect(first.json().errors.map((e: { path: string }) => e.path)).toEqual(
      expect.arrayContaining(['body.recommendation', 'body.findings[0].relevance']),
    );
    const second = await report(p.id, { findings: [] });
    expect(second.statusCode).toBe(422);
    expect(second.json()).toMatchObject({ code: 'report_invalid', attempts: 2, retriesLeft: 0, final: true });
    expect((await app.inject({ url: `/v1/scouts/${p.id}` })).json()).toMatchObject({ state: 'error' });
    // final: a valid report now is too late
    expect((await report(p.id, answer())).statusCode).toBe(409);
  });

  it('a path outside the prep scope or the root is refused with its JSON path (and counts as the retry)', async () => {
    const p = await prep(['src/lib']);
    const outside = await report(p.id, answer({ files_inspected: ['src/lib/backoff.ts', 'src/client.ts'] }));
    expect(outside.statusCode).toBe(422);
    expect(outside.json()).toMatchObject({
      code: 'path_outside_scope',
      attempts: 1,
      errors: [{ path: 'body.files_inspected[1]', message: 'path_outside_scope: src/client.ts' }],
    });
    const escape = await report(p.id, answer({ findings: [{ ...BACKOFF, file: '../outside/secret.ts' }] }));
    expect(escape.json()).toMatchObject({ code: 'path_outside_root', final: true, errors: [{ path: 'body.findings[0].file' }] });
  });

  it('closing the feature files each settled scout once, as Markdown and JSON; closing again is idempotent', async () => {
    const closed = await app.inject({ method: 'POST', url: `/v1/features/${feature}/close`, payload: {} });
    expect(closed.statusCode, closed.body).toBe(200);
    const d = closed.json();
    expect(d).toMatchObject({ featureSlug: feature, alreadyClosed: false, added: 3, pending: [] });
    expect(d.entries[0]).toMatchObject({ question: 'where is `computeBackoff` defined', confidence: 'high', status: 'success' });
    expect(d.entries[0].link).toMatch(/\/v1\/scouts\/scout-/);
    expect(d.markdown).toContain(`# Feature dossier: ${feature}`);
    expect(d.markdown.split('\n').filter((l: string) => l.startsWith('- **'))).toHaveLength(3);
    const again = (await app.inject({ method: 'POST', url: `/v1/features/${feature}/close`, payload: {} })).json();
    expect(again).toMatchObject({ alreadyClosed: true, added: 0, closedAt: d.closedAt });
    expect(again.entries).toEqual(d.entries);
  });
});
