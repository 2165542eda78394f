/** The caller's own webhook signing secret. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { webhookSecretFor } from '../../activities';
import { HttpProblem, ProblemSchema } from '../errors';

/** GET /v1/webhooks/secret: the secret this tenant's completion webhooks are signed with. */
export const webhookRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/v1/webhooks/secret',
    {
      schema: {
        summary: "The secret that signs this tenant's completion webhooks (HMAC-SHA256)",
        operationId: 'getWebhookSecret',
        tags: ['webhooks'],
        response: { 200: z.object({ tenant: z.string(), secret: z.string() }), 401: ProblemSchema, 404: ProblemSchema },
      },
    },
    async (req) => {
      const master = app.config.DELEGATE_WEBHOOK_SECRET;
      if (!master) throw new HttpProblem(404, 'Not found', 'webhooks are not signed in this deployment (DELEGATE_WEBHOOK_SECRET is unset)');
      return { tenant: req.tenant, secret: webhookSecretFor(master, req.tenant) };
    },
  );
};
