/**
 * The load router: picks which of a capability's agents gets a task, by the load Temporal
 * reports for each agent's task queue (its pool's, or the lane for an agent without one).
 *
 *   candidates ──> queue per agent ──> describeTaskQueue (stats + pollers, cached 1 s) ──> pickByLoad ──> agent + reason
 *
 * Round-robin state (which tied agent is next) lives in the router, one per worker process.
 */
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { stepQueueFor } from '../core/names';
import { LIVE_POLLER_MS, pickByLoad, type CandidateLoad } from './load-score';
import type { RouteDecision } from '../contracts/step';

/** Temporal API's TaskQueueType of activity queues (a wire value, stable; the proto module is type-only here). */
export const ACTIVITY_QUEUE: temporal.api.enums.v1.TaskQueueType = 2;

/** What Temporal says of one activity task queue. */
export interface QueueStats {
  backlog: number;
  /** When each listed poller last polled (epoch ms). */
  pollersLastPolled: number[];
  addRate: number;
  dispatchRate: number;
}

/** Reads one activity task queue's stats. */
export type DescribeQueue = (queue: string) => Promise<QueueStats>;

/** A number out of a protobuf Long, number or null. */
const num = (v: { toString(): string } | number | null | undefined): number => (v == null ? 0 : Number(v.toString()));

/** Reads queues through a client's workflow service (`DescribeTaskQueue` with `reportStats`). */
export function describeWithClient(client: Pick<Client, 'workflowService' | 'options'>): DescribeQueue {
  return async (queue) => {
    const res = await client.workflowService.describeTaskQueue({
      namespace: client.options.namespace,
      taskQueue: { name: queue },
      taskQueueType: ACTIVITY_QUEUE,
      reportStats: true,
    });
    return {
      backlog: num(res.stats?.approximateBacklogCount),
      pollersLastPolled: (res.pollers ?? []).map(
        (p) => num(p.lastAccessTime?.seconds) * 1000 + Math.floor(num(p.lastAccessTime?.nanos) / 1e6),
      ),
      addRate: res.stats?.tasksAddRate ?? 0,
      dispatchRate: res.stats?.tasksDispatchRate ?? 0,
    };
  };
}

/** One agent that declares the capability. */
export interface RouteCandidate {
  agent: string;
  pool?: string;
}

/** Options of `createLoadRouter`. */
export interface LoadRouterOptions {
  /** Reads a queue's stats; called at most once per queue per `cacheMs`. */
  describe: DescribeQueue;
  /** Concurrent steps one worker runs from a queue (the router's best knowledge: this worker's configuration). */
  slotsOf(queue: string, pool?: string): number;
  /** How long a queue's stats are reused. @default 1000 */
  cacheMs?: number;
  /** The clock. @default Date.now */
  now?: () => number;
}

/** Picks among a capability's agents by their queues' load. */
export interface LoadRouter {
  /** The agent among `candidates` (two or more) whose queue on `lane` is least loaded; ties round-robin. */
  route(input: { capability: string; lane: string; candidates: RouteCandidate[] }): Promise<RouteDecision>;
}

/** Creates a router with its own stats cache and round-robin turns. */
export function createLoadRouter({ describe, slotsOf, cacheMs = 1000, now = Date.now }: LoadRouterOptions): LoadRouter {
  const cache = new Map<string, { at: number; stats: Promise<QueueStats> }>();
  const turns = new Map<string, number>();
  const statsOf = (queue: string): Promise<QueueStats> => {
    const hit = cache.get(queue);
    if (hit && now() - hit.at < cacheMs) return hit.stats;
    const stats = describe(queue);
    cache.set(queue, { at: now(), stats });
    // a failed read is not kept: the next task asks again
    void stats.catch(() => cache.get(queue)?.stats === stats && cache.delete(queue));
    return stats;
  };
  return {
    async route({ capability, lane, candidates }) {
      const loads = await Promise.all(
        candidates.map(async ({ agent, pool }): Promise<CandidateLoad> => {
          const queue = stepQueueFor(lane, pool);
          const label = pool ? `pool ${pool}` : 'lane';
          const slots = slotsOf(queue, pool);
          try {
            const s = await statsOf(queue);
            const live = s.pollersLastPolled.filter((t) => now() - t <= LIVE_POLLER_MS).length;
            return { agent, label, backlog: s.backlog, pollers: s.pollersLastPolled.length, livePollers: live, slots };
          } catch (err) {
            return {
              agent,
              label,
              backlog: 0,
              pollers: 0,
              livePollers: 0,
              slots,
              unknown: String((err as Error).message ?? err).slice(0, 200),
            };
          }
        }),
      );
      const key = `${lane}\u0000${capability}`;
      const turn = turns.get(key) ?? 0;
      const { agent, reason, tied } = pickByLoad(loads, turn);
      if (tied > 1) turns.set(key, turn + 1);
      return { agent, reason };
    },
  };
}
