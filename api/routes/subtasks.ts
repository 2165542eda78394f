/**
 * The research-subtask contract over HTTP, as harnesses write it: one snake_case subtask in,
 * the contract's output back. Each runs as a one-task job (so every job feature holds: tenant
 * isolation, idempotency, budgets, the record, events), mapped by schemas/research-mapping.ts.
 *
 *   POST /v1/subtasks ?waitSeconds ──toTaskPlan──> job (labels contract, parent_id) ──> 200 output | 202 running
 *   GET  /v1/subtasks/:jobId ?waitSeconds ──> 200 output | 202 running
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IdSchema } from '../../schemas';
import { ResearchSubtaskInputSchema, ResearchSubtaskOutputSchema } from '../../schemas/research-contract';
import { PROBLEM_RESPONSES } from '../errors';
import { readResearchSubtask, researchRoutingOf, runResearchSubtask } from '../jobs/research';

const problems = PROBLEM_RESPONSES;
const Wait = z.strictObject({
  waitSeconds: z.coerce.number().min(0).max(60).default(0).describe('wait this long for the output (202 when it is not ready)'),
});
const Running = z.object({
  id: z.string().describe("the contract's id, echoed"),
  job_id: z.string(),
  status: z.literal('running'),
  links: z.object({ self: z.string(), job: z.string(), temporalUi: z.string() }),
});

/** Research-subtask routes under /v1/subtasks. */
export const subtaskRoutes: FastifyPluginAsyncZod = async (app) => {
  const svc = app.jobs;
  const links = (tenant: string, jobId: string) => ({
    self: `${app.publicUrl}/v1/subtasks/${encodeURIComponent(jobId)}`,
    job: `${app.publicUrl}/v1/jobs/${encodeURIComponent(jobId)}`,
    temporalUi: svc.uiLink(svc.workflowIdOf(tenant, jobId)),
  });

  app.post(
    '/v1/subtasks',
    {
      schema: {
        summary: 'Run one subtask written in the research-subtask contract; its output (200) or where to wait for it (202)',
        description: "The body is the contract's snake_case input. It runs as a one-task job, idempotent on the Idempotency-Key header.",
        operationId: 'submitResearchSubtask',
        tags: ['subtasks'],
        headers: z.object({ 'idempotency-key': IdSchema.optional() }),
        querystring: Wait,
        body: ResearchSubtaskInputSchema,
        response: { 200: ResearchSubtaskOutputSchema, 202: Running, ...problems },
      },
    },
    async (req, reply) => {
      const tenant = req.tenant;
      const run = await runResearchSubtask(
        svc,
        researchRoutingOf(app),
        tenant,
        req.body,
        req.query.waitSeconds,
        req.headers['idempotency-key'],
      );
      req.log.info(
        { jobId: run.jobId, created: run.created, subtask: req.body.id, parentId: req.body.parent_id },
        'research subtask submitted',
      );
      reply.header('location', links(tenant, run.jobId).self);
      if (run.output) return reply.code(200).send(run.output);
      return reply.code(202).send({ id: req.body.id, job_id: run.jobId, status: 'running' as const, links: links(tenant, run.jobId) });
    },
  );

  app.get(
    '/v1/subtasks/:jobId',
    {
      schema: {
        summary: "A research subtask's output (200), or 202 while it runs",
        operationId: 'getResearchSubtask',
        tags: ['subtasks'],
        params: z.strictObject({ jobId: IdSchema }),
        querystring: Wait,
        response: { 200: ResearchSubtaskOutputSchema, 202: Running, ...problems },
      },
    },
    async (req, reply) => {
      const { tenant } = req;
      const { jobId } = req.params;
      const read = await readResearchSubtask(svc, tenant, jobId, req.query.waitSeconds);
      if ('output' in read) return reply.code(200).send(read.output);
      return reply.code(202).send({ id: read.id, job_id: jobId, status: 'running' as const, links: links(tenant, jobId) });
    },
  );
};
