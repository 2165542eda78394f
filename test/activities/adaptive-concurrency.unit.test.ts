import { describe, expect, it } from 'vitest';
import {
  AdaptiveLimiter,
  DEFAULT_AIMD_SETTINGS,
  TokenBucket,
  canStart,
  initialAimd,
  onRelease,
  onStart,
  onSuccess,
  onThrottle,
  type AimdSettings,
  type AimdState,
} from '../../activities/adaptive-concurrency';

const settings = (over: Partial<AimdSettings> = {}): AimdSettings => ({ ...DEFAULT_AIMD_SETTINGS, ...over });
const at = (limit: number, over: Partial<AimdState> = {}): AimdState => ({ limit, inFlight: 0, successesSinceIncrease: 0, ...over });
const successes = (s: AimdState, n: number, cfg: AimdSettings) => Array.from({ length: n }).reduce<AimdState>((x) => onSuccess(x, cfg), s);
/** Lets settled promises run their callbacks. */
const flush = () => new Promise((r) => setTimeout(r, 0));

describe('AIMD state', () => {
  it('starts at the initial limit within the bounds', () => {
    // no limit of its own until the provider throttles
    expect(DEFAULT_AIMD_SETTINGS).toEqual({ min: 1, max: 10_000, initial: 10_000, decreaseFactor: 0.5, cooldownMs: 1000 });
    expect(initialAimd()).toEqual({ limit: 10_000, inFlight: 0, successesSinceIncrease: 0 });
    expect(initialAimd(settings({ initial: 500, max: 256 })).limit).toBe(256);
    expect(initialAimd(settings({ initial: 0 })).limit).toBe(1);
    expect(initialAimd(settings({ ceiling: 4 })).limit).toBe(4);
  });

  it('grows by one after `limit` successes: one per window', () => {
    const cfg = settings();
    expect(successes(at(4), 3, cfg)).toEqual(at(4, { successesSinceIncrease: 3 }));
    expect(successes(at(4), 4, cfg)).toEqual(at(5));
    expect(successes(at(4), 4 + 5, cfg)).toEqual(at(6));
  });

  it('never grows past max or the declared ceiling', () => {
    expect(successes(at(3), 10, settings({ max: 3 })).limit).toBe(3);
    expect(successes(at(3), 10, settings({ ceiling: 3 })).limit).toBe(3);
    expect(successes(at(10), 10, settings({ ceiling: 4 })).limit).toBe(4); // a ceiling lowered under a running limit
  });

  it('keeps the ceiling even below min', () => {
    expect(initialAimd(settings({ min: 5, ceiling: 2 })).limit).toBe(2);
    expect(onThrottle(at(2), settings({ min: 5, ceiling: 2 }), 0).limit).toBe(2);
  });

  it('halves on a throttle, rounding down, and starts the window over', () => {
    expect(onThrottle(at(9, { successesSinceIncrease: 5, inFlight: 8 }), settings(), 1000)).toEqual(
      at(4, { lastDecreaseAt: 1000, inFlight: 8 }),
    );
    expect(onThrottle(at(10, { inFlight: 9 }), settings({ decreaseFactor: 0.7 }), 0).limit).toBe(7);
  });

  it('halves what was in flight (the throttled call included), not a limit never reached', () => {
    expect(onThrottle(at(10_000, { inFlight: 49 }), settings(), 0).limit).toBe(25);
  });

  it('never goes below min, nor below 1 whatever min says', () => {
    expect(onThrottle(at(1), settings(), 0).limit).toBe(1);
    expect(onThrottle(at(1), settings({ min: 0 }), 0).limit).toBe(1);
    expect(onThrottle(at(5), settings({ min: 4 }), 0).limit).toBe(4);
  });

  it('decreases once per cool-down: a burst of 429s halves once', () => {
    const cfg = settings({ cooldownMs: 1000 });
    let s = onThrottle(at(16, { inFlight: 15 }), cfg, 10_000);
    for (const t of [10_000, 10_500, 10_999]) s = onThrottle(s, cfg, t);
    expect(s).toEqual(at(8, { lastDecreaseAt: 10_000, inFlight: 15 }));
    s = onThrottle(s, cfg, 11_000);
    expect(s).toEqual(at(4, { lastDecreaseAt: 11_000, inFlight: 15 }));
    expect(onThrottle(s, cfg, 10_900)).toBe(s); // a late report from before the decrease
  });

  it('lets a request start only below the limit', () => {
    expect(canStart(at(2, { inFlight: 1 }))).toBe(true);
    expect(canStart(at(2, { inFlight: 2 }))).toBe(false);
    expect(canStart(at(2, { inFlight: 3 }))).toBe(false); // above a limit just lowered
    expect(onStart(at(2)).inFlight).toBe(1);
    expect(onRelease(at(2, { inFlight: 1 })).inFlight).toBe(0);
    expect(onRelease(at(2)).inFlight).toBe(0);
  });
});

describe('AdaptiveLimiter', () => {
  it('gives slots up to the limit, then queues', async () => {
    const limiter = new AdaptiveLimiter({ initial: 2 });
    await limiter.acquire();
    await limiter.acquire();
    let third = false;
    void limiter.acquire().then(() => (third = true));
    await flush();
    expect([limiter.limit, limiter.inFlight, limiter.waiting, third]).toEqual([2, 2, 1, false]);
  });

  it('wakes waiters first come, first served as slots free', async () => {
    const limiter = new AdaptiveLimiter({ initial: 1 });
    const first = await limiter.acquire();
    const order: string[] = [];
    const releases: Record<string, () => void> = {};
    for (const name of ['a', 'b', 'c']) {
      void limiter.acquire().then((release) => {
        order.push(name);
        releases[name] = release;
      });
    }
    await flush();
    expect(order).toEqual([]);
    first();
    await flush();
    expect(order).toEqual(['a']);
    releases.a();
    await flush();
    expect(order).toEqual(['a', 'b']);
    expect([limiter.inFlight, limiter.waiting]).toEqual([1, 1]);
  });

  it('does not let a newcomer jump the queue', async () => {
    const limiter = new AdaptiveLimiter({ initial: 1 });
    const first = await limiter.acquire();
    const order: string[] = [];
    void limiter.acquire().then(() => order.push('queued'));
    first();
    void limiter.acquire().then(() => order.push('newcomer'));
    await flush();
    expect(order).toEqual(['queued']);
  });

  it('wakes waiters when the limit grows', async () => {
    const limiter = new AdaptiveLimiter({ initial: 1 });
    await limiter.acquire();
    let woke = false;
    void limiter.acquire().then(() => (woke = true));
    await flush();
    expect(woke).toBe(false);
    limiter.succeeded(); // one success fills a window of 1: the limit becomes 2
    await flush();
    expect([limiter.limit, limiter.inFlight, woke]).toEqual([2, 2, true]);
  });

  it('holds waiters back after a throttle until enough slots free', async () => {
    const limiter = new AdaptiveLimiter({ initial: 4 });
    const held = await Promise.all([1, 2, 3, 4].map(() => limiter.acquire()));
    let woke = false;
    void limiter.acquire().then(() => (woke = true));
    limiter.throttled(5000);
    expect(limiter.limit).toBe(2);
    held[0]();
    held[1]();
    await flush();
    expect(woke).toBe(false);
    held[2]();
    await flush();
    expect(woke).toBe(true);
  });

  it("rejects a waiter aborted while waiting with the signal's reason, and drops it from the queue", async () => {
    const limiter = new AdaptiveLimiter({ initial: 1 });
    const first = await limiter.acquire();
    const ac = new AbortController();
    const aborted = limiter.acquire(ac.signal);
    let next = false;
    void limiter.acquire().then(() => (next = true));
    expect(limiter.waiting).toBe(2);
    const reason = new Error('caller gave up');
    ac.abort(reason);
    await expect(aborted).rejects.toBe(reason);
    expect(limiter.waiting).toBe(1);
    first();
    await flush();
    expect([next, limiter.inFlight, limiter.waiting]).toEqual([true, 1, 0]);
  });

  it('rejects at once on a signal already aborted, taking no slot', async () => {
    const limiter = new AdaptiveLimiter({ initial: 1 });
    await expect(limiter.acquire(AbortSignal.abort('late'))).rejects.toBe('late');
    expect([limiter.inFlight, limiter.waiting]).toEqual([0, 0]);
  });

  it('ignores an abort after the slot was given', async () => {
    const limiter = new AdaptiveLimiter({ initial: 1 });
    const first = await limiter.acquire();
    const ac = new AbortController();
    const second = limiter.acquire(ac.signal);
    first();
    const release = await second;
    ac.abort();
    expect(limiter.inFlight).toBe(1);
    release();
    expect(limiter.inFlight).toBe(0);
  });

  it('drops its abort listener once woken, so a long-lived signal does not collect them', async () => {
    const limiter = new AdaptiveLimiter({ initial: 1 });
    const first = await limiter.acquire();
    const listeners = new Set<unknown>();
    const signal = {
      aborted: false,
      addEventListener: (_: string, fn: unknown) => listeners.add(fn),
      removeEventListener: (_: string, fn: unknown) => listeners.delete(fn),
    } as unknown as AbortSignal;
    const second = limiter.acquire(signal);
    expect(listeners.size).toBe(1);
    first();
    await second;
    expect(listeners.size).toBe(0);
  });

  it('frees a slot once however often its release is called', async () => {
    const limiter = new AdaptiveLimiter({ initial: 2 });
    const a = await limiter.acquire();
    await limiter.acquire();
    a();
    a();
    a();
    expect(limiter.inFlight).toBe(1);
  });
});

describe('TokenBucket', () => {
  it('starts full and takes a reservation that fits', () => {
    const b = new TokenBucket(60_000); // 1 token per ms
    expect(b.reserve(40_000, 0)).toBe(0);
    expect(b.available(0)).toBe(20_000);
  });

  it('says how long until a reservation fits, taking nothing meanwhile', () => {
    const b = new TokenBucket(60_000);
    b.reserve(60_000, 0);
    expect(b.reserve(500, 0)).toBe(500);
    expect(b.reserve(500, 200)).toBe(300);
    expect(b.available(200)).toBe(200);
    expect(b.reserve(500, 500)).toBe(0);
    expect(b.available(500)).toBe(0);
  });

  it('refills continuously up to the capacity', () => {
    const b = new TokenBucket(600, 100); // 10 per second, holds 100
    expect(b.available(0)).toBe(100);
    b.reserve(100, 0);
    expect(b.available(3000)).toBeCloseTo(30);
    expect(b.available(3_600_000)).toBe(100);
  });

  it('clamps a reservation above the capacity so it can pass', () => {
    const b = new TokenBucket(60, 10);
    b.reserve(5, 0);
    expect(b.reserve(1000, 0)).toBe(5000); // waits for a full bucket, not for 1000 tokens
    expect(b.reserve(1000, 5000)).toBe(0);
    expect(b.available(5000)).toBeCloseTo(0);
  });

  it('refunds what a request did not use, never past the capacity', () => {
    const b = new TokenBucket(60_000, 1000);
    b.reserve(800, 0);
    b.settle(800, 300, 0);
    expect(b.available(0)).toBe(700);
    b.settle(800, 0, 0);
    expect(b.available(0)).toBe(1000);
  });

  it('charges an overrun, into a negative balance that delays the next reservation', () => {
    const b = new TokenBucket(60_000, 1000); // 1 token per ms
    b.reserve(1000, 0);
    b.settle(1000, 1500, 0);
    expect(b.available(0)).toBe(-500);
    expect(b.reserve(100, 0)).toBe(600);
  });

  it('settles a clamped reservation against what it took', () => {
    const b = new TokenBucket(60, 10);
    b.reserve(50, 0); // takes the whole 10
    b.settle(50, 50, 0);
    expect(b.available(0)).toBe(-40);
  });

  it('waits out float dust: after the promised wait the reservation passes', () => {
    const b = new TokenBucket(9); // 20,000 ms × 9/60,000 is 2.9999999999999996 in floats
    b.reserve(9, 0);
    const w = b.reserve(3, 0);
    expect(w).toBe(20_000);
    expect(b.reserve(3, w)).toBe(0);
  });

  it('adds nothing when the clock goes back', () => {
    const b = new TokenBucket(60_000, 1000);
    b.reserve(1000, 10_000);
    expect(b.available(5_000)).toBe(0);
    expect(b.available(10_100)).toBe(100);
  });

  it('refuses a rate or capacity that is not positive', () => {
    expect(() => new TokenBucket(0)).toThrow(/positive/);
    expect(() => new TokenBucket(60, -1)).toThrow(/positive/);
  });
});
