/** The caller's own webhook signing secret. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { legacyWebhookSecretFor, webhookSecretFor } from '../../activities';
import { HttpProblem, ProblemSchema } from '../errors';

const WebhookSecretSchema = z.object({
  tenant: z.string(),
  scheme: z.enum(['standard', 'legacy']).describe('the signature scheme in force (DELEGATE_WEBHOOK_SIGNATURE)'),
  secret: z.string().describe("the scheme's secret: whsec_… for standard"),
  standardSecret: z.string().optional().describe('under legacy: the whsec_ secret to move to'),
});

/** GET /v1/webhooks/secret: the secret this tenant's completion webhooks are signed with. */
export const webhookRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/v1/webhooks/secret',
    {
      schema: {
        summary: "The secret that signs this tenant's completion webhooks (Standard Webhooks, whsec_…)",
        description:
          'Under DELEGATE_WEBHOOK_SIGNATURE=legacy (deprecated) `secret` is the hex secret of `delegate-signature`, as before, and `standardSecret` the whsec_ one.',
        operationId: 'getWebhookSecret',
        tags: ['webhooks'],
        response: { 200: WebhookSecretSchema, 401: ProblemSchema, 404: ProblemSchema },
      },
    },
    async (req) => {
      const master = app.config.DELEGATE_WEBHOOK_SECRET;
      if (!master) throw new HttpProblem(404, 'Not found', 'webhooks are not signed in this deployment (DELEGATE_WEBHOOK_SECRET is unset)');
      const standard = webhookSecretFor(master, req.tenant);
      if (app.config.DELEGATE_WEBHOOK_SIGNATURE === 'legacy')
        return {
          tenant: req.tenant,
          scheme: 'legacy' as const,
          secret: legacyWebhookSecretFor(master, req.tenant),
          standardSecret: standard,
        };
      return { tenant: req.tenant, scheme: 'standard' as const, secret: standard };
    },
  );
};
