/**
 * `/mcp`: Delegate as an MCP server over streamable HTTP, with the API's bearer keys (the auth
 * hook has answered 401 before this runs; the key's tenant is `req.tenant`). Stateless: each
 * POST gets its own server and transport bound to the caller's tenant, so any API replica
 * answers any request and nothing is kept between them. A tool call's progress notifications
 * and its result travel on that POST's own SSE answer; there is no standalone GET stream
 * (405, which MCP clients take as "none"), and no session to DELETE. A JSON-RPC batch counts
 * against the caller's request rate once per message it holds, and the Host check
 * (api/host-check.ts) has refused a DNS-rebinding page before any of this runs. A client that
 * declares elicitation gets a session id carrying that (mcp/http-session.ts): its later POSTs'
 * servers put the job's inbox to it, and its answers (POSTs of their own) are relayed to the call
 * that asked, from that session only.
 *
 *   POST /mcp ──auth──> tenant ──> McpServer(in-process backend, caps of the session id) ⇄ StreamableHTTPServerTransport ──> SSE / JSON answer
 *   POST /mcp { answers to the server's requests } ──> the asking call's transport ──> 202
 *       (an id no request of this session has: 400, nothing delivered)
 */
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyPluginAsync } from 'fastify';
import { createInProcessBackend } from '../mcp-backend';
import { capabilitiesOf, deliverReplies, relayRequests, sessionIdOf } from '../../mcp/http-session';
import { createDelegateMcpServer } from '../../mcp/server';
import { HttpProblem, sendProblem } from '../errors';
import { callerOfMeta, withCaller } from '../caller-context';

/** The MCP endpoint. */
export const mcpRoutes: FastifyPluginAsync = async (app) => {
  app.post('/mcp', { schema: { hide: true } }, async (req, reply) => {
    // a JSON-RPC batch is as many calls as it holds: the rate limit counted the POST once
    if (Array.isArray(req.body) && req.body.length > 1) await app.chargeRequests(req, Math.min(req.body.length, MAX_BATCH_SIZE) - 1);
    const sessionHeader = req.headers['mcp-session-id'];
    const caller = { tenant: req.tenant, session: typeof sessionHeader === 'string' ? sessionHeader : undefined };
    // the client's answer to an elicitation: for the call that asked, not for a new server
    const delivery = deliverReplies(req.body, caller);
    if (delivery === 'delivered') return reply.code(202).send();
    if (delivery === 'refused') {
      const message = 'the answer names no request of this session that awaits one (another session asked it, or it was settled)';
      return reply.code(400).send({ jsonrpc: '2.0', id: null, error: { code: -32600, message } });
    }
    // a tool call's `_meta` names its parent's session and model, as headers do on REST: kept before the call runs
    const said = callerOfMeta((Array.isArray(req.body) ? req.body[0] : req.body)?.params?._meta);
    if (said.parent) await app.jobs.noteParent(req.tenant, said.parent);
    const clientCapabilities = capabilitiesOf(sessionHeader);
    const roles = (app.registry.roles?.list() ?? []).map(({ persona: _persona, ...r }) => r);
    const server = createDelegateMcpServer(createInProcessBackend(app, req.tenant), { clientCapabilities, roles });
    const initialize = isInitializeRequest(req.body) ? req.body.params.capabilities : undefined;
    const session = sessionIdOf(initialize);
    // stateless still: only the initialize answer names a session, and no later POST is checked against it
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: session ? () => session : undefined });
    relayRequests(transport, caller);
    // the transport writes the answer itself (JSON or an SSE stream)
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await withCaller(said, () => transport.handleRequest(req.raw, reply.raw, req.body));
    } catch (err) {
      req.log.error({ err }, 'mcp request failed');
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' });
        reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
      }
    }
  });

  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/mcp',
      schema: { hide: true },
      handler: async (_req, reply) =>
        sendProblem(
          reply.header('allow', 'POST'),
          new HttpProblem(405, 'Method not allowed', 'this MCP endpoint is stateless: POST only (no standalone stream, no session)'),
        ),
    });
  }
};
