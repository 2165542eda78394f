/** Job routes: submit, status, result, stop, cancel, budget top-ups, listing. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  BudgetTopUpSchema,
  IdSchema,
  JobPageSchema,
  JobResultSchema,
  JobSpecSchema,
  JobViewSchema,
  LabelKeySchema,
  LabelValueSchema,
  LedgerSchema,
  AdmissionDecisionSchema,
} from '../../schemas';
import { AdmissionProblemSchema } from '../admission';
import { PROBLEM_RESPONSES } from '../errors';
import { NoWorkerProblemSchema } from '../lanes';
import { decodeJobPageToken } from '../jobs/page-token';

const SubmitHeaders = z.object({ 'idempotency-key': IdSchema.optional() });
const JobParams = z.strictObject({ jobId: IdSchema });
const problems = { ...PROBLEM_RESPONSES, 503: NoWorkerProblemSchema };
/** `key=value`, both from the label character sets. */
export const LabelFilter = z.string().refine((s) => {
  const at = s.indexOf('=');
  return at > 0 && LabelKeySchema.safeParse(s.slice(0, at)).success && LabelValueSchema.safeParse(s.slice(at + 1)).success;
}, 'key=value: keys of letters, digits, "_.-"; values of letters, digits, space and "_.:/@+-"');
/** Stop and cancel take an optional reason (and require application/json, like every POST). */
const ControlBody = z.strictObject({ reason: z.string().max(500).optional() }).nullish();
/** A model switch: the model, the output cap, or both. */
const JobModelBody = z
  .strictObject({ model: z.string().min(1).max(200).optional(), maxOutputTokens: z.number().int().min(1).max(1_000_000).optional() })
  .refine((b) => b.model !== undefined || b.maxOutputTokens !== undefined, 'give model, maxOutputTokens or both');
/** Jobs a listing page holds. */
const PageSize = z.coerce.number().int().min(1).max(1000);
const Accepted = z.object({
  jobId: z.string(),
  workflowId: z.string(),
  status: z.string(),
  links: z.record(z.string(), z.string()),
  admission: AdmissionDecisionSchema.optional().describe(
    "set when the job asked for admission control: the decision, and a re-plan's changes",
  ),
});

/** Job routes under /v1/jobs. */
export const jobRoutes: FastifyPluginAsyncZod = async (app) => {
  const svc = app.jobs;
  const links = (jobId: string) => {
    const self = `${app.publicUrl}/v1/jobs/${encodeURIComponent(jobId)}`;
    return { self, result: `${self}/result`, temporalUi: '' };
  };
  const linksFor = (tenant: string, jobId: string) => ({ ...links(jobId), temporalUi: svc.uiLink(svc.workflowIdOf(tenant, jobId)) });

  app.post(
    '/v1/jobs',
    {
      schema: {
        summary: 'Submit a job (idempotent on jobId or the Idempotency-Key header)',
        operationId: 'submitJob',
        tags: ['jobs'],
        headers: SubmitHeaders,
        body: JobSpecSchema,
        response: { 201: Accepted, 200: Accepted, ...problems, 422: AdmissionProblemSchema },
      },
    },
    async (req, reply) => {
      const tenant = req.tenant;
      const sub = await svc.submit(tenant, req.body, req.headers['idempotency-key']);
      req.log.info(
        { jobId: sub.jobId, created: sub.created, tasks: req.body.tasks.length, ...(sub.traceId ? { traceId: sub.traceId } : {}) },
        sub.created ? 'job submitted' : 'job resubmitted',
      );
      return reply
        .code(sub.created ? 201 : 200)
        .header('location', links(sub.jobId).self)
        .send({
          jobId: sub.jobId,
          workflowId: sub.workflowId,
          status: sub.created ? 'running' : 'existing',
          links: linksFor(tenant, sub.jobId),
          ...(sub.admission ? { admission: sub.admission } : {}),
        });
    },
  );

  app.get(
    '/v1/jobs',
    {
      schema: {
        summary: 'List root jobs, newest start first, a page at a time (`pageSize`, `nextPageToken`)',
        operationId: 'listJobs',
        tags: ['jobs'],
        querystring: z.strictObject({
          pattern: z.enum(['fanout', 'pipeline', 'vote']).optional(),
          status: z.enum(['running', 'success', 'partial', 'failure', 'cancelled']).optional(),
          label: z.union([LabelFilter, z.array(LabelFilter).max(32)]).optional(),
          pageSize: PageSize.optional().describe('at most this many (default 50)'),
          nextPageToken: z
            .string()
            .max(400)
            .refine((t) => decodeJobPageToken(t) !== undefined, 'not a page token this API gave')
            .optional()
            .describe('the `nextPageToken` of the previous page'),
          limit: PageSize.optional().describe('deprecated: the same as `pageSize`'),
        }),
        response: { 200: JobPageSchema, ...problems },
      },
    },
    async (req) => {
      const { label, pageSize, limit, nextPageToken, ...rest } = req.query;
      const after = nextPageToken === undefined ? undefined : decodeJobPageToken(nextPageToken);
      return svc.list(req.tenant, { ...rest, label: label === undefined ? [] : [label].flat(), pageSize: pageSize ?? limit ?? 50, after });
    },
  );

  app.get(
    '/v1/jobs/:jobId',
    {
      schema: {
        summary: 'Job state, progress, per-subtask status and ledger; the result when done',
        operationId: 'getJob',
        tags: ['jobs'],
        params: JobParams,
        response: { 200: JobViewSchema, ...problems },
      },
    },
    async (req) => svc.view(req.tenant, req.params.jobId, linksFor(req.tenant, req.params.jobId)),
  );

  app.get(
    '/v1/jobs/:jobId/result',
    {
      schema: {
        summary: 'The JobResult (200), or the status (202) if still running after waitSeconds',
        operationId: 'getJobResult',
        tags: ['jobs'],
        params: JobParams,
        querystring: z.strictObject({ waitSeconds: z.coerce.number().min(0).max(60).default(0) }),
        response: { 200: JobResultSchema, 202: JobViewSchema, ...problems },
      },
    },
    async (req, reply) => {
      const tenant = req.tenant;
      const result = await svc.result(tenant, req.params.jobId, req.query.waitSeconds);
      if (result) return reply.code(200).send(result);
      return reply.code(202).send(await svc.view(tenant, req.params.jobId, linksFor(tenant, req.params.jobId)));
    },
  );

  const controls = [
    {
      verb: 'stop',
      operationId: 'stopJob',
      status: 'stopping',
      run: svc.stop,
      summary: 'Graceful stop: running subtasks finish their step and return partial results',
    },
    {
      verb: 'cancel',
      operationId: 'cancelJob',
      status: 'cancelling',
      run: svc.cancel,
      summary: 'Hard cancel: children are cancelled; finished results are kept',
    },
  ] as const;
  for (const c of controls) {
    app.post(
      `/v1/jobs/:jobId/${c.verb}`,
      {
        schema: {
          summary: c.summary,
          operationId: c.operationId,
          tags: ['jobs'],
          params: JobParams,
          body: ControlBody,
          response: { 202: Accepted, ...problems },
        },
      },
      async (req, reply) => {
        const tenant = req.tenant;
        await c.run(tenant, req.params.jobId);
        req.log.info({ jobId: req.params.jobId }, `job ${c.verb} requested`);
        return reply.code(202).send({
          jobId: req.params.jobId,
          workflowId: svc.workflowIdOf(tenant, req.params.jobId),
          status: c.status,
          links: linksFor(tenant, req.params.jobId),
        });
      },
    );
  }

  app.get(
    '/v1/jobs/:jobId/events',
    {
      schema: {
        summary:
          'Live events of the job as Server-Sent Events (id = seq); replays from the start or after Last-Event-ID, closes after job.finished',
        description:
          'Each event: `id: <seq>`, `event: <type>`, `data: <JobEvent JSON>`. Types: job.started, subtask.started, subtask.step, subtask.retried, subtask.delta (the text of a model turn as it streams), subtask.finished, budget.changed, vote.decided, job.finished. Comment lines keep the connection alive. A tenant holds at most DELEGATE_QUOTA_OPEN_STREAMS streams open, at most DELEGATE_QUOTA_OPEN_STREAMS_PER_JOB of one job: past either, 429 with Retry-After.',
        operationId: 'streamJobEvents',
        tags: ['jobs'],
        params: JobParams,
        headers: z.object({
          'last-event-id': z
            .string()
            .regex(/^\d{1,15}$/, 'the seq of the last event received')
            .optional(),
        }),
        querystring: z.strictObject({
          after: z.coerce.number().int().min(0).optional().describe('resume after this seq (for clients that cannot set Last-Event-ID)'),
        }),
        response: { 200: z.string().describe('text/event-stream of JobEvent'), ...problems },
      },
    },
    async (req, reply) => {
      const { tenant } = req;
      const { jobId } = req.params;
      await svc.requireJob(tenant, jobId);
      const after = Number(req.headers['last-event-id'] ?? req.query.after ?? 0);
      const gone = new AbortController();
      // past the tenant's or the job's cap of open streams: 429 here, before the stream starts
      const events = svc.events(tenant, jobId, after, gone.signal);
      req.raw.once('close', () => gone.abort());
      // the stream outlives the handler: Fastify hands the socket over
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
      try {
        for await (const e of events) res.write(`id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
      } catch (err) {
        req.log.warn({ jobId, err: String(err) }, 'event stream ended by an error');
      } finally {
        clearInterval(ping);
        await events.return(undefined);
        res.end();
      }
    },
  );

  app.post(
    '/v1/jobs/:jobId/budget',
    {
      schema: {
        summary: 'Add to the job budget; returns limit, spent, reserved and remaining per axis',
        operationId: 'topUpJobBudget',
        tags: ['budgets'],
        params: JobParams,
        body: BudgetTopUpSchema,
        response: { 200: z.object({ jobId: z.string(), ledger: LedgerSchema }), ...problems },
      },
    },
    async (req) => ({ jobId: req.params.jobId, ledger: await svc.topUp(req.tenant, req.params.jobId, req.body.add) }),
  );

  app.post(
    '/v1/jobs/:jobId/model',
    {
      schema: {
        summary: "Switch the job's model (and output cap): children started from now on use it; running ones keep theirs",
        operationId: 'setJobModel',
        tags: ['jobs'],
        params: JobParams,
        body: JobModelBody,
        response: {
          200: z.object({ jobId: z.string(), model: z.string().optional(), maxOutputTokens: z.number().optional() }),
          ...problems,
        },
      },
    },
    async (req) => {
      const state = await svc.setModel(req.tenant, req.params.jobId, req.body);
      req.log.info({ jobId: req.params.jobId, model: state.model }, 'job model changed');
      return { jobId: req.params.jobId, ...state };
    },
  );

  app.post(
    '/v1/jobs/:jobId/subtasks/:taskId/budget',
    {
      schema: {
        summary: "Add to one running subtask's budget, within what its job has left",
        operationId: 'topUpSubtaskBudget',
        tags: ['budgets'],
        params: z.strictObject({ jobId: IdSchema, taskId: IdSchema }),
        body: BudgetTopUpSchema,
        response: { 200: z.object({ taskId: z.string(), granted: z.record(z.string(), z.number()), ledger: LedgerSchema }), ...problems },
      },
    },
    async (req) => svc.topUpSubtask(req.tenant, req.params.jobId, req.params.taskId, req.body.add),
  );
};
