/**
 * A fake LLM provider that throttles the way real ones do, for tests and benchmarks of Delegate's
 * handling of 429s, 5xx and overload: a real HTTP server on loopback speaking OpenAI chat
 * completions, Anthropic Messages and Gemini (the wire formats: fake-llm-wire.ts), answering
 * {"answer": "ok: <first line of the first user message>"} in `chunks` chunks (`wrongRate`: "wrong: …" for a share of a model's answers). By hand:
 * `PORT=8090 FAKE_PROVIDER_OPTIONS='{"requestsPerMinute":60}' tsx scripts/fake-provider.ts`.
 *
 *   request ──> in flight < concurrent? ──> request bucket ≥ 1? ──> token bucket ≥ input + max output?
 *                 │ no                        │ no                     │ no
 *                 └────────────────────────────┴──> 429 as the provider words it, with the wait (retryAfter)
 *   admitted ──> overloadedRate (Anthropic): 529 ──> faultRate: 500 | 503 (no tokens charged)
 *            ──> charge input ──> latencyMs ──> `chunks` chunks, chunkDelayMs apart ──> charge output written
 *
 *   POST /v1/chat/completions                          OpenAI (JSON, or SSE; usage with stream_options.include_usage)
 *   POST /v1/messages                                  Anthropic Messages SSE
 *   POST /v1/models/m:streamGenerateContent?alt=sse    Gemini SSE
 *   GET  /v1/_stats     the counts (FakeProviderStats)
 *   POST /v1/_config    new options (FakeProviderOptions), replacing the old; buckets keep their level
 *   POST /v1/_reset     counts to zero, buckets full, the PRNG reseeded
 *
 * Input tokens are the characters of the messages / 4 (ceil); output tokens are the chunks written,
 * also of a stream the client cut. Refused and faulted requests charge no tokens.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { anthropicStream, fromAnthropic, fromGemini, geminiStream, openAiJson, openAiStream, type Charged } from './fake-llm-wire';

const fraction = z.number().min(0).max(1);

/** How the fake behaves; `POST /v1/_config` takes the same shape. */
export const FakeProviderOptionsSchema = z.strictObject({
  /** Wait before the answer starts (the first chunk then waits chunkDelayMs too). @default 0 */
  latencyMs: z.number().nonnegative().optional(),
  /**
   * A heavy tail: a slow call waits latencyMs × `factor`. A call is slow with probability `p`, drawn from
   * its question and how many times the fake has seen it (so two runs of the same questions draw alike,
   * whatever their order); with `match`, also the first call of every question containing it, and
   * never its repeats (a hedge of it is fast). @default none
   */
  latencyTail: z.strictObject({ factor: z.number().min(1), p: fraction.optional(), match: z.string().min(1).optional() }).optional(),
  /** Chunks the answer is written in, one output token each. @default 1 */
  chunks: z.number().int().positive().optional(),
  /** Wait before each chunk. @default 0 */
  chunkDelayMs: z.number().nonnegative().optional(),
  /** Requests admitted per minute: a bucket of `burst` refilled at rpm/60 a second. @default unlimited */
  requestsPerMinute: z.number().positive().optional(),
  /**
   * Requests that may go at once after a quiet spell. Providers enforce a per-minute limit over
   * short windows, so: a quarter second's worth; any 1 s window then serves at most about 1.25 × rpm/60.
   * @default max(1, ceil(requestsPerMinute / 240))
   */
  burst: z.number().int().positive().optional(),
  /**
   * Input plus output tokens per minute: a bucket holding a minute's worth. A request is refused when
   * its input and its max output (max_tokens, max_completion_tokens, max_output_tokens, maxOutputTokens;
   * absent: `chunks`) exceed what the bucket holds; an admitted one charges its input, then the output written.
   * @default unlimited
   */
  tokensPerMinute: z.number().positive().optional(),
  /** Requests in flight at most; one more is refused. @default unlimited */
  concurrent: z.number().int().positive().optional(),
  /** Fraction of admitted requests answered 500 or 503 (drawn per request). @default 0 */
  faultRate: fraction.optional(),
  /** Anthropic only: fraction of admitted requests answered 529 overloaded_error. @default 0 */
  overloadedRate: fraction.optional(),
  /**
   * Per model (the request's `model`): the fraction of served answers that are wrong,
   * {"answer": "wrong: …"} instead of "ok: …", so a cheap model's lower quality is measurable
   * (an output schema that wants "ok: " fails it). @default none
   */
  wrongRate: z.record(z.string(), fraction).optional(),
  /** Seed of the PRNG drawing faults and overloads: the same requests draw the same. @default 1 */
  seed: z.number().int().optional(),
  /**
   * How refusals advertise the wait: 'seconds' sends retry-after (and Gemini's retryDelay) in whole
   * seconds; 'ms' adds OpenAI's retry-after-ms and gives retryDelay in fractions; 'none' sends no wait
   * at all (no retry-after, no reset headers, no RetryInfo).
   * @default 'ms'
   */
  retryAfter: z.enum(['seconds', 'ms', 'none']).optional(),
  /** Whether answers say the limits (`x-ratelimit-limit-*`, `anthropic-ratelimit-*`), as OpenAI and Anthropic do; a provider that does not leaves a client to find its rate. @default true */
  limitHeaders: z.boolean().optional(),
});
/** How the fake behaves. */
export type FakeProviderOptions = z.infer<typeof FakeProviderOptionsSchema>;

/** What the fake did since it started or was last reset (`GET /v1/_stats`). */
export interface FakeProviderStats {
  /** Requests answered 200. */
  served: number;
  /** Requests answered 429 or 529. */
  refused: number;
  /** Requests answered 500 or 503. */
  faults: number;
  /** Tokens of the served requests (output: chunks written). */
  tokensServed: { input: number; output: number };
  /** The most requests in flight at once. */
  maxInFlight: number;
  /** Served requests in each second since the start or the last reset. */
  perSecond: number[];
  /** The most requests served within any sliding 1000 ms window. */
  maxPerSecondWindow: number;
  /** Admitted requests the client cut before their answer (a cancelled step), and their input tokens (which a provider may bill). */
  cut: number;
  tokensCut: number;
}

/** A running fake provider. */
export interface FakeProvider {
  server: Server;
  url: string;
  stats(): FakeProviderStats;
  /** Replaces the options, as `POST /v1/_config` does. */
  configure(options: FakeProviderOptions): void;
  /** Zeroes the counts and fills the buckets, as `POST /v1/_reset` does. */
  reset(): void;
  stop(): Promise<void>;
}

type Wire = 'openai' | 'anthropic' | 'gemini';

/** One chat request as the fake reads it, whatever its wire. */
interface Call {
  wire: Wire;
  model: string;
  input: number;
  maxOutput?: number;
  question: string;
  stream: boolean;
  includeUsage: boolean;
}

/** Why a request is refused and when it would not be. */
interface Refusal {
  limit: 'requests' | 'tokens';
  why: string;
  waitMs: number;
}

/** A token bucket: `capacity` at most, refilled at `perMs` a millisecond; it may go below zero. */
class Bucket {
  private level: number;
  constructor(
    public capacity: number,
    public perMs: number,
    private at: number,
  ) {
    this.level = capacity;
  }
  levelAt(now: number): number {
    this.level = Math.min(this.capacity, this.level + (now - this.at) * this.perMs);
    this.at = Math.max(this.at, now);
    return this.level;
  }
  /** Milliseconds until `n` are in the bucket (a rounding's worth of slack, so waiting them is enough). */
  waitFor(n: number, now: number): number {
    return Math.max(0, Math.ceil((Math.min(n, this.capacity) - this.levelAt(now)) / this.perMs));
  }
  holds(n: number, now: number): boolean {
    return this.levelAt(now) >= n - 1e-6;
  }
  take(n: number, now: number): void {
    this.level = this.levelAt(now) - n;
  }
  resize(capacity: number, perMs: number, now: number): void {
    this.level = Math.min(this.levelAt(now), capacity);
    this.capacity = capacity;
    this.perMs = perMs;
  }
}

/** mulberry32: a small seedable PRNG in [0, 1). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A wait as Go prints a duration, as OpenAI's x-ratelimit-reset-* headers carry it: 120ms, 1.5s, 6m0s. */
function goDuration(ms: number): string {
  const whole = Math.ceil(ms);
  if (whole <= 0) return '0s';
  if (whole < 1000) return `${whole}ms`;
  const h = Math.floor(whole / 3_600_000);
  const m = Math.floor(whole / 60_000) % 60;
  return `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${(whole % 60_000) / 1000}s`;
}

/** The most timestamps (ascending) within any window of `ms`. */
function maxInWindow(at: number[], ms: number): number {
  let best = 0;
  for (let i = 0, j = 0; j < at.length; j++) {
    while (at[j] - at[i] >= ms) i++;
    best = Math.max(best, j - i + 1);
  }
  return best;
}

const freshCounts = () => ({
  served: 0,
  refused: 0,
  faults: 0,
  tokensServed: { input: 0, output: 0 },
  maxInFlight: 0,
  servedAt: [] as number[],
  cut: 0,
  tokensCut: 0,
});

/** FNV-1a of a string with murmur3's finalizer (FNV alone barely moves when only the last character does), in [0, 1): the tail's draw of one call. */
function hashUnit(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}

/** The fake's state: options, buckets, requests in flight (with when each should end), counts, dice. */
class Throttle {
  options: FakeProviderOptions = {};
  requests?: Bucket;
  tokens?: Bucket;
  readonly flying = new Set<{ end: number }>();
  counts = freshCounts();
  epoch = performance.now();
  dice = prng(1);
  /** Calls seen per question (the latency tail's draws). */
  seen = new Map<string, number>();

  configure(o: FakeProviderOptions, now: number): void {
    this.options = o;
    this.dice = prng(o.seed ?? 1);
    const rpm = o.requestsPerMinute;
    this.requests = rpm ? resized(this.requests, o.burst ?? Math.max(1, Math.ceil(rpm / 240)), rpm, now) : undefined;
    this.tokens = o.tokensPerMinute ? resized(this.tokens, o.tokensPerMinute, o.tokensPerMinute, now) : undefined;
  }

  reset(now: number): void {
    this.requests = this.tokens = undefined;
    this.configure(this.options, now);
    this.counts = freshCounts();
    this.seen.clear();
    this.epoch = now;
  }

  /** A call's wait before its answer: latencyMs, times the tail's factor when the call draws slow. */
  latencyOf(c: Call): number {
    const o = this.options;
    const base = o.latencyMs ?? 0;
    const tail = o.latencyTail;
    if (!tail) return base;
    const n = this.seen.get(c.question) ?? 0;
    this.seen.set(c.question, n + 1);
    const slow =
      (tail.match !== undefined && n === 0 && c.question.includes(tail.match)) ||
      hashUnit(`${o.seed ?? 1}|${c.question}|${n}`) < (tail.p ?? 0);
    return slow ? base * tail.factor : base;
  }

  /** The refusal of a request, or undefined when it may go; takes nothing. */
  check(c: Call, now: number): Refusal | undefined {
    const o = this.options;
    if (o.concurrent !== undefined && this.flying.size >= o.concurrent) {
      const waitMs = Math.min(...[...this.flying].map((f) => f.end)) - now;
      return { limit: 'requests', why: `concurrent requests: Limit ${o.concurrent}`, waitMs };
    }
    if (this.requests && !this.requests.holds(1, now))
      return { limit: 'requests', why: `requests per min (RPM): Limit ${o.requestsPerMinute}`, waitMs: this.requests.waitFor(1, now) };
    const need = c.input + (c.maxOutput ?? o.chunks ?? 1);
    if (this.tokens && !this.tokens.holds(need, now)) {
      const why = `tokens per min (TPM): Limit ${o.tokensPerMinute}, Remaining ${Math.floor(this.tokens.levelAt(now))}, Requested ${need}`;
      return { limit: 'tokens', why, waitMs: this.tokens.waitFor(need, now) };
    }
    return undefined;
  }

  stats(now: number): FakeProviderStats {
    const { servedAt, tokensServed, ...counts } = this.counts;
    const perSecond = Array<number>(Math.floor((now - this.epoch) / 1000) + 1).fill(0);
    for (const t of servedAt) perSecond[Math.floor((t - this.epoch) / 1000)]++;
    return { ...counts, tokensServed: { ...tokensServed }, perSecond, maxPerSecondWindow: maxInWindow(servedAt, 1000) };
  }

  /** The provider's rate-limit headers (limit, remaining, until full), sent on answers and refusals. */
  limitHeaders(wire: Wire, now: number): Record<string, string> {
    const out: Record<string, string> = {};
    if (this.options.limitHeaders === false) return out;
    const hints = this.options.retryAfter !== 'none';
    for (const [name, b] of [['requests', this.requests] as const, ['tokens', this.tokens] as const]) {
      if (!b || wire === 'gemini') continue;
      const limit = String(Math.round(b.perMs * 60_000));
      const remaining = String(Math.max(0, Math.floor(b.levelAt(now))));
      const fullMs = (b.capacity - b.levelAt(now)) / b.perMs;
      if (wire === 'openai') {
        Object.assign(out, { [`x-ratelimit-limit-${name}`]: limit, [`x-ratelimit-remaining-${name}`]: remaining });
        if (hints) out[`x-ratelimit-reset-${name}`] = goDuration(fullMs);
      } else {
        Object.assign(out, { [`anthropic-ratelimit-${name}-limit`]: limit, [`anthropic-ratelimit-${name}-remaining`]: remaining });
        if (hints) out[`anthropic-ratelimit-${name}-reset`] = new Date(Date.now() + Math.ceil(fullMs)).toISOString();
      }
    }
    return out;
  }
}

/** A bucket with new limits: the old one keeping its level, or a full one. */
function resized(old: Bucket | undefined, capacity: number, perMinute: number, now: number): Bucket {
  if (!old) return new Bucket(capacity, perMinute / 60_000, now);
  old.resize(capacity, perMinute / 60_000, now);
  return old;
}

const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

/** Reads a chat request of any wire into what the fake needs. */
function readCall(wire: Wire, body: Record<string, unknown>, geminiModel: string): Call {
  const b = body as {
    model?: string;
    messages?: { role: string; content: unknown }[];
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
  };
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const messages =
    wire === 'anthropic'
      ? fromAnthropic(body as Parameters<typeof fromAnthropic>[0]).messages
      : wire === 'gemini'
        ? fromGemini(body as Parameters<typeof fromGemini>[0]).messages
        : (b.messages ?? []).map((m) => ({
            role: m.role,
            content: Array.isArray(m.content) ? m.content.map((p: { text?: string }) => p.text ?? '').join('') : String(m.content ?? ''),
          }));
  const chars = messages.reduce((n, m) => n + (m.content?.length ?? 0), 0);
  const generation = body.generationConfig as { maxOutputTokens?: number } | undefined;
  return {
    wire,
    model: wire === 'gemini' ? geminiModel : String(b.model ?? ''),
    input: Math.ceil(chars / 4),
    maxOutput: num(body.max_tokens) ?? num(body.max_completion_tokens) ?? num(body.max_output_tokens) ?? num(generation?.maxOutputTokens),
    question: (messages.find((m) => m.role === 'user')?.content ?? '').split('\n')[0],
    stream: wire !== 'openai' || b.stream === true,
    includeUsage: b.stream_options?.include_usage === true,
  };
}

/** Answers a refusal as the call's provider does, advertising the wait as `retryAfter` says. */
function refuse(t: Throttle, res: ServerResponse, c: Call, r: Refusal, now: number) {
  const mode = t.options.retryAfter ?? 'ms';
  const wait = Math.max(1, Math.ceil(r.waitMs));
  const seconds = String(Math.ceil(wait / 1000));
  if (c.wire === 'gemini') {
    const retryDelay = `${mode === 'seconds' ? seconds : wait / 1000}s`;
    const details = mode === 'none' ? {} : { details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay }] };
    return send(res, 429, {
      error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED', ...details },
    });
  }
  const headers = t.limitHeaders(c.wire, now);
  if (mode !== 'none') headers['retry-after'] = seconds;
  if (mode === 'ms' && c.wire === 'openai') headers['retry-after-ms'] = String(wait);
  if (c.wire === 'anthropic')
    return send(
      res,
      429,
      { type: 'error', error: { type: 'rate_limit_error', message: `This request would exceed your rate limit: ${r.why}.` } },
      headers,
    );
  const message = `Rate limit reached for ${c.model} on ${r.why}. Please try again in ${goDuration(wait)}.`;
  send(res, 429, { error: { message, type: r.limit, param: null, code: 'rate_limit_exceeded' } }, headers);
}

/** A transient 500 or 503 as the call's provider words it. */
function fault(res: ServerResponse, c: Call, status: 500 | 503) {
  const down = status === 503;
  if (c.wire === 'gemini') {
    const message = down ? 'The model is overloaded. Please try again later.' : 'An internal error has occurred.';
    return send(res, status, { error: { code: status, message, status: down ? 'UNAVAILABLE' : 'INTERNAL' } });
  }
  if (c.wire === 'anthropic')
    return send(res, status, {
      type: 'error',
      error: { type: 'api_error', message: down ? 'Service unavailable' : 'Internal server error' },
    });
  const message = down
    ? 'The engine is currently overloaded, please try again later.'
    : 'The server had an error while processing your request.';
  send(res, status, { error: { message, type: 'server_error', param: null, code: null } });
}

/** Admits, refuses or faults one chat request, and answers an admitted one in chunks. */
async function handleCall(t: Throttle, res: ServerResponse, c: Call) {
  const now = performance.now();
  const refusal = t.check(c, now);
  if (refusal) {
    t.counts.refused++;
    return refuse(t, res, c, refusal, now);
  }
  const o = t.options;
  const chunks = o.chunks ?? 1;
  const latencyMs = t.latencyOf(c);
  const flight = { end: now + latencyMs + chunks * (o.chunkDelayMs ?? 0) };
  t.flying.add(flight);
  t.counts.maxInFlight = Math.max(t.counts.maxInFlight, t.flying.size);
  let gone = false;
  res.on('close', () => {
    gone = true;
    t.flying.delete(flight);
  });
  t.requests?.take(1, now);
  if (c.wire === 'anthropic' && t.dice() < (o.overloadedRate ?? 0)) {
    t.counts.refused++;
    return send(res, 529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
  }
  if (t.dice() < (o.faultRate ?? 0)) {
    t.counts.faults++;
    return fault(res, c, t.dice() < 0.5 ? 500 : 503);
  }
  t.tokens?.take(c.input, now);
  if (latencyMs) await sleep(latencyMs);
  if (!c.stream && o.chunkDelayMs) await sleep(chunks * o.chunkDelayMs);
  if (gone) {
    t.counts.cut++;
    t.counts.tokensCut += c.input;
    return;
  }
  t.counts.served++;
  t.counts.servedAt.push(performance.now());
  t.counts.tokensServed.input += c.input;
  for (const [k, v] of Object.entries(t.limitHeaders(c.wire, performance.now()))) res.setHeader(k, v);
  // exactly `chunks` chunks: the text padded with JSON-neutral spaces to a multiple of them
  const wrong = (o.wrongRate?.[c.model] ?? 0) > 0 && t.dice() < o.wrongRate![c.model];
  const raw = JSON.stringify({ answer: `${wrong ? 'wrong' : 'ok'}: ${c.question}` });
  const size = Math.ceil(raw.length / chunks);
  const answer = { text: raw.padEnd(size * chunks), chunkChars: size, chunkDelayMs: c.stream ? o.chunkDelayMs : 0 };
  const inp = { input: c.input, cached: 0 };
  const charged: Charged = { requests: 1, input: c.input, cached: 0, output: 0 };
  if (c.wire === 'anthropic') await anthropicStream(res, c.model, answer, inp, charged);
  else if (c.wire === 'gemini') await geminiStream(res, c.model, answer, inp, charged);
  else if (c.stream) await openAiStream(res, c.model, answer, inp, c.includeUsage, charged);
  else openAiJson(res, c.model, answer, inp, charged);
  t.tokens?.take(charged.output, performance.now());
  t.counts.tokensServed.output += charged.output;
}

/** Starts the fake provider on loopback (`port` 0: any free port). */
export async function startFakeProvider(options: FakeProviderOptions = {}, port = 0): Promise<FakeProvider> {
  const t = new Throttle();
  t.configure(FakeProviderOptionsSchema.parse(options), performance.now());
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      if (req.method === 'GET' && path === '/v1/_stats') return send(res, 200, t.stats(performance.now()));
      if (req.method === 'POST' && path === '/v1/_reset') {
        t.reset(performance.now());
        return send(res, 200, { ok: true });
      }
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw || '{}') as Record<string, unknown>;
      } catch {
        return send(res, 400, { error: { message: 'invalid JSON' } });
      }
      if (req.method === 'POST' && path === '/v1/_config') {
        const parsed = FakeProviderOptionsSchema.safeParse(body);
        if (!parsed.success) return send(res, 400, { error: { message: z.prettifyError(parsed.error) } });
        t.configure(parsed.data, performance.now());
        return send(res, 200, { ok: true });
      }
      const gemini = /^\/v1\/models\/([^:/?]+):streamGenerateContent$/.exec(path);
      const wire: Wire | undefined =
        path === '/v1/chat/completions' ? 'openai' : path === '/v1/messages' ? 'anthropic' : gemini ? 'gemini' : undefined;
      if (req.method !== 'POST' || !wire) return send(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
      handleCall(t, res, readCall(wire, body, decodeURIComponent(gemini?.[1] ?? ''))).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stats: () => t.stats(performance.now()),
    configure: (o) => t.configure(FakeProviderOptionsSchema.parse(o), performance.now()),
    reset: () => t.reset(performance.now()),
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const options = FakeProviderOptionsSchema.parse(JSON.parse(process.env.FAKE_PROVIDER_OPTIONS ?? '{}'));
  const { url } = await startFakeProvider(options, Number(process.env.PORT ?? 8090));
  console.log(
    `fake throttling provider at ${url}/v1 (options ${JSON.stringify(options)}; GET ${url}/v1/_stats, POST /v1/_config, /v1/_reset)`,
  );
}

/**
 * An `openai-compatible` LLM agent's entry on this fake (the agents file's shape): a key of its own
 * (`key-<id>`), so each agent has its own provider gate in a worker; `extra` adds or overrides fields.
 */
export function fakeProviderAgent(url: string, id: string, extra: Record<string, unknown> = {}) {
  return {
    kind: 'llm' as const,
    id,
    provider: 'openai-compatible' as const,
    baseUrl: `${url}/v1`,
    apiKey: `key-${id}`,
    model: 'fake',
    ...extra,
  };
}
