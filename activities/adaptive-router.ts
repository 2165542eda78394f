/**
 * The adaptive router: picks which of a capability's agents gets a task by their measured
 * quality in the tenant's record (success rate, cost, latency), by Thompson sampling
 * (core/adaptive-route.ts says why).
 *
 *   candidates ──> record task statistics of the tenant (window, cached 1 s) ──> pickAdaptive ──> agent + reason
 */
import { log } from '@temporalio/activity';
import type { TaskStatsStore } from '../record';
import { mergeStats } from '../core/forecast-sketch';
import { pickAdaptive, type RouteWeights } from '../core/adaptive-route';
import { cachedStatsWindow, type StatsWindow } from './stats-window';
import type { RouteCandidate } from './load-router';
import type { RouteDecision } from '../contracts/step';

/** Options of `createAdaptiveRouter`. */
export interface AdaptiveRouterOptions {
  stats: Pick<TaskStatsStore, 'window'>;
  /** The random source of the posterior draws. @default Math.random */
  random?: () => number;
  /** Days of history. @default the record's window (30) */
  windowDays?: number;
  /** How long one read of a tenant's statistics is reused. @default 1000 */
  cacheMs?: number;
  now?: () => number;
}

/** Picks among a capability's agents by measured quality. */
export interface AdaptiveRouter {
  route(input: { tenant?: string; candidates: RouteCandidate[]; weights: RouteWeights }): Promise<RouteDecision>;
}

/** Creates an adaptive router over the record's task statistics. */
export function createAdaptiveRouter({
  stats,
  random = Math.random,
  windowDays,
  cacheMs = 1000,
  now = Date.now,
}: AdaptiveRouterOptions): AdaptiveRouter {
  const read = cachedStatsWindow(stats, { cacheMs, now, days: windowDays });
  return {
    async route({ tenant, candidates, weights }) {
      const agents = candidates.map((c) => c.agent);
      let history: Awaited<StatsWindow> | undefined;
      let note = '';
      try {
        history = tenant === undefined ? undefined : await read(tenant, agents);
        if (tenant === undefined) note = ' (no tenant in the workflow id: no history read)';
      } catch (err) {
        log.warn('adaptive routing: the record could not be read; every agent counts as untried', { error: String(err) });
        note = ' (the record could not be read: no history)';
      }
      const pick = pickAdaptive(
        agents.map((agent) => {
          const byPattern = history?.get(agent);
          return byPattern ? { agent, stats: mergeStats([...byPattern.values()]) } : { agent };
        }),
        weights,
        random,
      );
      return { agent: pick.agent, reason: pick.reason + note };
    },
  };
}
