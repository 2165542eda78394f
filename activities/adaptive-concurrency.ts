/**
 * Adaptive concurrency towards a provider, pure: AIMD (additive increase, multiplicative
 * decrease, as TCP's congestion window) finds how many requests it takes at once, and a token
 * bucket spaces out a tokens-per-minute quota. No timers and no clock: callers pass `now`.
 *
 *   acquire ──inFlight < limit──> request ──ok──> succeeded(): +1 to limit per `limit` successes (one window)
 *      │                              └──429/529──> throttled(now): limit × factor, once per cool-down
 *      └──full──> FIFO queue ──a release or a larger limit──> woken in order
 *
 *   reserve(tokens, now) ──enough──> 0 (taken) ──request──> settle(reserved, actual, now): refund or charge the difference
 *                        └──short──> ms until there would be (nothing taken)
 *
 * The cool-down is there because one burst of 429s answers every request in flight at once: the
 * first halves the limit, the rest within `cooldownMs` say nothing new.
 */

/** The controller's state: the current limit, the requests holding a slot, and progress towards the next increase. */
export interface AimdState {
  limit: number;
  inFlight: number;
  successesSinceIncrease: number;
  /** When the limit last came down (epoch ms): throttles within the cool-down after it are ignored. */
  lastDecreaseAt?: number;
}

/** How the controller moves; `DEFAULT_AIMD_SETTINGS` for any left out. */
export interface AimdSettings {
  /** The lowest limit (at least 1: a limit of 0 could never see the success that raises it). @default 1 */
  min: number;
  /** The highest limit. @default 10000 */
  max: number;
  /** The limit to start at. @default 10000: no limit of its own until the provider throttles (the worker's slots bound the calls meanwhile) */
  initial: number;
  /** A throttle multiplies the limit by this (rounded down). @default 0.5 */
  decreaseFactor: number;
  /** A throttle within this long after a decrease is ignored, so one burst of 429s decreases once. @default 1000 */
  cooldownMs: number;
  /** A declared `concurrent` limit of the provider: the limit never goes above it, even below `min`. */
  ceiling?: number;
}

/** Start at 8 at once, between 1 and 256, halve on a throttle at most once a second. */
export const DEFAULT_AIMD_SETTINGS: AimdSettings = { min: 1, max: 10_000, initial: 10_000, decreaseFactor: 0.5, cooldownMs: 1000 };

/** The bounds the limit stays within: the ceiling beats max and min, and nothing goes below 1. */
function bounds(settings: AimdSettings): { lo: number; hi: number } {
  const hi = Math.max(1, Math.floor(Math.min(settings.max, settings.ceiling ?? Infinity)));
  return { lo: Math.max(1, Math.floor(settings.min)), hi };
}

/** `n` within the settings' bounds (the ceiling applied last, so it wins over min). */
function clampLimit(n: number, settings: AimdSettings): number {
  const { lo, hi } = bounds(settings);
  return Math.min(hi, Math.max(lo, n));
}

/** A fresh controller at the initial limit, nothing in flight. */
export function initialAimd(settings: AimdSettings = DEFAULT_AIMD_SETTINGS): AimdState {
  return { limit: clampLimit(Math.floor(settings.initial), settings), inFlight: 0, successesSinceIncrease: 0 };
}

/** True when one more request may start now. */
export function canStart(s: AimdState): boolean {
  return s.inFlight < s.limit;
}

/** A request took a slot. */
export function onStart(s: AimdState): AimdState {
  return { ...s, inFlight: s.inFlight + 1 };
}

/** A request gave its slot back (whatever its outcome: success and throttle are reported apart). */
export function onRelease(s: AimdState): AimdState {
  return { ...s, inFlight: Math.max(0, s.inFlight - 1) };
}

/** A request succeeded: after `limit` successes (one full window) the limit grows by one, up to max or the ceiling. */
export function onSuccess(s: AimdState, settings: AimdSettings): AimdState {
  const successes = s.successesSinceIncrease + 1;
  if (successes < s.limit) return { ...s, successesSinceIncrease: successes };
  return { ...s, limit: clampLimit(s.limit + 1, settings), successesSinceIncrease: 0 };
}

/** The provider throttled a request at `now`: the limit is multiplied down (at least min), unless it came down within the cool-down. */
export function onThrottle(s: AimdState, settings: AimdSettings, now: number): AimdState {
  // a report timed before the last decrease belongs to the same burst too
  if (s.lastDecreaseAt !== undefined && now - s.lastDecreaseAt < settings.cooldownMs) return s;
  // from what was really in flight (the throttled call included): a limit never reached says nothing
  return {
    ...s,
    limit: clampLimit(Math.floor(Math.min(s.limit, s.inFlight + 1) * settings.decreaseFactor), settings),
    successesSinceIncrease: 0,
    lastDecreaseAt: now,
  };
}

/** A request queued for a slot. */
interface Waiter {
  resolve: (release: () => void) => void;
  reject: (reason: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/**
 * The AIMD controller with its queue: `acquire` waits (first come, first served) for a slot and
 * gives a release function; `succeeded` and `throttled` report outcomes. No timers: it moves
 * only when a caller releases, reports or aborts.
 */
export class AdaptiveLimiter {
  private state: AimdState;
  private readonly settings: AimdSettings;
  private readonly waiters: Waiter[] = [];

  /** A limiter with `DEFAULT_AIMD_SETTINGS` for any setting left out. */
  constructor(settings: Partial<AimdSettings> = {}) {
    this.settings = { ...DEFAULT_AIMD_SETTINGS, ...settings };
    this.state = initialAimd(this.settings);
  }

  /** How many requests may run at once now. */
  get limit(): number {
    return this.state.limit;
  }

  /** How many requests hold a slot. */
  get inFlight(): number {
    return this.state.inFlight;
  }

  /** How many callers wait for a slot. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** Waits for a slot, after those already waiting; resolves with its release (safe to call twice), rejects with the signal's reason on abort. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.waiters.length === 0 && canStart(this.state)) return Promise.resolve(this.take());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal };
      if (signal) {
        waiter.onAbort = () => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(signal.reason);
          this.wake();
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.waiters.push(waiter);
    });
  }

  /** A request succeeded: the limit may grow, and waiters with it. */
  succeeded(): void {
    this.state = onSuccess(this.state, this.settings);
    this.wake();
  }

  /** The provider throttled a request at `now` (epoch ms): the limit comes down, once per cool-down. */
  throttled(now: number): void {
    this.state = onThrottle(this.state, this.settings, now);
  }

  /** Takes a slot and makes its release, which frees the slot once however often it is called. */
  private take(): () => void {
    this.state = onStart(this.state);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.state = onRelease(this.state);
      this.wake();
    };
  }

  /** Hands free slots to the waiters at the head of the queue. */
  private wake(): void {
    while (this.waiters.length > 0 && canStart(this.state)) {
      const w = this.waiters.shift()!;
      if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
      w.resolve(this.take());
    }
  }
}

/**
 * A tokens-per-minute quota as a bucket refilled continuously (perMinute / 60,000 per ms) up to
 * its capacity. A request reserves its estimate before it starts and settles with what it used.
 * The clock is passed in; the bucket starts full at the first time it is given.
 */
export class TokenBucket {
  private readonly perMs: number;
  private readonly capacity: number;
  private balance: number;
  private at?: number;

  /** A full bucket of `capacity` tokens (default one minute's worth) refilled at `perMinute`. */
  constructor(perMinute: number, capacity: number = perMinute) {
    if (!(perMinute > 0) || !(capacity > 0))
      throw new RangeError(`a token bucket needs a positive rate and capacity (got ${perMinute}, ${capacity})`);
    this.perMs = perMinute / 60_000;
    this.capacity = capacity;
    this.balance = capacity;
  }

  /** Tokens available at `now` (negative after an overdraft). */
  available(now: number): number {
    this.refill(now);
    return this.balance;
  }

  /**
   * Takes `tokens` at `now` and returns 0, or takes nothing and returns the ms until they would
   * be there. A reservation above the capacity takes the whole capacity, so it can pass at all.
   */
  reserve(tokens: number, now: number): number {
    this.refill(now);
    const want = this.clampReservation(tokens);
    // a hair of slack: after the promised wait, float dust must not leave the bucket a token short
    if (this.balance + 1e-9 >= want) {
      this.balance -= want;
      return 0;
    }
    return Math.ceil((want - this.balance) / this.perMs);
  }

  /** A reserved request used `actual` tokens: the unused part goes back, an overrun is charged (the balance may go negative). */
  settle(reserved: number, actual: number, now: number): void {
    this.refill(now);
    this.balance = Math.min(this.capacity, this.balance + this.clampReservation(reserved) - Math.max(0, actual));
  }

  /** What `reserve` takes for a request of `tokens`: the same clamp, so settling with the asked amount balances. */
  private clampReservation(tokens: number): number {
    return Math.min(this.capacity, Math.max(0, tokens));
  }

  /** Adds what flowed in since the last time seen; a clock that goes back adds nothing. */
  private refill(now: number): void {
    if (this.at !== undefined && now > this.at) this.balance = Math.min(this.capacity, this.balance + (now - this.at) * this.perMs);
    if (this.at === undefined || now > this.at) this.at = now;
  }
}
