/**
 * The client side of an `a2a` agent: its card, read once per worker (and again after five
 * minutes) through a fetch that connects only where the net policy allows, and an SDK client on
 * the card's interface (JSON-RPC or HTTP+JSON) that sends the agent's headers with every request.
 *
 *   cardUrl ──guarded fetch──> AgentCard ──skill on it? (else fatal)──> ClientFactory.createFromAgentCard ──> Client
 */
import type { AgentCard } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { DestinationRefusedError, type Resolver } from '../guarded-post';
import { guardedFetch } from '../guarded-fetch';
import { throwIfThrottled } from './remote';
import type { NetPolicy } from '../net-policy';
import { AgentFatalError, AgentRetryableError } from '../errors';

/** How long a card is trusted before it is read again. */
const CARD_TTL_MS = 5 * 60_000;

/** What the client of one agent needs. */
export interface A2aClientOptions {
  id: string;
  cardUrl: string;
  skill?: string;
  headers: Record<string, string>;
  policy: NetPolicy;
  resolve?: Resolver;
}

/** An agent's client and the card it was made from. */
export interface A2aRemote {
  card: AgentCard;
  client: Client;
  streaming: boolean;
}

/** Largest body read from one response of a remote agent (a long task's whole stream). */
const A2A_MAX_RESPONSE_BYTES = 32 << 20;

/** A fetch error as the step reports it: a refused destination is final, anything else may pass. */
export function fetchFailure(err: unknown, what: string): Error {
  if (err instanceof AgentFatalError || err instanceof AgentRetryableError) return err;
  if (err instanceof DestinationRefusedError) return new AgentFatalError(`${what}: destination ${err.message}`);
  const e = err as { name?: string; code?: string; cause?: { code?: string } };
  return new AgentRetryableError(`${what} unreachable (${e.cause?.code ?? e.code ?? e.name ?? 'error'})`);
}

/** Creates the per-worker client cache of one agent. */
export function createA2aRemote(o: A2aClientOptions): () => Promise<A2aRemote> {
  // a remote task's stream may run long: a far larger cap than a tool's answer
  const guarded = guardedFetch({
    policy: o.policy,
    maxResponseBytes: A2A_MAX_RESPONSE_BYTES,
    ...(o.resolve ? { resolve: o.resolve } : {}),
  });
  // the agent's headers on every request, the card's included; the SDK's own headers win on clashes
  // a 429 (or a 503 with Retry-After) is throttling: the step's provider gate waits and sends again
  const fetchImpl = (async (input: string | URL | Request, init: RequestInit = {}) => {
    const res = await guarded(input, { ...init, headers: { ...o.headers, ...Object.fromEntries(new Headers(init.headers).entries()) } });
    throwIfThrottled(res, `agent ${o.id}`);
    return res;
  }) as typeof fetch;
  let cached: { at: number; remote: Promise<A2aRemote> } | undefined;

  async function connect(): Promise<A2aRemote> {
    const resolver = new DefaultAgentCardResolver({ fetchImpl });
    let card: AgentCard;
    try {
      card = await resolver.resolve(o.cardUrl, o.cardUrl);
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      // the resolver reports a non-2xx answer as a plain error naming its status
      const status = /: ([1-5]\d\d)$/.exec(msg)?.[1];
      if (status)
        throw Number(status) >= 500 || status === '429'
          ? new AgentRetryableError(`agent ${o.id}: card answered ${status}`)
          : new AgentFatalError(`agent ${o.id}: card answered ${status}`);
      throw fetchFailure(err, `agent ${o.id}: card`);
    }
    if (o.skill && !card.skills.some((s) => s.id === o.skill))
      throw new AgentFatalError(
        `agent ${o.id}: the card has no skill "${o.skill}" (it has ${card.skills.map((s) => s.id).join(', ') || 'none'})`,
      );
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      }),
    );
    const client = await factory.createFromAgentCard(card).catch((err: unknown) => {
      throw new AgentFatalError(`agent ${o.id}: no usable interface on the card (${err instanceof Error ? err.message : String(err)})`);
    });
    return { card, client, streaming: card.capabilities?.streaming === true };
  }

  return () => {
    if (!cached || Date.now() - cached.at > CARD_TTL_MS) {
      const remote = connect();
      cached = { at: Date.now(), remote };
      // a failed read is not kept: the next step reads the card again
      remote.catch(() => {
        if (cached?.remote === remote) cached = undefined;
      });
    }
    return cached.remote;
  };
}
