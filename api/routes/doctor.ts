/** `delegate doctor` over REST: the caller's tenant's record hygiene and the prune schedule's next run (api/doctor.ts). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DoctorFixSchema, DoctorReportSchema } from '../../schemas';
import { doctorReport, fixOrphanScouts } from '../doctor';
import { PROBLEM_RESPONSES } from '../errors';

/** GET /v1/doctor and POST /v1/doctor/fix. */
export const doctorRoutes: FastifyPluginAsyncZod = async (app) => {
  const deps = { record: app.record, temporal: app.temporal };

  app.get(
    '/v1/doctor',
    {
      schema: {
        summary:
          "The record's hygiene for the caller's tenant (orphaned scouts, approvals pending past their expiry) and what the automatic prune does next, and when",
        operationId: 'doctor',
        tags: ['system'],
        response: { 200: DoctorReportSchema, ...PROBLEM_RESPONSES },
      },
    },
    async (req) => doctorReport(deps, req.tenant),
  );

  app.post(
    '/v1/doctor/fix',
    {
      schema: {
        summary:
          "Delete the caller's tenant's orphaned scouts (no feature, older than 90 days) now, as the prune schedule would on its next run; scouts with a feature are never deleted. Then the report again",
        operationId: 'doctorFix',
        tags: ['system'],
        body: z.strictObject({}).nullish(),
        response: { 200: DoctorFixSchema, ...PROBLEM_RESPONSES },
      },
    },
    async (req) => {
      const scouts = await fixOrphanScouts(app.record, req.tenant);
      req.log.info({ tenant: req.tenant, scouts }, 'doctor: orphaned scouts deleted');
      return { fixed: { scouts }, report: await doctorReport(deps, req.tenant) };
    },
  );
};
