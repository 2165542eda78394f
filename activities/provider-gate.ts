/**
 * The host's side of a provider's capacity, per worker process: every call an agent makes to its
 * service goes through the service's gate, which keeps it within what the provider takes and turns
 * throttling into back-pressure. Declared request rates are the server's job (the provider's task
 * queue, core/names.ts); the gate adds what a queue cannot: concurrency that adapts to 429s, the
 * tokens-per-minute reservation, and the wait a throttled call asks for.
 *
 *   call ──tokens/min: reserve the expected tokens (wait when the bucket is short)──┐
 *        ──adaptive slot (no limit until a throttle; then ×½ of what was in flight, +1 a round; ≤ declared concurrent)──┐
 *        ──requests/min: evenly spaced, each process at its share (the queue's rate holds them across processes)──> provider
 *          ok ────────────> settle the tokens with the usage, free the slot
 *          throttled ─────> refund, free the slot, wait (Retry-After, else jittered backoff), call again:
 *                           never an attempt, never the breaker, never spend; bounded by the attempt's deadline
 *          failed ────────> refund, free the slot, the error goes on (the step's retry policy decides)
 */
import { AdaptiveLimiter, DEFAULT_AIMD_SETTINGS, TokenBucket, type AimdSettings } from './adaptive-concurrency';
import { requestsPerMinuteOf, throttleBackoffMs, type HeaderSource, type ThrottleReason } from './throttle';
import { AgentThrottledError } from './errors';
import type { AgentService } from './agents/types';

/** Why a call waited: the provider throttled it, the declared tokens per minute were spent, or the concurrency its throttling left was taken. */
export type ThrottleWhy = ThrottleReason | 'tokens_per_minute' | 'concurrency';

/** One wait of a call, as the step reports it. */
export interface ThrottleWait {
  waitMs: number;
  reason: ThrottleWhy;
}

/** How one call is paced. */
export interface PaceOptions<T> {
  /** Aborted when the step is cancelled or cut: a wait ends with it. */
  signal: AbortSignal;
  /** Epoch ms past which the attempt cannot wait (its timeout): a longer wait throws ThrottledPastDeadline. */
  deadline: number;
  /** Told of each wait before it begins. */
  onWait?(w: ThrottleWait): void;
  /** The tokens the call is expected to use (prompt estimate plus the output cap): reserved against tokens per minute. */
  estimateTokens?: number;
  /** The tokens the call really used, from its answer (absent: the estimate stands). */
  tokensOf?(result: T): number | undefined;
  /** How many worker processes poll the provider's queue (distinct poller identities): this one spaces its calls at its share of the rate. */
  pollers?(): Promise<number>;
}

/** A throttle whose wait does not fit the attempt: the step fails retryably after the wait instead of waiting past its timeout. */
export class ThrottledPastDeadline extends Error {
  override readonly name = 'ThrottledPastDeadline';
  constructor(
    readonly reason: ThrottleWhy,
    readonly waitMs: number,
  ) {
    super(`the provider throttles for ${Math.ceil(waitMs / 1000)}s, longer than the step can wait`);
  }
}

/** One service's gate. */
export interface ProviderGate {
  /** The declared provider's id, else the agent's (metrics, logs). */
  readonly label: string;
  /** Runs one call under the gate: waits out throttling, returns the call's answer or its real failure. */
  run<T>(call: () => Promise<T>, o: PaceOptions<T>): Promise<T>;
  /** The adaptive limit and what waits on it now. */
  stats(): { limit: number; inFlight: number; waiting: number };
  /** Reads the rate a provider says it allows (x-ratelimit-limit-requests) from an answer's headers: an undeclared provider is paced at it. */
  observe(headers: HeaderSource): void;
}

/** Options of `createProviderGates`. */
export interface ProviderGatesOptions {
  /** The AIMD controller's settings (a declared `concurrent` caps them). @default DEFAULT_AIMD_SETTINGS */
  aimd?: Partial<AimdSettings>;
  /** @default Date.now */
  now?: () => number;
  /** @default Math.random */
  random?: () => number;
  /** How long a count of the processes polling a provider's queue is trusted. @default 10000 */
  pollersTtlMs?: number;
}

/** The process's gates, one per service key. */
export interface ProviderGates {
  gateFor(service: AgentService): ProviderGate;
}

/** A wait for a slot shorter than this is not reported (it is the ordinary hand-over between calls). */
const REPORTED_SLOT_WAIT_MS = 50;

/** Extra jitter on top of a provider's Retry-After, so the calls it refused together do not all come back together. */
const RETRY_AFTER_JITTER_MS = 250;

/** A sleep that ends early (rejecting) when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason ?? new Error('aborted'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The gates every worker set of a process shares (a process is one poller identity: the shares count processes). */
export const processGates: ProviderGates = createProviderGates();

/** Creates the gates of a worker process. */
export function createProviderGates(opts: ProviderGatesOptions = {}): ProviderGates {
  const now = opts.now ?? Date.now;
  const random = opts.random ?? Math.random;
  const gates = new Map<string, ProviderGate>();

  function create(service: AgentService): ProviderGate {
    const ceiling = service.limits?.concurrent;
    const settings: AimdSettings = { ...DEFAULT_AIMD_SETTINGS, ...opts.aimd, ...(ceiling !== undefined ? { ceiling } : {}) };
    const limiter = new AdaptiveLimiter(settings);
    const perMinute = service.limits?.tokensPerMinute;
    const bucket = perMinute !== undefined ? new TokenBucket(perMinute) : undefined;
    // the server dispatches a provider queue's steps at the declared rate, but in small bursts; a
    // provider's own bucket may hold fewer: calls from this process go out evenly spaced as well
    const declaredRpm = service.limits?.requestsPerMinute;
    /** The rate the calls are spaced at: the declared one, else the one the provider's headers say. */
    let rpm = declaredRpm;
    let share = { processes: 1, at: -Infinity, asking: false };
    /** This process's spacing: its share of the declared rate, the share read again in the background when old. */
    const spacingFor = (pollers: (() => Promise<number>) | undefined): number => {
      if (rpm === undefined) return 0;
      if (pollers && !share.asking && now() - share.at > (opts.pollersTtlMs ?? 10_000)) {
        share = { ...share, asking: true };
        pollers()
          .then((n) => (share = { processes: Math.max(1, n), at: now(), asking: false }))
          .catch(() => (share = { ...share, at: now(), asking: false }));
      }
      return (60_000 / rpm) * share.processes;
    };
    let nextAt = 0;

    /** Waits `ms` as back-pressure, or refuses when the wait cannot fit the attempt. */
    async function wait<T>(ms: number, reason: ThrottleWhy, o: PaceOptions<T>): Promise<void> {
      if (now() + ms > o.deadline) throw new ThrottledPastDeadline(reason, ms);
      o.onWait?.({ waitMs: ms, reason });
      await sleep(ms, o.signal);
    }

    return {
      label: service.label,
      observe(headers) {
        if (declaredRpm !== undefined) return;
        const said = requestsPerMinuteOf(headers);
        if (said !== undefined) rpm = said;
      },
      stats: () => ({ limit: limiter.limit, inFlight: limiter.inFlight, waiting: limiter.waiting }),
      async run<T>(call: () => Promise<T>, o: PaceOptions<T>): Promise<T> {
        for (let throttles = 0; ;) {
          let reserved = 0;
          if (bucket) {
            const want = Math.max(1, Math.ceil(o.estimateTokens ?? 0));
            for (let ms = bucket.reserve(want, now()); ms > 0; ms = bucket.reserve(want, now())) await wait(ms, 'tokens_per_minute', o);
            reserved = want;
          }
          let release: () => void;
          try {
            const asked = now();
            release = await limiter.acquire(o.signal);
            // held back by the concurrency the provider's throttling left: a wait of the provider's too
            if (now() - asked >= REPORTED_SLOT_WAIT_MS) o.onWait?.({ waitMs: now() - asked, reason: 'concurrency' });
          } catch (err) {
            bucket?.settle(reserved, 0, now());
            throw err;
          }
          // spaced once it holds its slot: calls that waited for slots do not leave together
          const spacingMs = spacingFor(o.pollers);
          if (spacingMs > 0) {
            const at = Math.max(now(), nextAt);
            nextAt = at + spacingMs;
            if (at > now())
              await sleep(at - now(), o.signal).catch((err: unknown) => {
                release();
                bucket?.settle(reserved, 0, now());
                throw err;
              });
          }
          let result: T;
          try {
            result = await call();
          } catch (err) {
            release();
            // a refused or failed call used nothing of the provider's tokens
            bucket?.settle(reserved, 0, now());
            if (!(err instanceof AgentThrottledError)) throw err;
            // a known rate (declared, or said by the provider) paces the calls already: a rate limit's 429 asks for a wait, not fewer calls in flight
            if (rpm === undefined || err.reason !== 'rate_limited') limiter.throttled(now());
            throttles++;
            const ms =
              err.retryAfterMs !== undefined
                ? err.retryAfterMs + Math.floor(random() * RETRY_AFTER_JITTER_MS)
                : throttleBackoffMs(throttles, random);
            await wait(ms, err.reason, o);
            continue;
          }
          release();
          limiter.succeeded();
          bucket?.settle(reserved, o.tokensOf?.(result) ?? reserved, now());
          return result;
        }
      },
    };
  }

  return {
    gateFor(service) {
      let gate = gates.get(service.key);
      if (!gate) gates.set(service.key, (gate = create(service)));
      return gate;
    },
  };
}
