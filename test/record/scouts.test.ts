/**
 * The code scouts in the record, on both stores: reservations never pass a cap (also when
 * many arrive at once, from one process or several), commit is once, fail frees the place,
 * lists page by feature, the summary counts sessions and topics, prune keeps featured scouts.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { scoutSummaryLine, type RecordLocation, type ScoutCaps, type ScoutReservation } from '../../record';
import { freshRecordLocation, openFreshRecord, RECORD_STORES } from '../record-stores';

const T0 = Date.UTC(2025, 5, 2, 10, 0, 0);
const DAY = 86_400_000;
const EXCERPT = 'The parent is about to refactor the record and needs to know who opens it first.';
const recordModule = new URL('../../record/index.ts', import.meta.url).pathname;

let n = 0;
/** A scout of session `sess-1` on `record/`, a new id each call. */
const scout = (over: Partial<ScoutReservation> = {}): ScoutReservation => {
  n++;
  return {
    id: `scout-record-20250602-${String(n).padStart(6, '0')}`,
    parentAgent: 'claude-code',
    parentSessionId: 'sess-1',
    featureSlug: null,
    question: 'Where is createRecordStore defined?',
    scopePaths: ['record/'],
    excerpt: EXCERPT,
    createdAt: T0 + n,
    ...over,
  };
};

/** A process that opens the record at `loc` and, when told to (stdin), makes `count` reservations at once; prints the outcomes. */
function reserver(loc: RecordLocation, tenant: string, rows: ScoutReservation[], caps: ScoutCaps) {
  const code = `import { openRecordDb, createScoutStore } from ${JSON.stringify(recordModule)};
const { loc, tenant, rows, caps } = JSON.parse(process.env.JOB);
const db = await openRecordDb(loc);
const scouts = createScoutStore(db);
console.log('ready');
process.stdin.once('data', async () => {
  const out = await Promise.all(rows.map((r) => scouts.reserve(tenant, r, caps)));
  await db.close();
  console.log('OUT' + JSON.stringify(out));
  process.exit(0);
});`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    env: { ...process.env, JOB: JSON.stringify({ loc, tenant, rows, caps }) },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', () => (out.includes('ready') ? resolve() : undefined));
    child.once('exit', () => reject(new Error(`reserver exited before ready: ${err}`)));
  });
  const done = new Promise<{ ok: boolean }[]>((resolve, reject) =>
    child.once('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('OUT'));
      if (code === 0 && line) resolve(JSON.parse(line.slice(3)) as { ok: boolean }[]);
      else reject(new Error(`reserver failed (${code}): ${err}`));
    }),
  );
  return { ready, go: () => child.stdin.end('go\n'), done };
}

describe.each(RECORD_STORES)('scout record on %s', (kind) => {
  const record = openFreshRecord(kind);
  const scouts = () => record.store.scouts;

  it('a prepped scout holds no place; its invalid reports are counted (the second final); its commit takes the place under the caps; a close files it once', async () => {
    const caps = { perSession: 1, perScope: 1 };
    const p = scout({ featureSlug: 'harness-flow', parentSessionId: 'sess-h' });
    await scouts().prepare('harness', p);
    expect(await scouts().remaining('harness', 'sess-h', p.scopePaths, caps)).toEqual({ session: 1, scope: 1 });
    expect(await scouts().reportInvalid('harness', p.id, 2, T0)).toEqual({ attempts: 1, final: false });
    const head = { id: p.id, parentSessionId: 'sess-h', scopePaths: p.scopePaths };
    expect(await scouts().commitReported('harness', head, { confidence: 'high', recommendation: 'r' }, 'success', 10, T0, caps)).toEqual({
      ok: true,
      remaining: { session: 0, scope: 0 },
    });
    expect(await scouts().commitReported('harness', head, {}, 'success', 10, T0, caps)).toMatchObject({ ok: false, cap: 'session' });
    const q = scout({ featureSlug: 'harness-flow', parentSessionId: 'sess-h2' });
    await scouts().prepare('harness', q);
    await scouts().reportInvalid('harness', q.id, 2, T0);
    expect(await scouts().reportInvalid('harness', q.id, 2, T0 + 1)).toEqual({ attempts: 2, final: true });
    expect(await scouts().get('harness', q.id)).toMatchObject({ state: 'error', reportAttempts: 2, failedAt: T0 + 1 });
    expect(await scouts().reportInvalid('harness', q.id, 2, T0 + 2)).toBeUndefined();
    const first = await record.store.dossiers.close('harness', 'harness-flow', T0 + 10);
    expect(first).toMatchObject({ added: 2, alreadyClosed: false, dossier: { closedAt: T0 + 10 } });
    expect(first.dossier.entries.map((e) => [e.scoutId, e.confidence, e.status])).toEqual([
      [p.id, 'high', 'success'],
      [q.id, null, 'error'],
    ]);
    const again = await record.store.dossiers.close('harness', 'harness-flow', T0 + 20);
    expect(again).toMatchObject({ added: 0, alreadyClosed: true, dossier: { closedAt: T0 + 10, entries: first.dossier.entries } });
  });

  it('reserves within the caps, counting the same scope however it is spelled, and reads the scout back', async () => {
    const caps = { perSession: 5, perScope: 2 };
    const a = scout({ jobId: 'job-a', featureSlug: 'record-split' });
    expect(await scouts().reserve('within', a, caps)).toEqual({ ok: true, remaining: { session: 4, scope: 1 } });
    // ./record, record and record/ are one scope
    expect(await scouts().remaining('within', 'sess-1', ['./record'], caps)).toEqual({ session: 4, scope: 1 });
    expect(await scouts().reserve('within', scout({ scopePaths: ['record'] }), caps)).toEqual({
      ok: true,
      remaining: { session: 3, scope: 0 },
    });
    expect(await scouts().reserve('within', scout({ scopePaths: ['api/', 'record/'] }), caps)).toEqual({
      ok: true,
      remaining: { session: 2, scope: 1 },
    });
    // the order of the paths does not matter either
    expect(await scouts().remaining('within', 'sess-1', ['record', 'api'], caps)).toEqual({ session: 2, scope: 1 });
    expect(await scouts().remaining('within', 'sess-other', ['record'], caps)).toEqual({ session: 5, scope: 2 });
    expect(await scouts().get('within', a.id)).toEqual({
      tenant: 'within',
      id: a.id,
      parentAgent: 'claude-code',
      parentSessionId: 'sess-1',
      featureSlug: 'record-split',
      question: a.question,
      scopePaths: ['record/'],
      scopeKey: 'record',
      excerpt: EXCERPT,
      jobId: 'job-a',
      state: 'dispatched',
      report: null,
      reportStatus: null,
      tokens: null,
      createdAt: a.createdAt,
      committedAt: null,
      failedAt: null,
      reportAttempts: 0,
    });
    await scouts().setJob('within', a.id, 'job-a2');
    expect((await scouts().get('within', a.id))!.jobId).toBe('job-a2');
    // another tenant sees none of it
    expect(await scouts().get('other-tenant', a.id)).toBeUndefined();
    expect(await scouts().remaining('other-tenant', 'sess-1', ['record'], caps)).toEqual({ session: 5, scope: 2 });
  });

  it('refuses at the session cap with what remains, writing nothing; another session is not affected', async () => {
    const caps = { perSession: 2, perScope: 5 };
    expect(await scouts().reserve('sess-cap', scout({ scopePaths: ['a'] }), caps)).toMatchObject({
      ok: true,
      remaining: { session: 1, scope: 4 },
    });
    expect(await scouts().reserve('sess-cap', scout({ scopePaths: ['b'] }), caps)).toMatchObject({
      ok: true,
      remaining: { session: 0, scope: 4 },
    });
    const refused = scout({ scopePaths: ['a'] });
    expect(await scouts().reserve('sess-cap', refused, caps)).toEqual({ ok: false, cap: 'session', remaining: { session: 0, scope: 4 } });
    expect(await scouts().get('sess-cap', refused.id)).toBeUndefined();
    expect((await scouts().list('sess-cap', { limit: 10 })).scouts).toHaveLength(2);
    // a lower cap than what is taken never shows negative
    expect(await scouts().remaining('sess-cap', 'sess-1', ['a'], { perSession: 1, perScope: 0 })).toEqual({ session: 0, scope: 0 });
    expect(await scouts().reserve('sess-cap', scout({ parentSessionId: 'sess-2', scopePaths: ['a'] }), caps)).toMatchObject({
      ok: true,
      remaining: { session: 1, scope: 4 },
    });
  });

  it('refuses at the scope cap with what remains; another scope, or the same scope of another session, passes', async () => {
    const caps = { perSession: 5, perScope: 1 };
    expect(await scouts().reserve('scope-cap', scout(), caps)).toEqual({ ok: true, remaining: { session: 4, scope: 0 } });
    const refused = scout({ scopePaths: ['./record/'] });
    expect(await scouts().reserve('scope-cap', refused, caps)).toEqual({ ok: false, cap: 'scope', remaining: { session: 4, scope: 0 } });
    expect(await scouts().get('scope-cap', refused.id)).toBeUndefined();
    expect(await scouts().reserve('scope-cap', scout({ scopePaths: ['api'] }), caps)).toEqual({
      ok: true,
      remaining: { session: 3, scope: 0 },
    });
    expect(await scouts().reserve('scope-cap', scout({ parentSessionId: 'sess-2' }), caps)).toEqual({
      ok: true,
      remaining: { session: 4, scope: 0 },
    });
    // the session cap is named first when both are full
    expect(await scouts().reserve('scope-cap', scout(), { perSession: 2, perScope: 1 })).toEqual({
      ok: false,
      cap: 'session',
      remaining: { session: 0, scope: 0 },
    });
  });

  it('10 reserves of one session at once with perSession 3: exactly 3 pass', async () => {
    const caps = { perSession: 3, perScope: 10 };
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => scouts().reserve('race', scout({ scopePaths: [`dir${i}`] }), caps)),
    );
    expect(outcomes.filter((o) => o.ok)).toHaveLength(3);
    expect(outcomes.filter((o) => !o.ok)).toEqual(
      Array.from({ length: 7 }, () => ({ ok: false, cap: 'session', remaining: { session: 0, scope: 10 } })),
    );
    expect((await scouts().list('race', { limit: 20 })).scouts).toHaveLength(3);
  });

  it('reserves from three processes at once (API and workers share the record): exactly the cap passes', async () => {
    const loc = await freshRecordLocation(kind);
    const caps = { perSession: 5, perScope: 2 };
    // each process 4 reserves, 2 on a shared scope: 5 pass in all, and at most 2 on the shared scope
    const procs = [0, 1, 2].map((p) =>
      reserver(
        loc,
        'procs',
        [0, 1, 2, 3].map((i) => scout({ scopePaths: [i < 2 ? 'shared' : `own-${p}-${i}`] })),
        caps,
      ),
    );
    await Promise.all(procs.map((p) => p.ready));
    for (const p of procs) p.go();
    const outcomes = (await Promise.all(procs.map((p) => p.done))).flat();
    expect(outcomes.filter((o) => o.ok)).toHaveLength(5);
    const { openRecordDb, createScoutStore } = await import('../../record');
    const db = await openRecordDb(loc);
    try {
      const rows = (await createScoutStore(db).list('procs', { limit: 20 })).scouts;
      expect(rows).toHaveLength(5);
      expect(rows.filter((r) => r.scopeKey === 'shared').length).toBeLessThanOrEqual(2);
    } finally {
      await db.close();
    }
  });

  it('commits once: a second commit changes nothing; the place stays taken; unknown and failed scouts say why', async () => {
    const caps = { perSession: 3, perScope: 3 };
    const s = scout();
    await scouts().reserve('commit', s, caps);
    const report = {
      id: s.id,
      status: 'success',
      findings: [{ file: 'record/store.ts', line: 130, evidence: 'export function createRecordStore(' }],
      note: 'café \u0000',
    };
    expect(await scouts().commit('commit', s.id, report, 'success', 412, T0 + DAY)).toEqual({ committed: true });
    expect(await scouts().commit('commit', s.id, { other: true }, 'partial', 9, T0 + 2 * DAY)).toEqual({
      committed: false,
      reason: 'already_committed',
    });
    expect(await scouts().get('commit', s.id)).toMatchObject({
      state: 'committed',
      report,
      reportStatus: 'success',
      tokens: 412,
      committedAt: T0 + DAY,
      failedAt: null,
    });
    expect(await scouts().remaining('commit', 'sess-1', s.scopePaths, caps)).toEqual({ session: 2, scope: 2 });
    expect(await scouts().fail('commit', s.id, null, T0)).toEqual({ failed: false, reason: 'already_committed' });
    expect((await scouts().get('commit', s.id))!.state).toBe('committed');
    expect(await scouts().commit('commit', 'scout-none', report, 'success', 1, T0)).toEqual({ committed: false, reason: 'not_found' });
    expect(await scouts().commit('other-tenant', s.id, report, 'success', 1, T0)).toEqual({ committed: false, reason: 'not_found' });
    const failed = scout();
    await scouts().reserve('commit', failed, caps);
    await scouts().fail('commit', failed.id, null, T0);
    expect(await scouts().commit('commit', failed.id, report, 'success', 1, T0)).toEqual({ committed: false, reason: 'failed' });
    expect(await scouts().get('commit', failed.id)).toMatchObject({
      state: 'error',
      report: null,
      reportStatus: 'error',
      committedAt: null,
      failedAt: T0,
    });
  });

  it('fail frees the place under both caps, once', async () => {
    const caps = { perSession: 1, perScope: 1 };
    const first = scout();
    expect((await scouts().reserve('fail', first, caps)).ok).toBe(true);
    expect(await scouts().reserve('fail', scout(), caps)).toMatchObject({ ok: false, cap: 'session' });
    const invalid = { id: first.id, findings: 'not a list' };
    expect(await scouts().fail('fail', first.id, invalid, T0 + 5)).toEqual({ failed: true });
    expect(await scouts().fail('fail', first.id, null, T0 + 6)).toEqual({ failed: false, reason: 'failed' });
    expect(await scouts().get('fail', first.id)).toMatchObject({
      state: 'error',
      report: invalid,
      reportStatus: 'error',
      failedAt: T0 + 5,
    });
    expect(await scouts().remaining('fail', 'sess-1', first.scopePaths, caps)).toEqual({ session: 1, scope: 1 });
    expect(await scouts().reserve('fail', scout(), caps)).toEqual({ ok: true, remaining: { session: 0, scope: 0 } });
  });

  it('lists a feature newest first (ties by id), page by page; by session and state too', async () => {
    // 7 of feature auth, two of them at the same instant; 3 others
    const auth = [1, 2, 3, 3, 4, 5, 6].map((h, i) =>
      scout({ featureSlug: 'auth', createdAt: T0 + h * 3_600_000, parentSessionId: i % 2 ? 'sess-b' : 'sess-a', scopePaths: [`d${i}`] }),
    );
    const others = [scout({ featureSlug: 'billing' }), scout(), scout({ featureSlug: 'auth-v2' })];
    for (const s of [...others, ...auth]) expect((await scouts().reserve('listing', s, { perSession: 50, perScope: 50 })).ok).toBe(true);
    await scouts().commit('listing', auth[2].id, { ok: 1 }, 'success', 10, T0);
    const expected = [...auth].sort((x, y) => y.createdAt - x.createdAt || (x.id < y.id ? 1 : -1)).map((s) => s.id);
    const pages: string[][] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10; i++) {
      const page = await scouts().list('listing', { feature: 'auth', limit: 3, cursor });
      pages.push(page.scouts.map((s) => s.id));
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(pages.flat()).toEqual(expected);
    const bySession = await scouts().list('listing', { feature: 'auth', parentSessionId: 'sess-b', limit: 10 });
    expect(bySession.scouts.map((s) => s.id)).toEqual(expected.filter((id) => auth.find((s) => s.id === id)!.parentSessionId === 'sess-b'));
    expect((await scouts().list('listing', { feature: 'auth', state: 'committed', limit: 10 })).scouts.map((s) => s.id)).toEqual([
      auth[2].id,
    ]);
    expect((await scouts().list('listing', { limit: 100 })).scouts).toHaveLength(10);
    await expect(scouts().list('listing', { feature: 'auth', limit: 3, cursor: 'bm90LW91cnM' })).rejects.toThrow(/cursor/);
  });

  it('sums up a period: dispatched, committed, per session, top topics, and the memory line', async () => {
    const caps = { perSession: 50, perScope: 50 };
    const day = (d: number, over: Partial<ScoutReservation>) => scout({ createdAt: T0 + d * DAY, ...over });
    const rows = [
      day(1, { featureSlug: 'auth-refresh', parentSessionId: 's1' }),
      day(1, { featureSlug: 'auth-refresh', parentSessionId: 's1' }),
      day(2, { featureSlug: 'auth-refresh', parentSessionId: 's2', parentAgent: 'codex' }),
      day(2, { question: 'Where is createRecordStore defined?', parentSessionId: 's1' }),
      day(3, { question: 'Who calls `createRecordStore()` first?', parentSessionId: 's2', parentAgent: 'codex' }),
      day(3, { question: 'How does the retry policy work for webhooks?', parentSessionId: 's3' }),
      day(4, { question: 'Retry policy: where is it set?', parentSessionId: 's3' }),
      // outside the period
      day(9, { featureSlug: 'billing', parentSessionId: 's1' }),
      day(-1, { featureSlug: 'billing', parentSessionId: 's1' }),
    ];
    for (const r of rows) await scouts().reserve('summary', r, caps);
    await scouts().commit('summary', rows[0].id, {}, 'success', 100, T0);
    await scouts().commit('summary', rows[3].id, {}, 'no_findings', 100, T0);
    await scouts().fail('summary', rows[5].id, null, T0);
    const s = await scouts().summary('summary', { from: T0, to: T0 + 5 * DAY, topTopics: 3 });
    expect(s).toEqual({
      dispatched: 7,
      committed: 2,
      perSession: [
        { parentSessionId: 's1', parentAgent: 'claude-code', count: 3 },
        { parentSessionId: 's2', parentAgent: 'codex', count: 2 },
        { parentSessionId: 's3', parentAgent: 'claude-code', count: 2 },
      ],
      topTopics: [
        { topic: 'auth-refresh', count: 3 },
        { topic: 'createRecordStore', count: 2 },
        { topic: 'retry policy', count: 2 },
      ],
    });
    expect(scoutSummaryLine(s)).toBe('scouts dispatched: 7 (top topics auth-refresh, createRecordStore, retry policy)');
    const none = await scouts().summary('nobody', { from: T0, to: T0 + DAY });
    expect(none).toEqual({ dispatched: 0, committed: 0, perSession: [], topTopics: [] });
    expect(scoutSummaryLine(none)).toBe('scouts dispatched: 0');
  });

  it('prunes only scouts without a feature created before the cutoff, every tenant; a dry run only counts', async () => {
    const caps = { perSession: 50, perScope: 50 };
    const now = T0 + 400 * DAY;
    const cutoff = now - 90 * DAY;
    const oldBare = [scout({ createdAt: cutoff - 1 }), scout({ createdAt: cutoff - 30 * DAY })];
    const oldFeatured = scout({ createdAt: cutoff - 300 * DAY, featureSlug: 'auth' });
    const recentBare = scout({ createdAt: cutoff });
    for (const s of [...oldBare, oldFeatured, recentBare]) await scouts().reserve('prune-a', s, caps);
    const otherTenant = scout({ createdAt: cutoff - DAY });
    await scouts().reserve('prune-b', otherTenant, caps);
    // earlier tests' scouts are all before T0 + 10 days: pruned too unless featured; count them
    const before = (await scouts().list('prune-a', { limit: 100 })).scouts.length;
    const dry = await scouts().prune({ before: cutoff, dryRun: true });
    expect(dry.dryRun).toBe(true);
    expect(dry.scouts).toBeGreaterThanOrEqual(3);
    expect((await scouts().list('prune-a', { limit: 100 })).scouts).toHaveLength(before);
    expect(await scouts().prune({ before: cutoff, dryRun: false })).toEqual({ dryRun: false, scouts: dry.scouts });
    for (const s of oldBare) expect(await scouts().get('prune-a', s.id)).toBeUndefined();
    expect(await scouts().get('prune-b', otherTenant.id)).toBeUndefined();
    expect((await scouts().get('prune-a', oldFeatured.id))!.featureSlug).toBe('auth');
    expect(await scouts().get('prune-a', recentBare.id)).toBeDefined();
    // every scout left without a feature is at or after the cutoff
    for (const t of ['within', 'listing', 'summary', 'prune-a']) {
      for (const s of (await scouts().list(t, { limit: 100 })).scouts) expect(s.featureSlug !== null || s.createdAt >= cutoff).toBe(true);
    }
    expect(await scouts().prune({ before: cutoff, dryRun: false })).toEqual({ dryRun: false, scouts: 0 });
  });
});
