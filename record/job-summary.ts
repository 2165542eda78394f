/**
 * The sum of a tenant's jobs finished in a period: counts and spend by status, spend by agent
 * (from `job_agents`) and their prompt-cache hit rates, the hit rates per role (prompt-cache.ts),
 * and the most frequent labels (from `job_labels`).
 */
import type { JobOutcome, ReportSummary } from '../schemas';
import { fromMicros } from '../core/money';
import type { RecordDb } from './db';
import { hitRate, roleCacheRates } from './prompt-cache';

/** The record's summary, over an open database (part of `createRecordStore`). */
export function createJobSummary({ db }: RecordDb) {
  return {
    /** Counts, spend by status and by agent, and the top labels of a tenant's jobs finished in [from, to). */
    async summary(tenant: string, from: number, to: number, topLabels = 10): Promise<ReportSummary> {
      const byStatus = await db
        .selectFrom('jobs')
        .select((eb) => [
          'status',
          eb.fn.countAll<number>().as('jobs'),
          eb.fn.sum<number>('subtasks').as('subtasks'),
          eb.fn.sum<number>('cost_micros').as('micros'),
          eb.fn.sum<number>('tokens').as('tokens'),
          eb.fn.sum<number>('tool_calls').as('tool_calls'),
        ])
        .where('tenant', '=', tenant)
        .where('closed_at', '>=', from)
        .where('closed_at', '<', to)
        .groupBy('status')
        .orderBy('status')
        .execute();
      const byAgent = await db
        .selectFrom('job_agents')
        .select((eb) => [
          'agent_id',
          eb.fn.sum<number>('subtasks').as('subtasks'),
          eb.fn.sum<number>('cost_micros').as('micros'),
          eb.fn.sum<number>('tokens').as('tokens'),
          eb.fn.sum<number>('input_tokens').as('input'),
          eb.fn.sum<number>('cached_input_tokens').as('cached'),
        ])
        .where('tenant', '=', tenant)
        .where('closed_at', '>=', from)
        .where('closed_at', '<', to)
        .groupBy('agent_id')
        .orderBy('micros', 'desc')
        .orderBy('agent_id')
        .execute();
      const labels = await db
        .selectFrom('job_labels')
        .select((eb) => ['key', 'value', eb.fn.countAll<number>().as('jobs')])
        .where('tenant', '=', tenant)
        .where('closed_at', '>=', from)
        .where('closed_at', '<', to)
        .groupBy(['key', 'value'])
        .orderBy('jobs', 'desc')
        .orderBy('key')
        .orderBy('value')
        .limit(topLabels)
        .execute();
      // PostgreSQL sums and counts bigints as numeric/int8: strings or numbers, made numbers here
      const n = (v: unknown) => Number(v ?? 0);
      const sum = (k: 'jobs' | 'subtasks' | 'micros' | 'tokens' | 'tool_calls') => byStatus.reduce((a, r) => a + n(r[k]), 0);
      return {
        from: new Date(from).toISOString(),
        to: new Date(to).toISOString(),
        jobs: sum('jobs'),
        subtasks: sum('subtasks'),
        spend: { costUsd: fromMicros(sum('micros')), tokens: sum('tokens'), toolCalls: sum('tool_calls') },
        byStatus: byStatus.map((r) => ({ status: r.status as JobOutcome, jobs: n(r.jobs), costUsd: fromMicros(n(r.micros)) })),
        byAgent: byAgent.map((r) => ({
          agentId: r.agent_id,
          subtasks: n(r.subtasks),
          costUsd: fromMicros(n(r.micros)),
          tokens: n(r.tokens),
          cacheHitRate: hitRate(n(r.input), n(r.cached)),
        })),
        byRole: await roleCacheRates(db, tenant, from, to),
        topLabels: labels.map((r) => ({ label: `${r.key}=${r.value}`, jobs: n(r.jobs) })),
      };
    },
  };
}
