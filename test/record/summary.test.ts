/**
 * The record's summary over 50 archived jobs, on both stores: counts and spend checked
 * against the jobs archived, exact to the micro-dollar, over a [from, to) period.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { RecordStore } from '../../record';
import type { JobOutcome } from '../../schemas';
import { fromMicros, toMicros } from '../../core/money';
import { closedAtOf, recordJob } from '../record-jobs';
import { openFreshRecord, RECORD_STORES } from '../record-stores';
import type { Archived } from './reference';

const TENANT = 'acme';
type ReportSummary = Awaited<ReturnType<RecordStore['summary']>>;

/** The summary the archived jobs add up to, in plain code. */
function expectedSummary(archived: Archived, from: number, to: number, top = 10): Omit<ReportSummary, 'from' | 'to'> {
  const jobs = archived.filter((j) => j.tenant === TENANT && j.closedAt >= from && j.closedAt < to);
  const results = jobs.flatMap((j) => j.result.results);
  const micros = (xs: number[]) => xs.reduce((s, x) => s + toMicros(x), 0);
  const group = <T>(xs: T[], key: (x: T) => string) => {
    const m = new Map<string, T[]>();
    for (const x of xs) m.set(key(x), [...(m.get(key(x)) ?? []), x]);
    return [...m];
  };
  const labels = jobs.flatMap((j) => Object.entries(j.labels ?? {}));
  return {
    jobs: jobs.length,
    subtasks: results.length,
    spend: {
      costUsd: fromMicros(micros(jobs.map((j) => j.result.metrics.costUsd))),
      tokens: jobs.reduce((s, j) => s + j.result.metrics.tokens, 0),
      toolCalls: jobs.reduce((s, j) => s + j.result.metrics.toolCalls, 0),
    },
    byStatus: group(jobs, (j) => j.result.status)
      .map(([status, js]) => ({
        status: status as JobOutcome,
        jobs: js.length,
        costUsd: fromMicros(micros(js.map((j) => j.result.metrics.costUsd))),
      }))
      .sort((a, b) => (a.status < b.status ? -1 : 1)),
    byAgent: group(results, (r) => r.agentId)
      .map(([agentId, rs]) => ({
        agentId,
        subtasks: rs.length,
        micros: micros(rs.map((r) => r.metrics.costUsd)),
        tokens: rs.reduce((s, r) => s + r.metrics.tokens, 0),
        // these results report no token split: no rate
        cacheHitRate: null,
      }))
      .sort((a, b) => b.micros - a.micros || (a.agentId < b.agentId ? -1 : 1))
      .map(({ micros: m, ...a }) => ({ ...a, costUsd: fromMicros(m) })),
    byRole: [],
    topLabels: group(labels, ([k, v]) => `${k}=${v}`)
      .map(([label, ls]) => ({ label, jobs: ls.length, key: ls[0][0], value: ls[0][1] }))
      .sort((a, b) => b.jobs - a.jobs || (a.key < b.key ? -1 : a.key > b.key ? 1 : a.value < b.value ? -1 : 1))
      .slice(0, top)
      .map(({ label, jobs: n }) => ({ label, jobs: n })),
  };
}

describe.each(RECORD_STORES)('record summary on %s', (kind) => {
  const record = openFreshRecord(kind);
  const archived: Archived = [];

  beforeAll(async () => {
    for (let n = 0; n < 50; n++) archived.push(recordJob(TENANT, (n * 37) % 50));
    for (const i of [3, 10, 11, 12]) archived.push(recordJob('other', i));
    for (const j of archived) await record.store.archive(j);
  });

  it('adds up every job: counts, spend by status and by agent to the micro-dollar, top labels', async () => {
    const from = closedAtOf(0);
    const to = closedAtOf(49) + 1;
    const got = await record.store.summary(TENANT, from, to);
    expect(got).toEqual({ from: new Date(from).toISOString(), to: new Date(to).toISOString(), ...expectedSummary(archived, from, to) });
    expect(got.jobs).toBe(50);
    expect(got.byStatus.map((s) => s.status)).toEqual(['cancelled', 'failure', 'partial', 'success']);
    expect(got.byAgent.map((a) => a.agentId).sort()).toEqual(['researcher', 'scout', 'sim', 'wordcount']);
    // the amounts are odd micro-dollars: summing dollars as floats would be off
    const floatSum = archived.filter((j) => j.tenant === TENANT).reduce((s, j) => s + j.result.metrics.costUsd, 0);
    expect(floatSum).not.toBe(got.spend.costUsd);
    expect(Math.abs(floatSum - got.spend.costUsd)).toBeLessThan(1e-9);
    expect(got.spend.costUsd).toBe(Number(got.spend.costUsd.toFixed(6)));
    // PostgreSQL sums bigints as numeric (strings on the wire): every figure is a number
    for (const v of [
      got.jobs,
      got.subtasks,
      got.spend.costUsd,
      got.spend.tokens,
      got.spend.toolCalls,
      ...got.byStatus.flatMap((s) => [s.jobs, s.costUsd]),
      ...got.byAgent.flatMap((a) => [a.subtasks, a.costUsd, a.tokens]),
      ...got.topLabels.map((l) => l.jobs),
    ])
      expect(typeof v).toBe('number');
  });

  it('counts jobs finished in [from, to): from included, to excluded', async () => {
    // jobs 10 and 11 close at `from`, 20 and 21 at `to`
    const from = closedAtOf(10);
    const to = closedAtOf(20);
    const got = await record.store.summary(TENANT, from, to);
    expect(got.jobs).toBe(10);
    expect(got).toMatchObject(expectedSummary(archived, from, to));
    expect((await record.store.summary(TENANT, from, from + 1)).jobs).toBe(2);
    expect((await record.store.summary(TENANT, to - 1, to)).jobs).toBe(0);
  });

  it('keeps the top N labels, most used first, ties by key then value', async () => {
    const from = closedAtOf(0);
    const to = closedAtOf(49) + 1;
    const got = await record.store.summary(TENANT, from, to, 3);
    expect(got.topLabels).toEqual(expectedSummary(archived, from, to, 3).topLabels);
    expect(got.topLabels).toHaveLength(3);
  });

  it('an empty period or another tenant sums to zero', async () => {
    const empty = { jobs: 0, subtasks: 0, spend: { costUsd: 0, tokens: 0, toolCalls: 0 }, byStatus: [], byAgent: [], topLabels: [] };
    expect(await record.store.summary(TENANT, closedAtOf(60), closedAtOf(70))).toMatchObject(empty);
    expect(await record.store.summary('nobody', closedAtOf(0), closedAtOf(50))).toMatchObject(empty);
    expect((await record.store.summary('other', closedAtOf(0), closedAtOf(50))).jobs).toBe(4);
  });
});
