/**
 * Reading a provider's throttling answer, pure: is this status a throttle, how long does the
 * provider ask us to wait, and how long to back off when it does not say.
 *
 *   status (+ body) ──isThrottleStatus──> rate_limited | overloaded | quota_exhausted | unavailable | not a throttle
 *   headers ──retryAfterMs──> ms ─┐
 *   body ──retryDelayFromBody──> ms ─┼─> wait (at most MAX_RETRY_AFTER_MS)
 *   neither ──throttleBackoffMs(attempt, random)──> full-jitter ms ─┘
 *
 * Headers are read in a fixed order, the first present and valid source wins: `retry-after-ms`,
 * `retry-after`, OpenAI's `x-ratelimit-reset-*` (Go durations), Anthropic's `anthropic-ratelimit-*-reset`
 * (RFC 3339 instants), then `x-ratelimit-reset`. A malformed value counts as absent. Waits are whole
 * ms, rounded up (waiting a fraction too long costs nothing, too short costs another 429).
 */

/** Longest wait a provider may ask for: a longer one (a daily quota) is clamped to this, 10 minutes. */
export const MAX_RETRY_AFTER_MS = 600_000;

/** Shortest backoff `throttleBackoffMs` returns: a zero draw must not turn into a hot retry loop. */
export const MIN_THROTTLE_BACKOFF_MS = 50;

/** Why a provider refused: a rate limit, overload, an exhausted quota, or a 503 that said when to come back. */
export type ThrottleReason = 'rate_limited' | 'overloaded' | 'quota_exhausted' | 'unavailable';

/** Response headers as fetch (`Headers`) or Node's http (`IncomingHttpHeaders`) give them. */
export type HeaderSource = Headers | Record<string, string | string[] | undefined> | undefined;

/** A case-insensitive reader over either form; a repeated header reads as its first value. */
function headerReader(headers: HeaderSource): (name: string) => string | undefined {
  if (!headers) return () => undefined;
  // duck-typed: the workflow sandbox may have no global Headers to test instanceof against
  if (typeof (headers as Headers).get === 'function') {
    const h = headers as Headers;
    return (name) => h.get(name)?.trim() || undefined;
  }
  const byName = new Map<string, string>();
  for (const [k, v] of Object.entries(headers as Record<string, unknown>)) {
    const first = Array.isArray(v) ? v[0] : v;
    if (typeof first === 'string' && !byName.has(k.toLowerCase())) byName.set(k.toLowerCase(), first.trim());
  }
  return (name) => byName.get(name) || undefined;
}

const DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

/** A non-negative decimal ("1", "1.5", ".5"); anything else (signs, exponents, units) is garbage. */
function decimal(v: string | undefined): number | undefined {
  return v !== undefined && DECIMAL.test(v) ? Number(v) : undefined;
}

/** The largest of the values present, or undefined when none is. */
function maxOf(values: (number | undefined)[]): number | undefined {
  const present = values.filter((v): v is number => v !== undefined);
  return present.length ? Math.max(...present) : undefined;
}

/** The instant `ms` as a wait from `now`; an instant in the past is no wait. */
function until(ms: number | undefined, now: number): number | undefined {
  return ms === undefined ? undefined : Math.max(0, ms - now);
}

/** An instant (epoch ms) from UTC fields, or undefined when a field is out of range (31 February). */
function utc(y: number, mo: number, d: number, h: number, mi: number, s: number, ms = 0): number | undefined {
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 60) return undefined;
  if (new Date(Date.UTC(y, mo - 1, d)).getUTCDate() !== d) return undefined;
  return Date.UTC(y, mo - 1, d, h, mi, s, ms);
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const month = (name: string) => MONTHS.indexOf(name.toLowerCase()) + 1;

/** `Sun, 06 Nov 1994 08:49:37 GMT`, the form senders must use. */
const IMF_FIXDATE = /^[a-z]{3}, (\d{2}) ([a-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/i;
/** `Sunday, 06-Nov-94 08:49:37 GMT`, obsolete but still to be accepted. */
const RFC850_DATE = /^[a-z]+, (\d{2})-([a-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/i;
/** `Sun Nov  6 08:49:37 1994` (UTC), obsolete but still to be accepted. */
const ASCTIME_DATE = /^[a-z]{3} ([a-z]{3}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/i;

/** An HTTP-date (RFC 9110 §5.6.7, all three forms) as epoch ms; parsed by hand so the host's time zone never matters. */
function httpDateMs(v: string, now: number): number | undefined {
  let m = IMF_FIXDATE.exec(v);
  if (m) return utc(+m[3], month(m[2]), +m[1], +m[4], +m[5], +m[6]);
  m = ASCTIME_DATE.exec(v);
  if (m) return utc(+m[6], month(m[1]), +m[2], +m[3], +m[4], +m[5]);
  m = RFC850_DATE.exec(v);
  if (!m) return undefined;
  // a two-digit year more than 50 years ahead is the most recent past year with those digits
  const thisYear = new Date(now).getUTCFullYear();
  let y = thisYear - (thisYear % 100) + Number(m[3]);
  if (y > thisYear + 50) y -= 100;
  else if (y <= thisYear - 50) y += 100;
  return utc(y, month(m[2]), +m[1], +m[4], +m[5], +m[6]);
}

/** `retry-after`: delta seconds (fractions accepted) or an HTTP-date. */
function retryAfterHeader(v: string | undefined, now: number): number | undefined {
  if (v === undefined) return undefined;
  const seconds = decimal(v);
  return seconds !== undefined ? seconds * 1000 : until(httpDateMs(v, now), now);
}

const GO_DURATION = /^(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/;
const GO_UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A Go duration as OpenAI sends it (`120ms`, `1.5s`, `6m0s`, `2h3m4.5s`; a bare `0`) in ms. */
function goDurationMs(v: string | undefined): number | undefined {
  if (v === '0') return 0;
  if (v === undefined || !GO_DURATION.test(v)) return undefined;
  let ms = 0;
  for (const [, n, unit] of v.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) ms += Number(n) * GO_UNIT_MS[unit];
  return ms;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:Z|([+-])(\d{2}):(\d{2}))$/i;

/** An RFC 3339 instant (`2025-01-01T00:00:30Z`, `…30.5+02:00`) as epoch ms. */
function rfc3339Ms(v: string | undefined): number | undefined {
  const m = v === undefined ? null : RFC3339.exec(v);
  if (!m) return undefined;
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  const t = utc(+m[1], +m[2], +m[3], +m[4], +m[5], +m[6], ms);
  if (t === undefined || +m[9] > 23 || +m[10] > 59) return undefined;
  const offsetMs = m[8] ? (m[8] === '-' ? -1 : 1) * (+m[9] * 60 + +m[10]) * 60_000 : 0;
  return t - offsetMs;
}

/** `x-ratelimit-reset`: epoch seconds when it is past 1e9 (2001), otherwise delta seconds. */
function resetHeader(v: string | undefined, now: number): number | undefined {
  const n = decimal(v);
  if (n === undefined) return undefined;
  return n > 1e9 ? until(n * 1000, now) : n * 1000;
}

const OPENAI_RESETS = ['x-ratelimit-reset-requests', 'x-ratelimit-reset-tokens'];
const ANTHROPIC_RESETS = [
  'anthropic-ratelimit-requests-reset',
  'anthropic-ratelimit-tokens-reset',
  'anthropic-ratelimit-input-tokens-reset',
  'anthropic-ratelimit-output-tokens-reset',
];

/** The header sources in the order they are trusted; each gives a wait in ms or nothing. */
const SOURCES: ((get: (name: string) => string | undefined, now: number) => number | undefined)[] = [
  (get) => decimal(get('retry-after-ms')),
  (get, now) => retryAfterHeader(get('retry-after'), now),
  (get) => maxOf(OPENAI_RESETS.map((n) => goDurationMs(get(n)))),
  (get, now) => maxOf(ANTHROPIC_RESETS.map((n) => until(rfc3339Ms(get(n)), now))),
  (get, now) => resetHeader(get('x-ratelimit-reset'), now),
];

/** A wait in whole ms, rounded up, within 0..MAX_RETRY_AFTER_MS. */
function clampWait(ms: number): number {
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, Math.ceil(ms)));
}

/** The wait a provider's headers ask for at `now` (epoch ms), clamped; undefined when no header says. */
export function retryAfterMs(headers: HeaderSource, now: number): number | undefined {
  const get = headerReader(headers);
  for (const source of SOURCES) {
    const ms = source(get, now);
    if (ms !== undefined && Number.isFinite(ms)) return clampWait(ms);
  }
  return undefined;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The `error` object of a provider's error body (parsed JSON, its text, or Gemini's one-element array). */
function errorOf(body: unknown): Record<string, unknown> | undefined {
  let b = body;
  if (typeof b === 'string') {
    try {
      b = JSON.parse(b);
    } catch {
      return undefined;
    }
  }
  if (Array.isArray(b)) b = b[0];
  return isRecord(b) && isRecord(b.error) ? b.error : undefined;
}

const PROTO_DURATION = /^(\d+(?:\.\d+)?)s$/;

/** A protobuf Duration in its JSON form (`"1.5s"`) or as fields (`{ seconds, nanos }`), in ms. */
function protoDurationMs(d: unknown): number | undefined {
  if (typeof d === 'string') {
    const m = PROTO_DURATION.exec(d.trim());
    return m ? Number(m[1]) * 1000 : undefined;
  }
  if (!isRecord(d)) return undefined;
  const seconds = Number(d.seconds ?? 0);
  const nanos = Number(d.nanos ?? 0);
  return Number.isFinite(seconds) && Number.isFinite(nanos) && seconds >= 0 && nanos >= 0 ? seconds * 1000 + nanos / 1e6 : undefined;
}

/** The wait Gemini's error body asks for (`error.details[]` RetryInfo `retryDelay`), clamped; undefined when it does not say. */
export function retryDelayFromBody(body: unknown): number | undefined {
  const details = errorOf(body)?.details;
  if (!Array.isArray(details)) return undefined;
  for (const d of details) {
    if (!isRecord(d) || typeof d['@type'] !== 'string' || !d['@type'].endsWith('google.rpc.RetryInfo')) continue;
    const ms = protoDurationMs(d.retryDelay);
    if (ms !== undefined) return clampWait(ms);
  }
  return undefined;
}

/** Options of `throttleBackoffMs`. */
export interface ThrottleBackoffOptions {
  /** The first attempt's ceiling. @default 500 */
  baseMs?: number;
  /** The largest ceiling, however many attempts. @default 30000 */
  capMs?: number;
}

/**
 * The wait before retry number `attempt` (1-based) when the provider did not say: "full jitter",
 * a uniform draw below min(cap, base × 2^(attempt−1)), so a crowd of throttled callers spreads out
 * instead of returning together; never below MIN_THROTTLE_BACKOFF_MS.
 */
export function throttleBackoffMs(attempt: number, random: () => number, opts: ThrottleBackoffOptions = {}): number {
  const n = attempt >= 1 ? Math.floor(attempt) : 1;
  const ceiling = Math.min(opts.capMs ?? 30_000, (opts.baseMs ?? 500) * 2 ** (n - 1));
  const draw = random();
  const r = draw >= 0 ? Math.min(1, draw) : 0;
  return Math.max(MIN_THROTTLE_BACKOFF_MS, Math.round(r * ceiling));
}

/** What `isThrottleStatus` may look at beside the status. */
export interface ThrottleStatusOptions {
  /** The error body (parsed or its text): Gemini's `RESOURCE_EXHAUSTED` makes a 429 a quota. */
  body?: unknown;
  /** The response carried a wait (`retryAfterMs` found one): only then is a 503 a throttle. */
  hasRetryAfter?: boolean;
}

/**
 * Whether a status is the provider throttling us, and why: 429 rate_limited (quota_exhausted when
 * Gemini's body says RESOURCE_EXHAUSTED), 529 overloaded (Anthropic), a 503 that says when to come
 * back unavailable; anything else (a bare 503 too: it may be an outage, not a throttle) undefined.
 */
export function isThrottleStatus(status: number, opts: ThrottleStatusOptions = {}): { reason: ThrottleReason } | undefined {
  if (status === 429) return { reason: errorOf(opts.body)?.status === 'RESOURCE_EXHAUSTED' ? 'quota_exhausted' : 'rate_limited' };
  if (status === 529) return { reason: 'overloaded' };
  if (status === 503 && opts.hasRetryAfter) return { reason: 'unavailable' };
  return undefined;
}

/**
 * The requests a minute a provider says it allows, from the headers it sends on every answer
 * (OpenAI's `x-ratelimit-limit-requests`, Anthropic's `anthropic-ratelimit-requests-limit`); undefined
 * when it says nothing. A provider nobody declared limits for is paced at this rate once it is known.
 */
export function requestsPerMinuteOf(headers: HeaderSource): number | undefined {
  const get = headerReader(headers);
  const v = decimal(get('x-ratelimit-limit-requests')) ?? decimal(get('anthropic-ratelimit-requests-limit'));
  return v !== undefined && v > 0 ? v : undefined;
}
