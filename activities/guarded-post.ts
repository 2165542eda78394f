/**
 * A POST that connects only to addresses the net policy allows, checked at connect time:
 * the socket's own `lookup` resolves the name, refuses if any address is refused, and
 * hands the socket only checked addresses, so a name that rebinds between a check and the
 * connection cannot slip through.
 *
 *   url ──literal IP? check──> request({ lookup: resolve → check every address → connect }) ──> status
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { addressRefusal, hostRefusal, parseIp, type NetPolicy } from './net-policy';

/** A resolved address. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has (tests pass a stub). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (what the OS would use), all addresses. */
export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** The destination is refused by the net policy: retrying will not help. */
export class DestinationRefusedError extends Error {
  override readonly name = 'DestinationRefusedError';
}

/** Options of `guardedPost`. */
export interface GuardedPostOptions {
  body: string;
  headers: Record<string, string>;
  policy: NetPolicy;
  resolve?: Resolver;
  signal?: AbortSignal;
}

/** Largest response body read (and discarded): a receiver cannot make the worker buffer more. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/** The refusal of a URL before any lookup (scheme, names, literal addresses), or undefined. */
export function urlRefusal(u: URL, policy: NetPolicy): DestinationRefusedError | undefined {
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return new DestinationRefusedError('not https');
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const byName = hostRefusal(host, policy);
  if (byName) return new DestinationRefusedError(`refused: ${byName}`);
  // a literal address never goes through `lookup`: check it here
  if (parseIp(host)) {
    const why = addressRefusal(host, policy, undefined, u.protocol);
    if (why) return new DestinationRefusedError(`refused: ${why}`);
  }
  return undefined;
}

/**
 * A socket `lookup` that resolves the name, refuses when any address is refused, and hands the
 * socket only checked addresses; `refused()` tells a request's error handler why it failed.
 */
export function guardedLookup(protocol: string, policy: NetPolicy, resolve: Resolver = systemResolver) {
  let refused: DestinationRefusedError | undefined;
  const lookup: LookupFunction = (hostname, options, callback) => {
    resolve(hostname).then(
      (found) => {
        const wanted = options.family === 4 || options.family === 6 ? found.filter((a) => a.family === options.family) : found;
        // every address is checked, not just the first: the socket may fall back to any of them
        const why =
          found.length === 0 ? 'no address' : found.map((a) => addressRefusal(a.address, policy, hostname, protocol)).find(Boolean);
        if (why || wanted.length === 0) {
          refused = new DestinationRefusedError(`refused: ${why ?? 'no address of the requested family'}`);
          return callback(refused, '', 0);
        }
        if (options.all) return (callback as (e: null, a: ResolvedAddress[]) => void)(null, wanted);
        callback(null, wanted[0].address, wanted[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
  return { lookup, refused: () => refused };
}

/** POSTs `body` to `url` if the policy allows every address it reaches; resolves with the status code. */
export function guardedPost(url: string, { body, headers, policy, resolve = systemResolver, signal }: GuardedPostOptions): Promise<number> {
  const u = new URL(url);
  const early = urlRefusal(u, policy);
  if (early) return Promise.reject(early);
  const { lookup, refused } = guardedLookup(u.protocol, policy, resolve);
  const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<number>((resolveStatus, reject) => {
    const req = send(
      u,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup, agent: false, signal },
      (res) => {
        let seen = 0;
        res.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (seen > MAX_RESPONSE_BYTES) res.destroy();
        });
        res.on('close', () => resolveStatus(res.statusCode ?? 0));
        res.on('error', () => resolveStatus(res.statusCode ?? 0));
      },
    );
    req.on('error', (err) => reject(refused() ?? err));
    req.end(body);
  });
}
