/**
 * What stateless streamable HTTP needs for a server that asks its client something (elicitation):
 * each POST has its own server, so
 *  - the client's capabilities travel in the session id the initialize answer hands out (the
 *    client sends it on every later POST; nothing is kept on the server), and
 *  - the client's answer to a server request, which comes on a POST of its own, is relayed to the
 *    transport of the tool call that asked (this process's; ids are made unique per process).
 *
 *   initialize { capabilities.elicitation } ──> mcp-session-id: d1.<base64url caps>.<random>
 *   tools/call ──> server(caps from the session id) ──elicitation/create (id n → global g)──> client
 *   POST { id: g, result } ──relay──> the asking transport (id g → n) ──> its server's pending request
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type ClientCapabilities,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { randomInt, randomUUID } from 'node:crypto';

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

interface Pending {
  transport: Transport;
  localId: number;
  tenant: string;
}

/** Requests servers of this process sent and whose answers have not come, by their relayed id. */
const pending = new Map<number, Pending>();
// a random start: a reply that reaches another replica finds no id of its own there
let nextId = randomInt(1, 2 ** 40);

/** Relays `transport`'s requests to the client under process-unique ids, so their answers find it (call before `connect`). */
export function relayRequests(transport: Transport, tenant: string): void {
  const send = transport.send.bind(transport);
  const mine = new Map<number, number>();
  transport.send = async (message, options) => {
    let out: JSONRPCMessage = message;
    if (isJSONRPCRequest(message)) {
      const id = nextId++;
      mine.set(Number(message.id), id);
      pending.set(id, { transport, localId: Number(message.id), tenant });
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

/** Delivers a POST's body of answers to the transports that asked; false (nothing delivered) for any other body. */
export function deliverReplies(body: unknown, tenant: string): boolean {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0) return false;
  const routes: [number, Pending, JSONRPCMessage][] = [];
  for (const m of messages) {
    if (!isJSONRPCResultResponse(m) && !isJSONRPCErrorResponse(m)) return false;
    const p = pending.get(Number(m.id));
    if (!p || p.tenant !== tenant) return false;
    routes.push([Number(m.id), p, { ...m, id: p.localId }]);
  }
  for (const [id, p, m] of routes) {
    pending.delete(id);
    p.transport.onmessage?.(m);
  }
  return true;
}
