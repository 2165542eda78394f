/**
 * A `fetch` for SDK clients (the MCP client's streamable-HTTP transport, the A2A client) that
 * connects only to addresses the net policy allows, checked at connect time as `guardedPost`
 * does, follows no redirect (a 3xx reaches the caller as it is), streams response bodies (SSE)
 * and reads at most `maxResponseBytes` of any one.
 *
 *   url ──urlRefusal──> request({ lookup: checkedLookup }) ──> Response(body capped, streamed)
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { checkedLookup, DestinationRefusedError, systemResolver, urlRefusal, type Resolver } from './guarded-post';
import type { NetPolicy } from './net-policy';

/** Options of `guardedFetch`. */
export interface GuardedFetchOptions {
  policy: NetPolicy;
  /** @default the system resolver */
  resolve?: Resolver;
  /** Largest body read from one response; past it the body errors. @default 1 MiB */
  maxResponseBytes?: number;
  /** Told when a body passes the cap (the reader's error may reach nobody: an SDK reading a stream in the background). */
  onOversize?: (err: ResponseTooLargeError) => void;
}

/** A response body passed `maxResponseBytes`. */
export class ResponseTooLargeError extends Error {
  override readonly name = 'ResponseTooLargeError';
}

/** The subset of `fetch` SDK transports call: GET and POST with a string or byte body. */
export type GuardedFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

function headersOf(init: RequestInit['headers']): Record<string, string> {
  return Object.fromEntries(new Headers(init).entries());
}

function responseHeaders(res: IncomingMessage): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(res.headers)) {
    if (Array.isArray(v)) for (const x of v) h.append(k, x);
    else if (v !== undefined) h.set(k, v);
  }
  return h;
}

/** A body stream that errors (and drops the socket) once it has passed `max` bytes. */
function cappedBody(res: IncomingMessage, max: number, onOversize?: (err: ResponseTooLargeError) => void): ReadableStream<Uint8Array> {
  let seen = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > max) {
        res.destroy();
        const err = new ResponseTooLargeError(`a response body over ${max} bytes`);
        onOversize?.(err);
        controller.error(err);
        return;
      }
      controller.enqueue(chunk);
    },
  });
  return (Readable.toWeb(res) as ReadableStream<Uint8Array>).pipeThrough(counter);
}

/** A fetch restricted by `policy`; its keep-alive agents are reused by every request it makes. */
export function guardedFetch({
  policy,
  resolve = systemResolver,
  maxResponseBytes = 1 << 20,
  onOversize,
}: GuardedFetchOptions): GuardedFetch {
  const agents = { 'http:': new HttpAgent({ keepAlive: true }), 'https:': new HttpsAgent({ keepAlive: true }) };
  return async (input, init = {}) => {
    const u = new URL(input instanceof Request ? input.url : String(input));
    const early = urlRefusal(u, policy);
    if (early) throw new DestinationRefusedError(early);
    let refused: DestinationRefusedError | undefined;
    const lookup = checkedLookup(policy, u.protocol, resolve, (err) => (refused = err));
    const body = init.body === undefined || init.body === null ? undefined : init.body;
    if (body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array))
      throw new TypeError('guardedFetch sends string or byte bodies only');
    const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<Response>((resolveResponse, reject) => {
      const req = send(
        u,
        {
          method: init.method ?? 'GET',
          headers: headersOf(init.headers ?? (input instanceof Request ? input.headers : undefined)),
          lookup,
          agent: agents[u.protocol as 'http:' | 'https:'],
          signal: init.signal ?? undefined,
        },
        (res) => {
          const status = res.statusCode ?? 0;
          const nullBody = status === 204 || status === 304 || init.method === 'HEAD';
          if (nullBody) res.resume();
          resolveResponse(
            new Response(nullBody ? null : cappedBody(res, maxResponseBytes, onOversize), { status, headers: responseHeaders(res) }),
          );
        },
      );
      req.on('error', (err) => reject(refused ?? err));
      req.end(body);
    });
  };
}
