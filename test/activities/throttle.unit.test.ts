import { describe, expect, it } from 'vitest';
import {
  MAX_RETRY_AFTER_MS,
  MIN_THROTTLE_BACKOFF_MS,
  isThrottleStatus,
  retryAfterMs,
  retryDelayFromBody,
  throttleBackoffMs,
} from '../../activities/throttle';

const NOW = Date.UTC(2025, 0, 1, 12, 0, 0); // Wed, 01 Jan 2025 12:00:00 GMT
const wait = (headers: Record<string, string>) => retryAfterMs(headers, NOW);

describe('retryAfterMs', () => {
  it('reads nothing from no headers or unrelated ones', () => {
    expect(retryAfterMs(undefined, NOW)).toBeUndefined();
    expect(wait({})).toBeUndefined();
    expect(wait({ 'content-type': 'application/json' })).toBeUndefined();
  });

  it('reads retry-after-ms as float ms, rounded up', () => {
    expect(wait({ 'retry-after-ms': '1500' })).toBe(1500);
    expect(wait({ 'retry-after-ms': '12.2' })).toBe(13);
  });

  it('reads retry-after as delta seconds, fractions too', () => {
    expect(wait({ 'retry-after': '2' })).toBe(2000);
    expect(wait({ 'retry-after': '0.5' })).toBe(500);
    expect(wait({ 'retry-after': '0' })).toBe(0);
  });

  it('reads retry-after as an HTTP-date in each of its three forms', () => {
    expect(wait({ 'retry-after': 'Wed, 01 Jan 2025 12:00:30 GMT' })).toBe(30_000);
    expect(wait({ 'retry-after': 'Wednesday, 01-Jan-25 12:00:45 GMT' })).toBe(45_000);
    expect(wait({ 'retry-after': 'Wed Jan  1 12:01:00 2025' })).toBe(60_000);
  });

  it('floors an HTTP-date in the past at no wait', () => {
    expect(wait({ 'retry-after': 'Wed, 01 Jan 2025 11:59:00 GMT' })).toBe(0);
  });

  it('prefers retry-after-ms over retry-after, and falls through a garbage value', () => {
    expect(wait({ 'retry-after-ms': '250', 'retry-after': '9' })).toBe(250);
    expect(wait({ 'retry-after-ms': 'soon', 'retry-after': '9' })).toBe(9000);
  });

  it('ignores garbage in every header', () => {
    for (const bad of ['', 'soon', '-5', '1e3', '5 seconds', 'Wed, 32 Jan 2025 12:00:00 GMT', 'Wed, 01 Foo 2025 12:00:00 GMT', 'NaN']) {
      expect(wait({ 'retry-after': bad }), bad).toBeUndefined();
      expect(wait({ 'retry-after-ms': bad }), bad).toBeUndefined();
      expect(wait({ 'x-ratelimit-reset-requests': bad }), bad).toBeUndefined();
      expect(wait({ 'anthropic-ratelimit-requests-reset': bad }), bad).toBeUndefined();
      expect(wait({ 'x-ratelimit-reset': bad }), bad).toBeUndefined();
    }
    expect(wait({ 'x-ratelimit-reset-requests': '5' })).toBeUndefined(); // a Go duration has units
    expect(wait({ 'anthropic-ratelimit-requests-reset': '2025-02-30T00:00:00Z' })).toBeUndefined();
    expect(wait({ 'anthropic-ratelimit-requests-reset': '2025-01-01T12:00:05+24:00' })).toBeUndefined();
    expect(wait({ 'anthropic-ratelimit-requests-reset': '2025-01-01T12:00:05+01:60' })).toBeUndefined();
  });

  it("reads OpenAI's Go durations and takes the larger of requests and tokens", () => {
    expect(wait({ 'x-ratelimit-reset-requests': '1s' })).toBe(1000);
    expect(wait({ 'x-ratelimit-reset-requests': '120ms' })).toBe(120);
    expect(wait({ 'x-ratelimit-reset-requests': '1.5s' })).toBe(1500);
    expect(wait({ 'x-ratelimit-reset-tokens': '6m0s' })).toBe(360_000);
    expect(wait({ 'x-ratelimit-reset-tokens': '1m3.5s' })).toBe(63_500);
    expect(wait({ 'x-ratelimit-reset-tokens': '0' })).toBe(0);
    expect(wait({ 'x-ratelimit-reset-requests': '2s', 'x-ratelimit-reset-tokens': '7.25s' })).toBe(7250);
    expect(wait({ 'x-ratelimit-reset-requests': '8s', 'x-ratelimit-reset-tokens': 'junk' })).toBe(8000);
  });

  it('clamps a long Go duration to the maximum', () => {
    expect(wait({ 'x-ratelimit-reset-tokens': '2h3m4.5s' })).toBe(MAX_RETRY_AFTER_MS);
  });

  it("reads Anthropic's RFC 3339 resets as waits from now, the largest of those present", () => {
    expect(wait({ 'anthropic-ratelimit-requests-reset': '2025-01-01T12:00:05Z' })).toBe(5000);
    expect(wait({ 'anthropic-ratelimit-tokens-reset': '2025-01-01T12:00:05.25Z' })).toBe(5250);
    expect(wait({ 'anthropic-ratelimit-input-tokens-reset': '2025-01-01T13:00:20+01:00' })).toBe(20_000);
    expect(wait({ 'anthropic-ratelimit-input-tokens-reset': '2025-01-01T06:30:20-05:30' })).toBe(20_000);
    expect(
      wait({
        'anthropic-ratelimit-requests-reset': '2025-01-01T12:00:05Z',
        'anthropic-ratelimit-output-tokens-reset': '2025-01-01T12:00:40Z',
        'anthropic-ratelimit-tokens-reset': '2025-01-01T11:00:00Z',
      }),
    ).toBe(40_000);
    expect(wait({ 'anthropic-ratelimit-requests-reset': '2025-01-01T11:59:00Z' })).toBe(0);
  });

  it('reads x-ratelimit-reset as epoch seconds past 1e9, else delta seconds', () => {
    expect(wait({ 'x-ratelimit-reset': String(NOW / 1000 + 12) })).toBe(12_000);
    expect(wait({ 'x-ratelimit-reset': String(NOW / 1000 - 12) })).toBe(0);
    expect(wait({ 'x-ratelimit-reset': '12' })).toBe(12_000);
  });

  it('trusts the sources in order: retry-after before the provider resets, those before x-ratelimit-reset', () => {
    expect(wait({ 'retry-after': '3', 'x-ratelimit-reset-requests': '9s', 'x-ratelimit-reset': '20' })).toBe(3000);
    expect(wait({ 'x-ratelimit-reset-requests': '9s', 'anthropic-ratelimit-requests-reset': '2025-01-01T12:00:05Z' })).toBe(9000);
    expect(wait({ 'anthropic-ratelimit-requests-reset': '2025-01-01T12:00:05Z', 'x-ratelimit-reset': '20' })).toBe(5000);
  });

  it('matches header names in any case, in a record and in fetch Headers', () => {
    expect(wait({ 'Retry-After': '4' })).toBe(4000);
    expect(wait({ 'RETRY-AFTER-MS': '40' })).toBe(40);
    expect(retryAfterMs(new Headers({ 'Retry-After': '4' }), NOW)).toBe(4000);
    expect(retryAfterMs(new Headers({ 'X-RateLimit-Reset-Tokens': '2s' }), NOW)).toBe(2000);
  });

  it("takes a repeated header's first value (Node's string[])", () => {
    expect(retryAfterMs({ 'retry-after': ['6', '60'] }, NOW)).toBe(6000);
    expect(retryAfterMs({ 'retry-after': undefined, 'retry-after-ms': ['70'] }, NOW)).toBe(70);
  });

  it('clamps every source to the maximum', () => {
    expect(MAX_RETRY_AFTER_MS).toBe(600_000);
    expect(wait({ 'retry-after': '86400' })).toBe(MAX_RETRY_AFTER_MS);
    expect(wait({ 'retry-after-ms': '600001' })).toBe(MAX_RETRY_AFTER_MS);
    expect(wait({ 'retry-after': 'Thu, 02 Jan 2025 12:00:00 GMT' })).toBe(MAX_RETRY_AFTER_MS);
    expect(wait({ 'x-ratelimit-reset': '3600' })).toBe(MAX_RETRY_AFTER_MS);
  });
});

const gemini429 = (retryDelay: unknown, type = 'type.googleapis.com/google.rpc.RetryInfo') => ({
  error: {
    code: 429,
    status: 'RESOURCE_EXHAUSTED',
    details: [
      { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [] },
      { '@type': type, retryDelay },
    ],
  },
});

describe('retryDelayFromBody', () => {
  it("reads Gemini's RetryInfo delay in ms", () => {
    expect(retryDelayFromBody(gemini429('2s'))).toBe(2000);
    expect(retryDelayFromBody(gemini429('1.5s'))).toBe(1500);
    expect(retryDelayFromBody(gemini429({ seconds: '3', nanos: 250_000_000 }))).toBe(3250);
  });

  it('reads it from the body text and from the one-element array Gemini streams', () => {
    expect(retryDelayFromBody(JSON.stringify(gemini429('4s')))).toBe(4000);
    expect(retryDelayFromBody([gemini429('5s')])).toBe(5000);
  });

  it('clamps a long delay to the maximum', () => {
    expect(retryDelayFromBody(gemini429('43200s'))).toBe(MAX_RETRY_AFTER_MS);
  });

  it('finds nothing in other bodies or malformed delays', () => {
    for (const body of [
      undefined,
      null,
      'not json',
      42,
      {},
      { error: 'x' },
      { error: { details: 'x' } },
      [],
      gemini429('2s', 'google.rpc.ErrorInfo'),
    ]) {
      expect(retryDelayFromBody(body)).toBeUndefined();
    }
    for (const delay of ['2', '-1s', 's', 'twos', 7, { seconds: -1 }])
      expect(retryDelayFromBody(gemini429(delay)), String(delay)).toBeUndefined();
  });
});

describe('throttleBackoffMs', () => {
  it('draws below base × 2^(attempt−1): random 1 gives the ceiling', () => {
    const one = () => 1;
    expect([1, 2, 3, 4].map((a) => throttleBackoffMs(a, one))).toEqual([500, 1000, 2000, 4000]);
    expect(throttleBackoffMs(3, () => 0.5)).toBe(1000);
  });

  it('caps the ceiling, even for absurd attempts', () => {
    expect(throttleBackoffMs(7, () => 1)).toBe(30_000);
    expect(throttleBackoffMs(10_000, () => 1)).toBe(30_000);
    expect(throttleBackoffMs(Infinity, () => 1)).toBe(30_000);
    expect(throttleBackoffMs(5, () => 1, { baseMs: 100, capMs: 1000 })).toBe(1000);
    expect(throttleBackoffMs(2, () => 1, { baseMs: 100, capMs: 1000 })).toBe(200);
  });

  it('never goes below the floor: random 0 gives 50 ms', () => {
    expect(MIN_THROTTLE_BACKOFF_MS).toBe(50);
    expect(throttleBackoffMs(1, () => 0)).toBe(50);
    expect(throttleBackoffMs(20, () => 0)).toBe(50);
    expect(throttleBackoffMs(1, () => 0.01)).toBe(50);
  });

  it('treats an attempt below 1 as the first, and out-of-range draws as their bound', () => {
    expect(throttleBackoffMs(0, () => 1)).toBe(500);
    expect(throttleBackoffMs(NaN, () => 1)).toBe(500);
    expect(throttleBackoffMs(1, () => 7)).toBe(500);
    expect(throttleBackoffMs(1, () => -1)).toBe(50);
    expect(throttleBackoffMs(1, () => NaN)).toBe(50);
  });
});

describe('isThrottleStatus', () => {
  it('reads 429 as rate limited, or as an exhausted quota when Gemini says so', () => {
    expect(isThrottleStatus(429)).toEqual({ reason: 'rate_limited' });
    expect(isThrottleStatus(429, { body: { error: { type: 'rate_limit_error' } } })).toEqual({ reason: 'rate_limited' });
    expect(isThrottleStatus(429, { body: gemini429('2s') })).toEqual({ reason: 'quota_exhausted' });
    expect(isThrottleStatus(429, { body: JSON.stringify([gemini429('2s')]) })).toEqual({ reason: 'quota_exhausted' });
  });

  it("reads Anthropic's 529 as overloaded", () => {
    expect(isThrottleStatus(529, { body: { type: 'error', error: { type: 'overloaded_error' } } })).toEqual({ reason: 'overloaded' });
  });

  it('reads 503 as a throttle only when it said when to come back', () => {
    expect(isThrottleStatus(503)).toBeUndefined();
    expect(isThrottleStatus(503, { hasRetryAfter: false })).toBeUndefined();
    expect(isThrottleStatus(503, { hasRetryAfter: true })).toEqual({ reason: 'unavailable' });
  });

  it('reads other statuses as no throttle', () => {
    for (const status of [200, 400, 401, 500, 502, 504])
      expect(isThrottleStatus(status, { hasRetryAfter: true }), String(status)).toBeUndefined();
  });
});
