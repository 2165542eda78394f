/**
 * The identical-subtask cache's activities (local activities of the job, core/result-cache.ts
 * for its rules): the key hashed here, where Node's crypto is, and the record read and written.
 *
 *   job ──lookupCachedResult({ tenant, parts })──> { key, hit? }   (a miss also returns the key: the job de-duplicates by it)
 *   job ──storeCachedResult({ tenant, key, jobId, result, ttlSeconds })──> record.resultCache
 */
import { createHash } from 'node:crypto';
import type { CachedResult, RecordStore } from '../record';
import type { TaskResult } from '../schemas';
import type { CacheKeyParts } from '../core/result-cache';
import { canonicalJson } from '../core/vote-tally';

// the key's JSON is the one ballots and job specs are compared by: object keys sorted, undefined members dropped
export { canonicalJson };

/** The cache key of a tenant's subtask: sha256 (hex) of the parts and the tenant, as canonical JSON. */
export function cacheKey(tenant: string, parts: CacheKeyParts): string {
  return createHash('sha256')
    .update(canonicalJson({ tenant, ...parts }))
    .digest('hex');
}

/** What a lookup returns: the key, and the cached success when there is one. */
export interface CacheLookup {
  key: string;
  hit?: Pick<CachedResult, 'result' | 'jobId'>;
}

/** Input of storeCachedResult. */
export interface StoreCachedInput {
  tenant: string;
  key: string;
  jobId: string;
  result: TaskResult;
  ttlSeconds: number;
}

/** The cache's activities over the record. */
export function createResultCacheActivities(record: Pick<RecordStore, 'resultCache'>) {
  return {
    /** The key of a subtask and, when the tenant's record holds an unexpired success under it, that result. */
    async lookupCachedResult(input: { tenant: string; parts: CacheKeyParts }): Promise<CacheLookup> {
      const key = cacheKey(input.tenant, input.parts);
      const found = await record.resultCache.get(input.tenant, key);
      return found ? { key, hit: { result: found.result, jobId: found.jobId } } : { key };
    },

    /** Keeps a subtask's success for identical subtasks of the tenant. */
    async storeCachedResult(input: StoreCachedInput): Promise<void> {
      await record.resultCache.put({ ...input, taskId: input.result.id });
    },
  };
}
