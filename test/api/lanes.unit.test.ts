/** The lane watch: pollers seen lately make a lane served; answers are cached (misses briefly); a failed look-up blocks nothing. */
import { describe, expect, it } from 'vitest';
import { createLaneWatch, type LaneWatchOptions } from '../../api/lanes';

/** A client whose DescribeTaskQueue answers from `pollers` (queue → seconds since its last poll), counting calls. */
function fakeClient(pollers: Record<string, number[] | 'error'>, clock: { now: number }) {
  const calls: string[] = [];
  const client = {
    options: { namespace: 'default' },
    connection: { withDeadline: <T>(_deadline: number, fn: () => Promise<T>) => fn() },
    workflowService: {
      describeTaskQueue: async (req: { taskQueue: { name: string }; taskQueueType: number }) => {
        calls.push(`${req.taskQueueType}:${req.taskQueue.name}`);
        const p = pollers[req.taskQueue.name] ?? [];
        if (p === 'error') throw new Error('unavailable');
        return { pollers: p.map((ago) => ({ lastAccessTime: { seconds: Math.floor((clock.now - ago * 1000) / 1000), nanos: 0 } })) };
      },
    },
  } as unknown as LaneWatchOptions['client'];
  return { client, calls };
}

describe('createLaneWatch', () => {
  it('counts a lane with a poller seen lately as served, one seen minutes ago or never as not', async () => {
    const clock = { now: 1_700_000_000_000 };
    const { client } = fakeClient({ live: [3], stale: [400], failing: 'error' }, clock);
    const watch = createLaneWatch({ client, now: () => clock.now });
    expect(await watch.served({ name: 'live', kind: 'activity' })).toBe(true);
    expect(await watch.served({ name: 'stale', kind: 'activity' })).toBe(false);
    expect(await watch.served({ name: 'never', kind: 'activity' })).toBe(false);
    // Temporal could not say: undefined, and the lane is not reported (the job goes ahead)
    expect(await watch.served({ name: 'failing', kind: 'activity' })).toBeUndefined();
    expect(await watch.unserved(['live', 'stale', 'never', 'failing'].map((name) => ({ name, kind: 'activity' as const })))).toEqual([
      'stale',
      'never',
    ]);
  });

  it('reuses a served answer for 5 s and a miss for 1 s; asks for workflow and activity pollers apart', async () => {
    const clock = { now: 1_700_000_000_000 };
    const pollers: Record<string, number[]> = { lane: [1] };
    const { client, calls } = fakeClient(pollers, clock);
    const watch = createLaneWatch({ client, now: () => clock.now });
    await Promise.all([watch.served({ name: 'lane', kind: 'activity' }), watch.served({ name: 'lane', kind: 'activity' })]);
    await watch.served({ name: 'lane', kind: 'workflow' });
    expect(calls).toEqual(['2:lane', '1:lane']);
    clock.now += 4000;
    await watch.served({ name: 'lane', kind: 'activity' });
    expect(calls).toHaveLength(2);
    clock.now += 1500;
    await watch.served({ name: 'lane', kind: 'activity' });
    expect(calls).toHaveLength(3);

    expect(await watch.served({ name: 'new', kind: 'activity' })).toBe(false);
    pollers.new = [0];
    clock.now += 500;
    expect(await watch.served({ name: 'new', kind: 'activity' })).toBe(false);
    clock.now += 600;
    // a worker that just started is seen once the miss expires
    expect(await watch.served({ name: 'new', kind: 'activity' })).toBe(true);
  });

  it('keeps counting a lane it saw served for an hour: a lane whose every slot is busy stops polling', async () => {
    const clock = { now: 1_700_000_000_000 };
    const pollers: Record<string, number[]> = { busy: [2] };
    const { client } = fakeClient(pollers, clock);
    const watch = createLaneWatch({ client, now: () => clock.now });
    expect(await watch.served({ name: 'busy', kind: 'activity' })).toBe(true);
    // every slot taken: no poll, and Temporal forgets the pollers after 5 minutes
    pollers.busy = [];
    clock.now += 30 * 60_000;
    expect(await watch.served({ name: 'busy', kind: 'activity' })).toBe(true);
    clock.now += 31 * 60_000;
    expect(await watch.served({ name: 'busy', kind: 'activity' })).toBe(false);
  });
});
