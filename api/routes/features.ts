/**
 * Feature routes: closing a feature files its scouts into the feature's dossier in the record
 * (api/scouts/features.ts). Idempotent: closing twice adds nothing the first close filed.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FeatureSlugSchema } from '../../schemas/scout';
import { closeFeature } from '../scouts/features';
import { PROBLEM_RESPONSES } from '../errors';

const Entry = z.object({
  scoutId: z.string(),
  question: z.string(),
  confidence: z.string().nullable(),
  recommendation: z.string().nullable(),
  status: z.string().nullable(),
  settledAt: z.string().nullable(),
  link: z.string(),
});

const Dossier = z
  .object({
    featureSlug: z.string(),
    closedAt: z.string().describe('the first close'),
    alreadyClosed: z.boolean(),
    added: z.number().describe('entries this close filed (0 when closing again with nothing new)'),
    pending: z.array(z.string()).describe('scouts of the feature still running: filed by a later close'),
    entries: z.array(Entry),
    markdown: z.string().describe('the dossier: a bullet per scout (question, confidence, recommendation, link)'),
  })
  .meta({ id: 'FeatureDossier' });

/** Feature routes under /v1/features. */
export const featureRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/v1/features/:slug/close',
    {
      schema: {
        summary: "Close a feature: file each of its scouts into the feature's dossier (Markdown and JSON); idempotent",
        operationId: 'closeFeature',
        tags: ['scouts'],
        params: z.strictObject({ slug: FeatureSlugSchema }),
        body: z.strictObject({}).nullish(),
        response: { 200: Dossier, ...PROBLEM_RESPONSES },
      },
    },
    async (req) => closeFeature(app.record, app.publicUrl, req.tenant, req.params.slug),
  );
};
