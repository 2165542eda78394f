import { describe, expect, it } from 'vitest';
import { createLoadRouter, type QueueStats } from '../../activities/load-router';
import { pickByLoad, rankLoads, type CandidateLoad } from '../../activities/load-score';

const load = (agent: string, pool: string, backlog: number, pollers = 1, livePollers = pollers, slots = 4): CandidateLoad => ({
  agent,
  label: `pool ${pool}`,
  backlog,
  pollers,
  livePollers,
  slots,
});

describe('the load score', () => {
  it('prefers the queue with less backlog per slot of the workers polling it', () => {
    // 12 waiting on one 4-slot worker (3 per slot) is worse than 8 on two 4-slot workers (1 per slot)
    expect(rankLoads([load('a', 'gpu', 12), load('b', 'cpu', 8, 2)]).ranked.map((c) => c.agent)).toEqual(['b', 'a']);
    expect(rankLoads([load('a', 'gpu', 0), load('b', 'cpu', 3)]).ranked.map((c) => c.agent)).toEqual(['a', 'b']);
  });

  it('ranks by tier first: free slots, then all slots busy, then no poller at all, whatever the backlog', () => {
    const free = load('free', 'f', 9);
    const busy = load('busy', 'b', 0, 1, 0);
    const none = load('none', 'n', 0, 0, 0);
    const unreadable = { ...load('unreadable', 'u', 0, 0, 0), unknown: 'UNAVAILABLE' };
    const { ranked } = rankLoads([none, unreadable, busy, free]);
    expect(ranked.map((c) => [c.agent, c.tier])).toEqual([
      ['free', 0],
      ['busy', 1],
      ['none', 2],
      ['unreadable', 2],
    ]);
  });

  it('at equal backlog, more live pollers win; equal everything is a tie, in agent-id order', () => {
    expect(rankLoads([load('a', 'x', 0, 1), load('b', 'y', 0, 3)]).ranked[0].agent).toBe('b');
    expect(rankLoads([load('b', 'y', 0), load('a', 'x', 0), load('c', 'z', 5)]).tied.map((c) => c.agent)).toEqual(['a', 'b']);
  });

  it('the reason names the pick, its figures and what it beat', () => {
    expect(pickByLoad([load('cpu-agent', 'cpu', 12, 1), load('gpu-agent', 'gpu', 0, 2)], 0)).toEqual({
      agent: 'gpu-agent',
      tied: 1,
      reason: 'load: pool gpu backlog 0, 2 pollers; cheaper than pool cpu backlog 12',
    });
    const noPoller = pickByLoad([load('a', 'pa', 3, 1, 0), load('b', 'pb', 0, 0, 0)], 0);
    expect(noPoller).toMatchObject({
      agent: 'a',
      reason: 'load: pool pa backlog 3, 1 poller, all busy; cheaper than pool pb backlog 0, no poller',
    });
  });

  it('ties go round-robin by turn, and the reason says so', () => {
    const loads = [load('b', 'pb', 0), load('a', 'pa', 0)];
    expect([0, 1, 2, 3].map((turn) => pickByLoad(loads, turn).agent)).toEqual(['a', 'b', 'a', 'b']);
    expect(pickByLoad(loads, 1).reason).toBe('load: pool pb backlog 0, 1 poller; tied with pool pa backlog 0: round-robin');
    // two agents without a pool share the lane: always a tie
    const lane = (agent: string): CandidateLoad => ({ agent, label: 'lane', backlog: 2, pollers: 1, livePollers: 1, slots: 50 });
    expect(pickByLoad([lane('x'), lane('y')], 0).reason).toBe(
      'load: lane backlog 2, 1 poller; tied with 1 other agent on the same queue: round-robin',
    );
  });
});

describe('the load router', () => {
  const stats = (backlog: number, polledAgoMs: number[] = [1000]): QueueStats => ({
    backlog,
    pollersLastPolled: polledAgoMs.map((ago) => now - ago),
    addRate: 0,
    dispatchRate: 0,
  });
  let now = 1_000_000;

  it('reads each candidate queue on the lane, reuses a read for a second, and round-robins ties', async () => {
    const reads: string[] = [];
    const backlog: Record<string, number> = { 'q-agents-t.pool-pa': 0, 'q-agents-t.pool-pb': 0 };
    const router = createLoadRouter({
      describe: async (queue) => (reads.push(queue), stats(backlog[queue])),
      slotsOf: () => 4,
      now: () => now,
    });
    const route = () =>
      router.route({
        capability: 'c',
        lane: 'q-agents-t',
        candidates: [
          { agent: 'a', pool: 'pa' },
          { agent: 'b', pool: 'pb' },
        ],
      });
    expect([(await route()).agent, (await route()).agent, (await route()).agent]).toEqual(['a', 'b', 'a']);
    expect(reads).toEqual(['q-agents-t.pool-pa', 'q-agents-t.pool-pb']);
    backlog['q-agents-t.pool-pb'] = 5;
    // still the cached figures within the second...
    expect((await route()).agent).toBe('b');
    now += 1001;
    // ...then the backlog shows
    expect(await route()).toEqual({ agent: 'a', reason: 'load: pool pa backlog 0, 1 poller; cheaper than pool pb backlog 5' });
    expect(reads).toHaveLength(4);
  });

  it('a poller silent for over 70 s counts as busy; a queue it cannot read is ranked last, not an error', async () => {
    const router = createLoadRouter({
      describe: async (queue) => {
        if (queue.endsWith('pool-down')) throw new Error('UNAVAILABLE: connection refused');
        return queue.endsWith('pool-stale') ? stats(0, [90_000]) : stats(2);
      },
      slotsOf: () => 1,
      now: () => now,
    });
    const r = await router.route({
      capability: 'c',
      lane: 'l',
      candidates: [
        { agent: 'down', pool: 'down' },
        { agent: 'stale', pool: 'stale' },
        { agent: 'fresh', pool: 'fresh' },
      ],
    });
    expect(r).toEqual({
      agent: 'fresh',
      reason:
        'load: pool fresh backlog 2, 1 poller; cheaper than pool stale backlog 0, all busy, pool down stats unavailable (UNAVAILABLE: connection refused)',
    });
  });
});
