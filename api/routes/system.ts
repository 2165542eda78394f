/** Health, readiness and the agent catalogue. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AgentDetailSchema, AgentManifestSchema, RoleSchema, breakerSettingsOf } from '../../schemas';
import { readBreaker } from '../breakers';
import { HttpProblem, ProblemSchema } from '../errors';

/** A role as the catalogue lists it: everything but its persona (the prompt stays with the operator). */
const RoleEntrySchema = RoleSchema.omit({ persona: true });

/** What the API says, at start and in /readyz, while authentication is off. */
export const AUTH_OFF_WARNING = 'DELEGATE_AUTH=off: no authentication, every caller is tenant "default"; never expose this API';

/** /healthz, /readyz, /v1/agents and /v1/agents/:id. */
export const systemRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/healthz', { schema: { summary: 'The process is up', operationId: 'healthz', security: [], tags: ['system'], response: { 200: z.object({ ok: z.boolean() }) } } }, async () => ({ ok: true }));

  app.get('/readyz', {
    schema: {
      summary: 'Temporal is reachable (503 when it is not); says when authentication is off',
      operationId: 'readyz',
      security: [],
      tags: ['system'],
      response: { 200: z.object({ ok: z.boolean(), temporal: z.string(), auth: z.enum(['on', 'off']), warning: z.string().optional() }), 503: ProblemSchema },
    },
  }, async (req, reply) => {
    try {
      const conn = app.temporal.connection;
      await conn.withDeadline(Date.now() + 2000, () => conn.workflowService.getSystemInfo({}));
      const off = app.tenants.auth === 'off';
      return { ok: true, temporal: app.config.TEMPORAL_ADDRESS, auth: app.tenants.auth, ...(off ? { warning: AUTH_OFF_WARNING } : {}) };
    } catch (err) {
      req.log.warn({ err: String(err) }, 'readiness check failed');
      return reply.code(503).type('application/problem+json').send({
        type: 'https://delegate.dev/problems/unavailable', title: 'Temporal unavailable', status: 503,
        detail: `cannot reach Temporal at ${app.config.TEMPORAL_ADDRESS}`,
      });
    }
  });

  app.get('/v1/agents', {
    schema: { summary: 'The agents and specialist roles this deployment can run', operationId: 'listAgents', tags: ['agents'], response: { 200: z.object({ agents: z.array(AgentManifestSchema), roles: z.array(RoleEntrySchema) }) } },
  }, async () => ({ agents: app.registry.list(), roles: (app.registry.roles?.list() ?? []).map(({ persona: _persona, ...r }) => r) }));

  app.get('/v1/agents/:id', {
    schema: {
      summary: "One agent: its manifest and, for a remote agent, the caller's tenant's circuit breaker on it, as every worker shares it",
      operationId: 'getAgent',
      tags: ['agents'],
      params: z.strictObject({ id: z.string().min(1).max(128) }),
      response: { 200: AgentDetailSchema, 404: ProblemSchema, 503: ProblemSchema },
    },
  }, async (req) => {
    const def = app.registry.get(req.params.id);
    if (!def) throw new HttpProblem(404, 'Not found', `no agent "${req.params.id}"; GET /v1/agents lists them`);
    const m = def.manifest;
    if (m.kind === 'builtin') return { ...m, breaker: null };
    return { ...m, breaker: await readBreaker(app.temporal, m.id, breakerSettingsOf(app.config), req.tenant) };
  });
};
