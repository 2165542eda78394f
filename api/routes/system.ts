/** Health, readiness and the agent catalogue. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AgentManifestSchema } from '../../schemas';
import { ProblemSchema } from '../errors';

/** /healthz, /readyz and /v1/agents. */
export const systemRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/healthz', { schema: { summary: 'The process is up', tags: ['system'], response: { 200: z.object({ ok: z.boolean() }) } } }, async () => ({ ok: true }));

  app.get('/readyz', {
    schema: {
      summary: 'Temporal is reachable (503 when it is not)',
      tags: ['system'],
      response: { 200: z.object({ ok: z.boolean(), temporal: z.string() }), 503: ProblemSchema },
    },
  }, async (req, reply) => {
    try {
      const conn = app.temporal.connection;
      await conn.withDeadline(Date.now() + 2000, () => conn.workflowService.getSystemInfo({}));
      return { ok: true, temporal: app.config.TEMPORAL_ADDRESS };
    } catch (err) {
      req.log.warn({ err: String(err) }, 'readiness check failed');
      return reply.code(503).type('application/problem+json').send({
        type: 'https://delegate.dev/problems/unavailable', title: 'Temporal unavailable', status: 503,
        detail: `cannot reach Temporal at ${app.config.TEMPORAL_ADDRESS}`,
      });
    }
  });

  app.get('/v1/agents', {
    schema: { summary: 'The agents this deployment can run', tags: ['agents'], response: { 200: z.object({ agents: z.array(AgentManifestSchema) }) } },
  }, async () => ({ agents: app.registry.list() }));
};
