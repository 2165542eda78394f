/**
 * Which task queues have a worker, as Temporal sees them (DescribeTaskQueue: the pollers it
 * saw lately), cached a few seconds so a submission costs at most one look-up per queue per
 * period. A queue nobody polls would hold a job's workflow or steps forever, without an error.
 *
 *   submit ──workers up (workflow queue served)? ──tenant lane, pooled agents' queues served? ──no──> 503 naming them
 *   /readyz ──workflow queue, every tenant's lane (× every declared pool)──> lanesWithoutWorker
 *
 * "Served" means a poller polled within `recentMs`: a worker that was killed a moment ago
 * still counts (its replacement is coming), one gone for minutes does not. A lane this watch
 * saw served within `rememberMs` counts too: a worker whose every slot of the lane is busy
 * does not poll it, and Temporal forgets its pollers after 5 minutes of that.
 */
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { z } from 'zod';
import { stepQueueFor } from '../core/names';
import { ProblemSchema } from './errors';

/** A 503 problem that may name the task queues no worker serves (a submission's refusal). */
export const NoWorkerProblemSchema = ProblemSchema.extend({
  lanes: z.array(z.string()).optional().describe('the task queues the job needs that no worker polled in the last 5 minutes'),
});

/** Temporal API's TaskQueueType wire values (stable; the proto module is type-only here). */
const QUEUE_TYPE: Record<QueueKind, temporal.api.enums.v1.TaskQueueType> = { workflow: 1, activity: 2 };

/** Look-ups `unserved` runs at once. */
const LOOKUPS_AT_ONCE = 16;

/** What polls a queue: workflow workers or activity (agent step) workers. */
export type QueueKind = 'workflow' | 'activity';

/** One queue to check. */
export interface QueueRef {
  name: string;
  kind: QueueKind;
}

/** A tenant's agent lane and the queue on it of each pool: the activity queues its steps run on. */
export const laneQueues = (lane: string, pools: string[]): QueueRef[] =>
  [lane, ...pools.map((p) => stepQueueFor(lane, p))].map((name) => ({ name, kind: 'activity' }));

/** Options of `createLaneWatch`. */
export interface LaneWatchOptions {
  client: Pick<Client, 'workflowService' | 'options' | 'connection'>;
  /** How long a served answer is reused. @default 5000 */
  cacheMs?: number;
  /** How long an unserved answer (or a failed look-up) is reused: short, so a worker that just started is seen soon. @default 1000 */
  missCacheMs?: number;
  /** A queue whose newest poll is older than this has no worker. @default 300000 (Temporal forgets pollers after 5 min too) */
  recentMs?: number;
  /** A queue seen served this long ago still counts as served (its slots may all be busy). @default 3600000 */
  rememberMs?: number;
  /** Longest one look-up may take; past it the queue counts as unknown. @default 2000 */
  timeoutMs?: number;
  /** The clock. @default Date.now */
  now?: () => number;
}

/** Answers whether queues have workers. */
export interface LaneWatch {
  /** true: a worker polled lately; false: none did; undefined: Temporal could not say (the caller lets the job through). */
  served(queue: QueueRef): Promise<boolean | undefined>;
  /** The names of the queues no worker serves, in order (unknown ones are left out). */
  unserved(queues: QueueRef[]): Promise<string[]>;
}

/** A number out of a protobuf Long, number or null. */
const num = (v: { toString(): string } | number | null | undefined): number => (v == null ? 0 : Number(v.toString()));

/** Creates a watch with its own cache. */
export function createLaneWatch({
  client,
  cacheMs = 5000,
  missCacheMs = 1000,
  recentMs = 300_000,
  rememberMs = 3_600_000,
  timeoutMs = 2000,
  now = Date.now,
}: LaneWatchOptions): LaneWatch {
  const cache = new Map<string, { until: number; answer: Promise<boolean | undefined> }>();
  const lastServed = new Map<string, number>();

  async function look({ name, kind }: QueueRef): Promise<boolean | undefined> {
    const key = `${kind}:${name}`;
    try {
      const res = await client.connection.withDeadline(Date.now() + timeoutMs, () =>
        client.workflowService.describeTaskQueue({
          namespace: client.options.namespace,
          taskQueue: { name },
          taskQueueType: QUEUE_TYPE[kind],
        }),
      );
      const t = now();
      // a poller without a time was seen by the server just now
      const polled = (res.pollers ?? []).some(
        (p) => !p.lastAccessTime || t - (num(p.lastAccessTime.seconds) * 1000 + num(p.lastAccessTime.nanos) / 1e6) <= recentMs,
      );
      if (polled) lastServed.set(key, t);
      return polled || t - (lastServed.get(key) ?? -Infinity) <= rememberMs;
    } catch {
      return undefined;
    }
  }

  async function served(queue: QueueRef): Promise<boolean | undefined> {
    const key = `${queue.kind}:${queue.name}`;
    const hit = cache.get(key);
    if (hit && hit.until > now()) return hit.answer;
    const answer = look(queue);
    // concurrent submissions share one look-up; the answer decides how long it is kept
    cache.set(key, { until: now() + missCacheMs, answer });
    if ((await answer) === true) cache.set(key, { until: now() + cacheMs, answer });
    return answer;
  }

  return {
    served,
    async unserved(queues) {
      const answers: (boolean | undefined)[] = [];
      // a few look-ups at a time: /readyz of a deployment with many tenants must not flood the frontend
      for (let i = 0; i < queues.length; i += LOOKUPS_AT_ONCE)
        answers.push(...(await Promise.all(queues.slice(i, i + LOOKUPS_AT_ONCE).map(served))));
      return queues.filter((_, i) => answers[i] === false).map((q) => q.name);
    },
  };
}
