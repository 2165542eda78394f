/**
 * The record's task statistics, read through a short cache: the steps of a fan-out route and
 * hedge at once, so one read of a tenant's window is shared for `cacheMs` by every caller asking
 * for the same agents; a failed read is forgotten at once, so the next caller asks again.
 *
 *   (tenant, agents) ──cached for cacheMs (newest 1000 keys)──> record.stats.window
 */
import { LRUCache } from 'lru-cache';
import type { TaskStatsStore } from '../record';

/** One read of a tenant's statistics of some agents. */
export type StatsWindow = ReturnType<TaskStatsStore['window']>;

/** Options of `cachedStatsWindow`. */
export interface StatsWindowOptions {
  /** How long one read is shared. @default 1000 */
  cacheMs?: number;
  /** Days of history. @default the record's window */
  days?: number;
  /** The cache's clock (tests move it). @default Date.now */
  now?: () => number;
}

/** Reads `stats.window`, sharing each read of the same tenant and agents for `cacheMs`. */
export function cachedStatsWindow(
  stats: Pick<TaskStatsStore, 'window'>,
  { cacheMs = 1000, days, now = Date.now }: StatsWindowOptions = {},
): (tenant: string, agents: string[]) => StatsWindow {
  // entries are fresh for cacheMs on the caller's own clock (`now`), not lru-cache's
  const cache = new LRUCache<string, { at: number; read: StatsWindow }>({ max: 1000 });
  return (tenant, agents) => {
    const key = `${tenant}\u0000${agents.join('\u0000')}`;
    const hit = cache.get(key);
    if (hit && now() - hit.at < cacheMs) return hit.read;
    const fresh = stats.window(tenant, agents, days === undefined ? {} : { days });
    cache.set(key, { at: now(), read: fresh });
    void fresh.catch(() => cache.get(key)?.read === fresh && cache.delete(key));
    return fresh;
  };
}
