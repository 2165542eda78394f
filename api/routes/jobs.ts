/** Job routes: submit, status, result, stop, cancel, budget top-ups, listing. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { BudgetTopUpSchema, IdSchema, JobResultSchema, JobSpecSchema, JobViewSchema, LedgerSchema } from '../../schemas';
import { ProblemSchema } from '../errors';

const TenantHeaders = z.object({
  'x-tenant': z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, "_", ".", "-"').default('default'),
});
const SubmitHeaders = TenantHeaders.extend({ 'idempotency-key': IdSchema.optional() });
const JobParams = z.strictObject({ jobId: IdSchema });
const problems = { 400: ProblemSchema, 404: ProblemSchema, 409: ProblemSchema, 422: ProblemSchema, 503: ProblemSchema };
const Accepted = z.object({ jobId: z.string(), workflowId: z.string(), status: z.string(), links: z.record(z.string(), z.string()) });

/** Job routes under /v1/jobs. */
export const jobRoutes: FastifyPluginAsyncZod = async (app) => {
  const svc = app.jobs;
  const links = (jobId: string) => {
    const self = `${app.publicUrl}/v1/jobs/${encodeURIComponent(jobId)}`;
    return { self, result: `${self}/result`, temporalUi: '' };
  };
  const linksFor = (tenant: string, jobId: string) => ({ ...links(jobId), temporalUi: svc.uiLink(svc.workflowIdOf(tenant, jobId)) });

  app.post('/v1/jobs', {
    schema: {
      summary: 'Submit a job (idempotent on jobId or the Idempotency-Key header)',
      tags: ['jobs'],
      headers: SubmitHeaders,
      body: JobSpecSchema,
      response: { 201: Accepted, 200: Accepted, ...problems },
    },
  }, async (req, reply) => {
    const tenant = req.headers['x-tenant'];
    const sub = await svc.submit(tenant, req.body, req.headers['idempotency-key']);
    req.log.info({ jobId: sub.jobId, created: sub.created, tasks: req.body.tasks.length }, sub.created ? 'job submitted' : 'job resubmitted');
    return reply
      .code(sub.created ? 201 : 200)
      .header('location', links(sub.jobId).self)
      .send({ jobId: sub.jobId, workflowId: sub.workflowId, status: sub.created ? 'running' : 'existing', links: linksFor(tenant, sub.jobId) });
  });

  app.get('/v1/jobs', {
    schema: {
      summary: 'List jobs, newest first',
      tags: ['jobs'],
      headers: TenantHeaders,
      querystring: z.strictObject({
        pattern: z.enum(['fanout', 'pipeline', 'vote']).optional(),
        status: z.enum(['running', 'success', 'partial', 'failure', 'cancelled']).optional(),
        label: z.union([z.string().regex(/^[^=]+=.*$/, 'key=value'), z.array(z.string().regex(/^[^=]+=.*$/, 'key=value'))]).optional(),
        limit: z.coerce.number().int().min(1).max(1000).default(50),
      }),
      response: { 200: z.object({ jobs: z.array(z.record(z.string(), z.unknown())) }), ...problems },
    },
  }, async (req) => {
    const { label, ...rest } = req.query;
    const jobs = await svc.list(req.headers['x-tenant'], { ...rest, label: label === undefined ? [] : [label].flat() });
    return { jobs };
  });

  app.get('/v1/jobs/:jobId', {
    schema: {
      summary: 'Job state, progress, per-subtask status and ledger; the result when done',
      tags: ['jobs'],
      headers: TenantHeaders,
      params: JobParams,
      response: { 200: JobViewSchema, ...problems },
    },
  }, async (req) => svc.view(req.headers['x-tenant'], req.params.jobId, linksFor(req.headers['x-tenant'], req.params.jobId)));

  app.get('/v1/jobs/:jobId/result', {
    schema: {
      summary: 'The JobResult (200), or the status (202) if still running after waitSeconds',
      tags: ['jobs'],
      headers: TenantHeaders,
      params: JobParams,
      querystring: z.strictObject({ waitSeconds: z.coerce.number().min(0).max(60).default(0) }),
      response: { 200: JobResultSchema, 202: JobViewSchema, ...problems },
    },
  }, async (req, reply) => {
    const tenant = req.headers['x-tenant'];
    const result = await svc.result(tenant, req.params.jobId, req.query.waitSeconds);
    if (result) return reply.code(200).send(result);
    return reply.code(202).send(await svc.view(tenant, req.params.jobId, linksFor(tenant, req.params.jobId)));
  });

  const controls = [
    { verb: 'stop', status: 'stopping', run: svc.stop, summary: 'Graceful stop: running subtasks finish their step and return partial results' },
    { verb: 'cancel', status: 'cancelling', run: svc.cancel, summary: 'Hard cancel: children are cancelled; finished results are kept' },
  ] as const;
  for (const c of controls) {
    app.post(`/v1/jobs/:jobId/${c.verb}`, {
      schema: { summary: c.summary, tags: ['jobs'], headers: TenantHeaders, params: JobParams, response: { 202: Accepted, ...problems } },
    }, async (req, reply) => {
      const tenant = req.headers['x-tenant'];
      await c.run(tenant, req.params.jobId);
      req.log.info({ jobId: req.params.jobId }, `job ${c.verb} requested`);
      return reply.code(202).send({ jobId: req.params.jobId, workflowId: svc.workflowIdOf(tenant, req.params.jobId), status: c.status, links: linksFor(tenant, req.params.jobId) });
    });
  }

  app.post('/v1/jobs/:jobId/budget', {
    schema: {
      summary: 'Add to the job budget; returns limit, spent, reserved and remaining per axis',
      tags: ['budgets'],
      headers: TenantHeaders,
      params: JobParams,
      body: BudgetTopUpSchema,
      response: { 200: z.object({ jobId: z.string(), ledger: LedgerSchema }), ...problems },
    },
  }, async (req) => ({ jobId: req.params.jobId, ledger: await svc.topUp(req.headers['x-tenant'], req.params.jobId, req.body.add) }));

  app.post('/v1/jobs/:jobId/subtasks/:taskId/budget', {
    schema: {
      summary: "Add to one running subtask's budget, within what its job has left",
      tags: ['budgets'],
      headers: TenantHeaders,
      params: z.strictObject({ jobId: IdSchema, taskId: IdSchema }),
      body: BudgetTopUpSchema,
      response: { 200: z.object({ taskId: z.string(), granted: z.record(z.string(), z.number()), ledger: LedgerSchema }), ...problems },
    },
  }, async (req) => svc.topUpSubtask(req.headers['x-tenant'], req.params.jobId, req.params.taskId, req.body.add));

};
