/**
 * The identical-subtask cache in the record: a subtask's success, by tenant and key (the hash
 * of what made it: core/result-cache.ts), served to identical subtasks of the same tenant until
 * it expires. Every read names the tenant, so no tenant is served another's result.
 *
 *   job, a cached task succeeded ──put(tenant, key, result, ttl)──> result_cache (a newer success replaces the row)
 *   job, before a cached task / API forecast ──get(tenant, key)──> the result and its job, unless expired
 *   prune ──expired rows──> gone
 */
import type { TaskResult } from '../schemas';
import type { RecordDb } from './db';

/** A cached success and where it came from. */
export interface CachedResult {
  result: TaskResult;
  jobId: string;
  taskId: string;
  createdAt: number;
}

/** The result cache part of the record. */
export function createResultCache({ db }: RecordDb) {
  return {
    /** Keeps a success for `ttlSeconds`; a later success of the same key replaces it (and its expiry). */
    async put(o: { tenant: string; key: string; jobId: string; taskId: string; result: TaskResult; ttlSeconds: number; now?: number }) {
      const now = o.now ?? Date.now();
      const row = {
        tenant: o.tenant,
        cache_key: o.key,
        job_id: o.jobId,
        task_id: o.taskId,
        result: JSON.stringify(o.result),
        created_at: now,
        expires_at: now + o.ttlSeconds * 1000,
      };
      await db
        .insertInto('result_cache')
        .values(row)
        .onConflict((oc) =>
          oc.columns(['tenant', 'cache_key']).doUpdateSet({
            job_id: row.job_id,
            task_id: row.task_id,
            result: row.result,
            created_at: row.created_at,
            expires_at: row.expires_at,
          }),
        )
        .execute();
    },

    /** The tenant's unexpired success under `key`; undefined when there is none. */
    async get(tenant: string, key: string, now = Date.now()): Promise<CachedResult | undefined> {
      const row = await db
        .selectFrom('result_cache')
        .select(['result', 'job_id', 'task_id', 'created_at'])
        .where('tenant', '=', tenant)
        .where('cache_key', '=', key)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      if (!row) return undefined;
      return { result: JSON.parse(row.result) as TaskResult, jobId: row.job_id, taskId: row.task_id, createdAt: Number(row.created_at) };
    },

    /** Deletes the rows expired by `now`; returns how many. */
    async prune(now = Date.now()): Promise<number> {
      const res = await db.deleteFrom('result_cache').where('expires_at', '<=', now).executeTakeFirst();
      return Number(res.numDeletedRows ?? 0);
    },
  };
}

/** The result cache's operations. */
export type ResultCacheStore = ReturnType<typeof createResultCache>;
