/**
 * What stateless streamable HTTP needs for a server that asks its client something (elicitation):
 * each POST has its own server, so
 *  - the client's capabilities travel in the session id the initialize answer hands out (the
 *    client sends it on every later POST; nothing is kept on the server), and
 *  - the client's answer to a server request, which comes on a POST of its own, is relayed to the
 *    transport of the tool call that asked (this process's). The request goes out under a random
 *    id bound to the session (and tenant) it was sent to: another session of the same tenant can
 *    neither guess the id nor answer with it (its answer is refused and changes nothing).
 *
 *   initialize { capabilities.elicitation } ──> mcp-session-id: d1.<base64url caps>.<random>
 *   tools/call (session s) ──> server(caps from the session id) ──elicitation/create (id n → random g, bound to s)──> client
 *   POST { id: g, result } from s ──relay──> the asking transport (id g → n) ──> its server's pending request
 *   POST { id: g, result } from any other session (or tenant), or an id not pending ──> refused
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type ClientCapabilities,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';

const PREFIX = 'd1.';
/** A session id longer than this is not one of ours. */
const MAX_SESSION_ID = 2048;

/** The session id that carries `caps` (only what this server acts on: elicitation). */
export function sessionIdOf(caps: ClientCapabilities | undefined): string | undefined {
  if (!caps?.elicitation) return undefined;
  return `${PREFIX}${Buffer.from(JSON.stringify({ elicitation: caps.elicitation })).toString('base64url')}.${randomUUID()}`;
}

/** The capabilities a session id carries (none for another or a malformed one). */
export function capabilitiesOf(sessionId: string | string[] | undefined): ClientCapabilities | undefined {
  if (typeof sessionId !== 'string' || !sessionId.startsWith(PREFIX) || sessionId.length > MAX_SESSION_ID) return undefined;
  try {
    const caps = JSON.parse(Buffer.from(sessionId.slice(PREFIX.length).split('.')[0], 'base64url').toString('utf8')) as unknown;
    const e = (caps as { elicitation?: unknown } | null)?.elicitation;
    return e && typeof e === 'object' && !Array.isArray(e) ? { elicitation: e as ClientCapabilities['elicitation'] } : undefined;
  } catch {
    return undefined;
  }
}

/** Who sent a POST: its tenant, and its session id (none: a client that declared no elicitation). */
export interface Caller {
  tenant: string;
  session: string | undefined;
}

interface Pending extends Caller {
  transport: Transport;
  localId: number;
}

/** Requests servers of this process sent and whose answers have not come, by their relayed id (random: none on another replica). */
const pending = new Map<string, Pending>();

/** Relays `transport`'s requests to the client under random ids only `caller`'s session may answer (call before `connect`). */
export function relayRequests(transport: Transport, caller: Caller): void {
  const send = transport.send.bind(transport);
  const mine = new Map<number, string>();
  transport.send = async (message, options) => {
    let out: JSONRPCMessage = message;
    if (isJSONRPCRequest(message)) {
      const id = randomUUID();
      mine.set(Number(message.id), id);
      pending.set(id, { ...caller, transport, localId: Number(message.id) });
      out = { ...message, id };
    } else if ('method' in message && message.method === 'notifications/cancelled') {
      const params = message.params as { requestId?: number };
      const id = mine.get(Number(params?.requestId));
      if (id !== undefined) {
        pending.delete(id);
        out = { ...message, params: { ...params, requestId: id } };
      }
    }
    return send(out, options);
  };
  const onclose = transport.onclose;
  transport.onclose = () => {
    for (const id of mine.values()) pending.delete(id);
    onclose?.();
  };
}

/** What became of a POST's body: its answers delivered, refused (one names no request its session was asked), or no body of answers. */
export type Delivery = 'delivered' | 'refused' | 'none';

/** Delivers a body of answers to the transports that asked, all or none: only answers from the session each request was sent to. */
export function deliverReplies(body: unknown, caller: Caller): Delivery {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0 || !messages.every((m) => isJSONRPCResultResponse(m) || isJSONRPCErrorResponse(m))) return 'none';
  const routes: [string, Pending, JSONRPCMessage][] = [];
  for (const m of messages) {
    const p = typeof m.id === 'string' ? pending.get(m.id) : undefined;
    // another session's request is refused as an unknown one: the answer learns nothing of it
    if (!p || p.tenant !== caller.tenant || p.session !== caller.session) return 'refused';
    routes.push([m.id as string, p, { ...m, id: p.localId }]);
  }
  for (const [id, p, m] of routes) {
    pending.delete(id);
    p.transport.onmessage?.(m);
  }
  return 'delivered';
}
