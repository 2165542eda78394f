/**
 * Search over 50 archived jobs, on both stores: every filter alone and combined, free text
 * (prefixes, accents, hyphens, hostile input), cursor pages, and the same hits on both stores.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecordStore, type RecordStore, type ReportFilter } from '../../record';
import { closedAtOf, recordJob } from '../record-jobs';
import { openFreshRecord, RECORD_STORES } from '../record-stores';
import { expectedHits, walk, type Archived } from './reference';

const TENANT = 'acme';
type Query = Omit<ReportFilter, 'limit' | 'cursor'>;
type Report = Awaited<ReturnType<RecordStore['search']>>['reports'][number];

/** Every query, by name: each filter alone, then combined. */
const QUERIES: Record<string, Query> = {
  all: {},
  'label feature=checkout': { label: ['feature=checkout'] },
  'label feature=search': { label: ['feature=search'] },
  'two labels': { label: ['feature=billing', 'team=payments'] },
  'label nobody has': { label: ['feature=nothing'] },
  'pattern vote': { pattern: 'vote' },
  'status success': { status: 'success' },
  'status cancelled': { status: 'cancelled' },
  'agent scout': { agent: 'scout' },
  'agent nobody is': { agent: 'nobody' },
  from: { from: closedAtOf(30) },
  to: { to: closedAtOf(10) },
  'from to': { from: closedAtOf(10), to: closedAtOf(31) },
  'text word': { text: 'refund' },
  'text prefix': { text: 'pay' },
  'text two words': { text: 'refund ledger' },
  'text café': { text: 'café' },
  'text cafe': { text: 'cafe' },
  'text CAFÉ': { text: 'CAFÉ prices' },
  'text hyphenated': { text: 'charge-the-card' },
  'text rare': { text: 'zanzibar' },
  'text objective number': { text: 'round 4' },
  'text nothing matches': { text: 'xylophone' },
  'combined pattern status': { pattern: 'fanout', status: 'success' },
  'combined label agent time': { label: ['team=growth'], agent: 'researcher', from: closedAtOf(5), to: closedAtOf(45) },
  'combined everything': {
    label: ['team=payments'],
    pattern: 'pipeline',
    status: 'success',
    agent: 'wordcount',
    from: closedAtOf(0),
    to: closedAtOf(49),
    text: 'what',
  },
  'combined text label': { text: 'pay', label: ['feature=checkout'] },
};

/** User input that reaches the free-text predicate: none may throw. */
const HOSTILE = [
  'foo"bar',
  'a:b*',
  '"',
  "'",
  '*',
  'NEAR(a b)',
  'a OR b',
  'NOT',
  '!()&|',
  '-x',
  '^a',
  'a AND',
  ':*',
  '\\',
  'é',
  '  ',
  '🙂 pay',
  'x'.repeat(3000),
];

/** Each store's full answers, to compare the stores with each other. */
const answers = new Map<string, Map<string, Report[]>>();

describe.each(RECORD_STORES)('record search on %s', (kind) => {
  const record = openFreshRecord(kind);
  const archived: Archived = [];
  const mine = new Map<string, Report[]>();
  answers.set(kind, mine);

  beforeAll(async () => {
    // archive order differs from closing order: ties on closedAt fall back on archive order
    for (let n = 0; n < 50; n++) archived.push(recordJob(TENANT, (n * 37) % 50));
    // another tenant's jobs match every query: they must never show
    for (const i of [0, 4, 7, 17, 22]) archived.push(recordJob('other', i));
    for (const j of archived) await record.store.archive(j);
  });

  it.each(Object.keys(QUERIES))('%s: every match once, newest close first, in pages of 7', async (name) => {
    const f = QUERIES[name];
    const want = expectedHits(archived, TENANT, f);
    const { reports, ids, sizes } = await walk(record.store, TENANT, f, 7);
    expect(ids).toEqual(want);
    // full pages until the last, which is short or empty (nextCursor null only at the end)
    expect(sizes.slice(0, -1).every((s) => s === 7)).toBe(true);
    expect(sizes.at(-1)).toBeLessThanOrEqual(7);
    mine.set(name, reports);
    // PostgreSQL finds few text matches through its index first, many by walking the time index: both give these hits
    const walked = await walk(createRecordStore(record.db, { sparseText: 0 }), TENANT, f, 7);
    expect(walked.ids).toEqual(want);
  });

  it('the designed texts find exactly their jobs (accents folded, hyphens split, prefixes)', async () => {
    const ids = async (text: string) => (await walk(record.store, TENANT, { text }, 50)).ids.sort();
    const withCafe = archived
      .filter((j) => j.tenant === TENANT && Number(j.jobId.slice(4)) % 7 === 0)
      .map((j) => j.jobId)
      .sort();
    expect(withCafe.length).toBe(8);
    expect(await ids('café')).toEqual(withCafe);
    expect(await ids('cafe')).toEqual(withCafe);
    expect(await ids('Cafe\u0301')).toEqual(withCafe);
    expect(await ids('caf')).toEqual(withCafe);
    const charged = archived
      .filter((j) => j.tenant === TENANT && Number(j.jobId.slice(4)) % 9 === 4)
      .map((j) => j.jobId)
      .sort();
    expect(charged.length).toBe(6);
    expect(await ids('charge-the-card')).toEqual(charged);
    expect(await ids('charge the card')).toEqual(charged);
    expect(await ids('ZANZIBAR')).toEqual(['job-17']);
  });

  it('hostile input never throws, and a text of no words filters nothing', async () => {
    for (const text of HOSTILE) {
      const { ids } = await walk(record.store, TENANT, { text }, 50);
      expect(ids, text).toEqual(expectedHits(archived, TENANT, { text }));
    }
    expect((await walk(record.store, TENANT, { text: '*' }, 50)).ids.length).toBe(50);
  });

  it('pages of one walk ties on the closing time in (closedAt, id) order', async () => {
    const one = await walk(record.store, TENANT, {}, 1);
    expect(one.ids).toEqual(expectedHits(archived, TENANT, {}));
    expect(one.sizes.filter((s) => s === 1).length).toBe(50);
    const last = await record.store.search(TENANT, { limit: 50 });
    expect(last.nextCursor).toBeNull();
    const exact = await record.store.search(TENANT, { limit: 49 });
    expect(exact.nextCursor).not.toBeNull();
    expect(await record.store.search(TENANT, { limit: 49, cursor: exact.nextCursor! })).toMatchObject({
      reports: [{ jobId: 'job-0' }],
      nextCursor: null,
    });
  });

  it('a hit carries what a list shows: labels, spend, agents, times, digest', async () => {
    const job = archived.find((j) => j.tenant === TENANT && j.jobId === 'job-7')!;
    // job 7 alone closes at that instant
    const {
      reports: [hit, ...more],
    } = await record.store.search(TENANT, { from: job.closedAt, to: job.closedAt + 1, limit: 5 });
    expect(more).toEqual([]);
    expect(hit).toEqual({
      jobId: 'job-7',
      workflowId: job.workflowId,
      pattern: job.result.pattern,
      status: job.result.status,
      labels: job.labels,
      startedAt: new Date(job.startedAt).toISOString(),
      closedAt: new Date(job.closedAt).toISOString(),
      subtasks: job.result.results.length,
      agents: [...new Set(job.result.results.map((r) => r.agentId))].sort(),
      spend: { costUsd: job.result.metrics.costUsd, tokens: job.result.metrics.tokens, toolCalls: job.result.metrics.toolCalls },
      digest: expect.stringContaining(job.result.results[0].summary.trim()),
    });
    const withObjective = archived.find((j) => j.tenant === TENANT && j.jobId === 'job-8')!;
    const [other] = (await record.store.search(TENANT, { from: withObjective.closedAt, to: withObjective.closedAt + 1, limit: 5 })).reports;
    expect(other).toMatchObject({ jobId: 'job-8', objective: withObjective.objective });
    for (const v of [hit.subtasks, hit.spend.costUsd, hit.spend.tokens, hit.spend.toolCalls]) expect(typeof v).toBe('number');
  });
});

describe('record search on both stores', () => {
  afterAll(() => answers.clear());
  it('gives the same hits, field for field, for every query', () => {
    const [sqlite, postgres] = RECORD_STORES.map((k) => answers.get(k)!);
    expect([...sqlite.keys()].sort()).toEqual(Object.keys(QUERIES).sort());
    for (const name of Object.keys(QUERIES)) expect(postgres.get(name), name).toEqual(sqlite.get(name));
  });
});
