/**
 * A `fetch` for SDK clients (the A2A client) that connects only where the net policy allows,
 * checked at connect time as `guardedPost` does; the response body streams (SSE), redirects are
 * not followed (a 3xx reaches the caller as it is).
 *
 *   fetch(url, init) ──urlRefusal──> request({ lookup: guardedLookup }) ──> Response (streamed body)
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { guardedLookup, systemResolver, urlRefusal, type Resolver } from './guarded-post';
import type { NetPolicy } from './net-policy';

/** Options of `createGuardedFetch`. */
export interface GuardedFetchOptions {
  policy: NetPolicy;
  resolve?: Resolver;
}

/** The response headers as a `Headers` (repeated headers joined). */
function headersOf(res: IncomingMessage): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(res.headers)) {
    if (v === undefined) continue;
    for (const one of [v].flat()) h.append(k, one);
  }
  return h;
}

/** A fetch that refuses destinations the policy refuses (`DestinationRefusedError`), for GET and POST with a string body. */
export function createGuardedFetch({ policy, resolve = systemResolver }: GuardedFetchOptions): typeof fetch {
  return (async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const u = new URL(input instanceof Request ? input.url : String(input));
    const early = urlRefusal(u, policy);
    if (early) throw early;
    const { lookup, refused } = guardedLookup(u.protocol, policy, resolve);
    const headers = Object.fromEntries(new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined)).entries());
    const body = typeof init.body === 'string' ? init.body : init.body == null ? undefined : String(init.body);
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<Response>((resolveResponse, reject) => {
      const req = send(u, { method: init.method ?? 'GET', headers, lookup, agent: false, signal: init.signal ?? undefined }, (res) => {
        const status = res.statusCode ?? 0;
        // a body-less status cannot carry a stream
        const stream = status === 204 || status === 304 ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
        resolveResponse(new Response(stream, { status, statusText: res.statusMessage, headers: headersOf(res) }));
      });
      req.on('error', (err) => reject(refused() ?? err));
      req.end(body);
    });
  }) as typeof fetch;
}
