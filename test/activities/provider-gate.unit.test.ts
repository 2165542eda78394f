/**
 * The provider gate on its own: a throttled call waits what the provider asked (never less), goes
 * again and succeeds without the caller seeing an error; a wait past the attempt's deadline is
 * refused as ThrottledPastDeadline; a real failure passes through at once; the declared tokens per
 * minute hold calls back until the bucket has them; concurrency halves on a throttle.
 */
import { describe, expect, it } from 'vitest';
import { AgentRetryableError, AgentThrottledError } from '../../activities/errors';
import { createProviderGates, ThrottledPastDeadline, type ThrottleWait } from '../../activities/provider-gate';

const far = () => Date.now() + 60_000;
const service = (key: string, limits?: object) => ({ key, label: key, ...(limits ? { limits } : {}) });

describe('provider gate', () => {
  it('waits out a throttle for at least the Retry-After, then returns the answer; the wait is reported', async () => {
    const gate = createProviderGates({ random: () => 0 }).gateFor(service('a'));
    const calls: number[] = [];
    const waits: ThrottleWait[] = [];
    const answer = await gate.run(
      async () => {
        calls.push(Date.now());
        if (calls.length < 3) throw new AgentThrottledError('429', 'rate_limited', 150);
        return 'ok';
      },
      { signal: new AbortController().signal, deadline: far(), onWait: (w) => waits.push(w) },
    );
    expect(answer).toBe('ok');
    expect(calls).toHaveLength(3);
    // no call before the provider's wait was over
    expect(calls[1] - calls[0]).toBeGreaterThanOrEqual(145);
    expect(calls[2] - calls[1]).toBeGreaterThanOrEqual(145);
    expect(waits).toEqual([
      { waitMs: 150, reason: 'rate_limited' },
      { waitMs: 150, reason: 'rate_limited' },
    ]);
  });

  it('refuses a wait that cannot end before the attempt does', async () => {
    const gate = createProviderGates({ random: () => 0 }).gateFor(service('b'));
    const run = gate.run(
      async () => {
        throw new AgentThrottledError('529', 'overloaded', 30_000);
      },
      { signal: new AbortController().signal, deadline: Date.now() + 1000 },
    );
    await expect(run).rejects.toBeInstanceOf(ThrottledPastDeadline);
    await expect(run).rejects.toMatchObject({ reason: 'overloaded', waitMs: 30_000 });
  });

  it('passes a real failure through at once, and a cancelled wait ends with the signal', async () => {
    const gate = createProviderGates().gateFor(service('c'));
    let n = 0;
    await expect(
      gate.run(
        async () => {
          n++;
          throw new AgentRetryableError('500');
        },
        { signal: new AbortController().signal, deadline: far() },
      ),
    ).rejects.toBeInstanceOf(AgentRetryableError);
    expect(n).toBe(1);
    const ctl = new AbortController();
    const waiting = gate.run(
      async () => {
        throw new AgentThrottledError('429', 'rate_limited', 10_000);
      },
      { signal: ctl.signal, deadline: far() },
    );
    setTimeout(() => ctl.abort(new Error('latency budget')), 50);
    await expect(waiting).rejects.toThrow('latency budget');
  });

  it('holds calls back until the declared tokens per minute have room, and settles with the real usage', async () => {
    // 6,000 tokens a minute: 100 a second
    const gate = createProviderGates().gateFor(service('d', { tokensPerMinute: 6000 }));
    const o = { signal: new AbortController().signal, deadline: far(), estimateTokens: 5900, tokensOf: () => 5900 };
    const waits: ThrottleWait[] = [];
    await gate.run(async () => 1, o);
    const began = Date.now();
    // the bucket holds ~100 tokens now: 200 more need about a second
    await gate.run(async () => 2, { ...o, estimateTokens: 300, tokensOf: () => 300, onWait: (w) => waits.push(w) });
    expect(Date.now() - began).toBeGreaterThanOrEqual(1500);
    expect(waits[0]?.reason).toBe('tokens_per_minute');
  });

  it('halves its concurrency on a throttle and never passes a declared concurrent', async () => {
    const gate = createProviderGates({ aimd: { initial: 8 } }).gateFor(service('e', { concurrent: 4 }));
    expect(gate.stats().limit).toBe(4);
    let inFlight = 0;
    let most = 0;
    const call = async () => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 20));
      inFlight--;
    };
    await Promise.all(Array.from({ length: 12 }, () => gate.run(call, { signal: new AbortController().signal, deadline: far() })));
    expect(most).toBe(4);
    let first = true;
    await gate.run(
      async () => {
        if (first) {
          first = false;
          throw new AgentThrottledError('429', 'rate_limited', 1);
        }
      },
      { signal: new AbortController().signal, deadline: far() },
    );
    expect(gate.stats().limit).toBe(2);
  });

  it('paces an undeclared provider at the rate its headers say, once it has said it', async () => {
    const gate = createProviderGates().gateFor(service('f'));
    const starts: number[] = [];
    const call = async () => void starts.push(Date.now());
    const o = { signal: new AbortController().signal, deadline: far() };
    await Promise.all(Array.from({ length: 3 }, () => gate.run(call, o)));
    // nothing said yet: no spacing
    expect(starts[2] - starts[0]).toBeLessThan(50);
    // 600 a minute: one call every 100 ms
    gate.observe(new Headers({ 'x-ratelimit-limit-requests': '600' }));
    starts.length = 0;
    await Promise.all(Array.from({ length: 4 }, () => gate.run(call, o)));
    expect(starts[3] - starts[0]).toBeGreaterThanOrEqual(290);
  });

  it("keeps a declared rate over what the provider's headers say", async () => {
    const gate = createProviderGates().gateFor(service('g', { requestsPerMinute: 1200 }));
    gate.observe({ 'anthropic-ratelimit-requests-limit': '60' });
    const starts: number[] = [];
    await Promise.all(
      Array.from({ length: 3 }, () =>
        gate.run(async () => void starts.push(Date.now()), { signal: new AbortController().signal, deadline: far() }),
      ),
    );
    expect(starts[2] - starts[0]).toBeLessThan(500);
  });
});
