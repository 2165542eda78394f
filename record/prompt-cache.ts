/**
 * Prompt-cache hit rates in the record: of the input tokens a job's subtasks sent, the part the
 * provider read from its prompt cache (`cachedInputTokens`), summed per agent (job_agents' columns)
 * and per role (job_roles) by the archive, in its transaction; read back as rates per period. Sums,
 * not task_stats' bins: a rate is a ratio of two totals, and bins would only approximate them.
 *
 *   archive ── results ──> job_agents.input_tokens / cached_input_tokens, job_roles (per role)
 *   summary ── SUM over the period ──> cacheHitRate = cached / input (null: no input tokens reported)
 */
import type { Kysely } from 'kysely';
import type { TaskResult } from '../schemas';
import type { RecordTables } from './db';

/** Input and cached input tokens of some results. */
export interface TokenSplitSums {
  subtasks: number;
  input: number;
  cached: number;
}

/** The sums of `results` grouped by `keyOf` (results it gives no key are left out). */
export function splitSums(results: TaskResult[], keyOf: (r: TaskResult) => string | undefined): Map<string, TokenSplitSums> {
  const by = new Map<string, TokenSplitSums>();
  for (const r of results) {
    const key = keyOf(r);
    if (key === undefined) continue;
    const s = by.get(key) ?? { subtasks: 0, input: 0, cached: 0 };
    s.subtasks++;
    s.input += r.metrics.inputTokens ?? 0;
    s.cached += r.metrics.cachedInputTokens ?? 0;
    by.set(key, s);
  }
  return by;
}

/** The share of input tokens read from the cache; null when none were reported. */
export const hitRate = (input: number, cached: number): number | null => (input > 0 ? cached / input : null);

/** Writes a job's per-role sums inside the archive's transaction (role tasks only). */
export async function addRoleCacheSums(
  trx: Kysely<RecordTables>,
  o: { job: number; tenant: string; closedAt: number; results: TaskResult[] },
): Promise<void> {
  const rows = [...splitSums(o.results, (r) => r.role?.id)].map(([role, s]) => ({
    job: o.job,
    tenant: o.tenant,
    role,
    subtasks: s.subtasks,
    input_tokens: s.input,
    cached_input_tokens: s.cached,
    closed_at: o.closedAt,
  }));
  if (rows.length) await trx.insertInto('job_roles').values(rows).execute();
}

/** A tenant's prompt-cache reads per role of the jobs finished in [from, to), most input first. */
export async function roleCacheRates(db: Kysely<RecordTables>, tenant: string, from: number, to: number) {
  const rows = await db
    .selectFrom('job_roles')
    .select((eb) => [
      'role',
      eb.fn.sum<number>('subtasks').as('subtasks'),
      eb.fn.sum<number>('input_tokens').as('input'),
      eb.fn.sum<number>('cached_input_tokens').as('cached'),
    ])
    .where('tenant', '=', tenant)
    .where('closed_at', '>=', from)
    .where('closed_at', '<', to)
    .groupBy('role')
    .orderBy('input', 'desc')
    .orderBy('role')
    .execute();
  // PostgreSQL sums bigints as numeric: strings
  return rows.map((r) => {
    const input = Number(r.input ?? 0);
    const cached = Number(r.cached ?? 0);
    return {
      role: r.role,
      subtasks: Number(r.subtasks ?? 0),
      inputTokens: input,
      cachedInputTokens: cached,
      cacheHitRate: hitRate(input, cached),
    };
  });
}
