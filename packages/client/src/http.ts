/**
 * One HTTP call to the API: bearer key, JSON in and out, problem+json errors, and retries
 * only where a repeat cannot do a thing twice (the caller says so per request).
 *
 *   fetch ──2xx──> { status, body }
 *         ──4xx/5xx──> DelegateProblemError
 *         ──network error, 429 (not a coded refusal), 502/503/504, idempotent──> wait (Retry-After or backoff) ──> again
 */
import { DelegateNetworkError, DelegateProblemError, problemOf } from './errors.js';

/** How the client reaches the API. */
export interface TransportOptions {
  /** Where the API listens, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** A bearer key; it decides the tenant. */
  apiKey: string;
  /** A fetch to use instead of the global one (tests, proxies, instrumentation). */
  fetch?: typeof fetch;
  /**
   * Extra attempts of an idempotent request after a network error, 429 or 502/503/504.
   * @default 3
   */
  retries?: number;
  /**
   * The parent agent's session and current model, sent with every request
   * (`delegate-parent-session`, `delegate-parent-model`, `delegate-parent-max-output-tokens`):
   * children of the session's jobs started after a request run on the model it named. A function
   * is asked at each request, so a harness that switches models says so on its next call.
   */
  parent?: ParentContext | (() => ParentContext | undefined);
}

/** What a parent agent tells Delegate of itself: its session, and its current model and output cap. */
export interface ParentContext {
  session: string;
  model?: string;
  maxOutputTokens?: number;
}

/** The parent's headers of one request. */
function parentHeaders(parent: TransportOptions['parent']): Record<string, string> {
  const p = typeof parent === 'function' ? parent() : parent;
  if (!p) return {};
  return {
    'delegate-parent-session': p.session,
    ...(p.model ? { 'delegate-parent-model': p.model } : {}),
    ...(p.maxOutputTokens ? { 'delegate-parent-max-output-tokens': String(p.maxOutputTokens) } : {}),
  };
}

/** A request as the client methods build it. */
export interface RequestOptions {
  query?: Record<string, string | number | string[] | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  /** True when repeating the request cannot do anything twice: only then is it retried. */
  idempotent: boolean;
  signal?: AbortSignal;
}

/** Transient answers worth another try (when the request is idempotent). */
const RETRY_STATUS = new Set([429, 502, 503, 504]);
/** Longest pause between two attempts. */
const MAX_BACKOFF_MS = 10_000;

/** Waits `ms`, or rejects when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The pause before attempt `n + 1`: the server's Retry-After when it gives one, else exponential backoff with jitter. */
export function backoffMs(n: number, retryAfter?: string | null): number {
  const seconds = retryAfter ? Number(retryAfter) : NaN;
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_BACKOFF_MS);
  return Math.min(200 * 2 ** n, MAX_BACKOFF_MS) * (0.5 + Math.random() / 2);
}

/** A URL of the API with its query (arrays repeat the key). */
export function urlOf(baseUrl: string, path: string, query?: RequestOptions['query']): string {
  const url = new URL(path, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined) continue;
    for (const one of [v].flat()) url.searchParams.append(k, String(one));
  }
  return url.href;
}

/** Makes the client's request function. */
export function createTransport({ baseUrl, apiKey, fetch: fetchImpl = globalThis.fetch, retries = 3, parent }: TransportOptions) {
  /** Sends one request; resolves with the status and the parsed JSON body of a 2xx answer. */
  return async function request<T>(method: 'GET' | 'POST', path: string, opts: RequestOptions): Promise<{ status: number; body: T }> {
    const what = `${method} ${path}`;
    const url = urlOf(baseUrl, path, opts.query);
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: `Bearer ${apiKey}`,
      ...parentHeaders(parent),
      ...opts.headers,
    };
    // POST routes take application/json only, also when there is nothing to say
    if (method === 'POST') headers['content-type'] = 'application/json';
    const body = method === 'POST' ? JSON.stringify(opts.body ?? {}) : undefined;
    const attempts = opts.idempotent ? retries + 1 : 1;
    for (let n = 0; ; n++) {
      let res: Response;
      try {
        res = await fetchImpl(url, { method, headers, body, signal: opts.signal });
      } catch (err) {
        if (opts.signal?.aborted) throw opts.signal.reason;
        if (n + 1 >= attempts) throw new DelegateNetworkError(`cannot reach ${baseUrl}: ${(err as Error).message}`, what, { cause: err });
        await sleep(backoffMs(n), opts.signal);
        continue;
      }
      if (res.ok) {
        const text = await res.text();
        return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
      }
      if (RETRY_STATUS.has(res.status) && n + 1 < attempts) {
        if (res.status === 429) {
          // a 429 with a `code` (a scout cap) is a refusal a retry cannot change; a rate limit has none
          const problem = await problemOf(res);
          if (problem.code !== undefined) throw new DelegateProblemError(problem, what);
        } else {
          await res.body?.cancel().catch(() => undefined);
        }
        await sleep(backoffMs(n, res.headers.get('retry-after')), opts.signal);
        continue;
      }
      throw new DelegateProblemError(await problemOf(res), what);
    }
  };
}
