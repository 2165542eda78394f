/**
 * The A2A 1.0 endpoints in the Fastify app: the public agent card, and the JSON-RPC binding at
 * /a2a through the SDK's own `JsonRpcTransportHandler` (the SDK ships Express adapters only; this
 * is the same few steps: call context, version check, one JSON answer or an SSE stream).
 *
 *   GET  /.well-known/agent-card.json ──> AgentCard (JSON form)
 *   POST /a2a (bearer key, A2A-Version: 1.0) ──JsonRpcTransportHandler──> handler.ts ──> JSON-RPC result | SSE of results
 */
import { A2A_VERSION_HEADER, AgentCard, formatSSEErrorEvent, formatSSEEvent, HTTP_EXTENSION_HEADER, SSE_HEADERS } from '@a2a-js/sdk';
import { A2A_ERROR_CODE, toJsonRpcError } from '@a2a-js/sdk/errors';
import { JsonRpcTransportHandler, ServerCallContext, validateVersion, type User } from '@a2a-js/sdk/server';
import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import { A2A_PATH, AGENT_CARD_PATH, agentCardOf, CARD_VERSION } from './card';
import { HttpProblem } from '../errors';
import { CALLER_SIGNAL, CALLER_TENANT, createA2aHandler } from './handler';

/** How often an open stream sends a comment line (below DELEGATE_CONNECTION_IDLE_SECONDS; the REST stream's pace). */
const STREAM_PING_MS = 15_000;

/** The caller as the SDK sees it: the tenant its key decides. */
class TenantUser implements User {
  constructor(readonly userName: string) {}
  get isAuthenticated(): boolean {
    return true;
  }
}

type RpcAnswer = { jsonrpc: string; id: string | number | null; error?: unknown; result?: unknown };

/** An internal error's message stays in the log: the caller reads "internal error" (as REST's 5xx bodies). */
function scrub(answer: RpcAnswer, log: FastifyBaseLogger): RpcAnswer {
  const error = answer.error as { code?: number; message?: string } | undefined;
  if (!error) return answer;
  if (error.code !== A2A_ERROR_CODE.INTERNAL_ERROR) {
    log.info({ error }, 'a2a call refused');
    return answer;
  }
  log.error({ error }, 'a2a call failed');
  return { ...answer, error: { code: error.code, message: 'internal error' } };
}

const isStream = (v: unknown): v is AsyncGenerator<RpcAnswer> => typeof (v as AsyncGenerator)?.[Symbol.asyncIterator] === 'function';

/** The A2A routes. */
export const a2aRoutes: FastifyPluginAsync = async (app) => {
  const handler = createA2aHandler(app);
  const transport = new JsonRpcTransportHandler(handler);
  const configured = app.config.PUBLIC_URL ? JSON.stringify(AgentCard.toJSON(await handler.getAgentCard())) : undefined;

  // without PUBLIC_URL the card names the address it was asked at (the host check has vetted the Host header)
  app.get(AGENT_CARD_PATH, { schema: { hide: true } }, async (req, reply) =>
    reply
      .header('content-type', 'application/json')
      .header('cache-control', 'public, max-age=300')
      .send(configured ?? JSON.stringify(AgentCard.toJSON(agentCardOf(`${req.protocol}://${req.host}`, CARD_VERSION)))),
  );

  app.post(A2A_PATH, { schema: { hide: true } }, async (req, reply) => {
    const body = req.body as { id?: string | number | null; method?: string } | undefined;
    const id = body?.id ?? null;
    const gone = new AbortController();
    // the response's close: the client went away, or the stream ended (a request's close fires once its body is read)
    reply.raw.on('close', () => gone.abort());
    const context = new ServerCallContext({
      user: new TenantUser(req.tenant),
      requestedVersion: req.headers[A2A_VERSION_HEADER.toLowerCase()] as string | undefined,
      requestedExtensions: String(req.headers[HTTP_EXTENSION_HEADER.toLowerCase()] ?? '')
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
      state: new Map<string, unknown>([
        [CALLER_TENANT, req.tenant],
        [CALLER_SIGNAL, gone.signal],
      ]),
    });
    let answer: RpcAnswer | AsyncGenerator<RpcAnswer>;
    try {
      validateVersion(context.requestedVersion, await handler.getAgentCard(), 'JSONRPC');
      answer = (await transport.handle(req.body as Record<string, unknown>, context)) as RpcAnswer | AsyncGenerator<RpcAnswer>;
    } catch (err) {
      return reply.send(scrub({ jsonrpc: '2.0', id, error: toJsonRpcError(err) }, req.log));
    }
    if (!isStream(answer)) {
      return reply.send(scrub(answer, req.log));
    }
    // the first event before the headers: a refusal then is one JSON answer, not a stream
    let first: IteratorResult<RpcAnswer>;
    try {
      first = await answer.next();
    } catch (err) {
      // past the tenant's cap of open streams: 429 with Retry-After, as the request rate's
      if (err instanceof HttpProblem && err.status === 429) throw err;
      return reply.send(scrub({ jsonrpc: '2.0', id, error: toJsonRpcError(err) }, req.log));
    }
    reply.hijack();
    reply.raw.writeHead(200, SSE_HEADERS);
    // a comment line now and then: a stream waiting on a person stays open past the idle timeout
    const ping = setInterval(() => reply.raw.write(': ping\n\n'), STREAM_PING_MS);
    try {
      if (!first.done) reply.raw.write(formatSSEEvent(first.value));
      for await (const ev of answer) {
        if (gone.signal.aborted) break;
        reply.raw.write(formatSSEEvent(scrub(ev, req.log)));
      }
    } catch (err) {
      req.log.warn({ err, method: body?.method }, 'a2a stream failed');
      if (!reply.raw.writableEnded)
        reply.raw.write(formatSSEErrorEvent(scrub({ jsonrpc: '2.0', id, error: toJsonRpcError(err) }, req.log)));
    } finally {
      clearInterval(ping);
      await answer.return(undefined).catch(() => undefined);
      reply.raw.end();
    }
  });
};
