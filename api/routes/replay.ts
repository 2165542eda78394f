/** Replay routes: a finished job again on another agent or model, and the comparison of the two runs. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IdSchema, JobViewSchema } from '../../schemas';
import { JobComparisonSchema, ReplayRequestSchema } from '../../schemas/replay';
import { PROBLEM_RESPONSES } from '../errors';
import { AdmissionProblemSchema } from '../admission';
import { NoWorkerProblemSchema } from '../lanes';

const JobParams = z.strictObject({ jobId: IdSchema });
const problems = { ...PROBLEM_RESPONSES, 503: NoWorkerProblemSchema };

/** What POST replay answers: the replay job, the job it replays, and where its comparison will be. */
const ReplayAccepted = z.object({
  jobId: z.string(),
  workflowId: z.string(),
  status: z.string().describe('`running` (started by this call) or `existing` (the same replay again)'),
  replayOf: z.string(),
  links: z.record(z.string(), z.string()).describe('self, result, comparison, temporalUi'),
});

/** Replay routes under /v1/jobs/:jobId. */
export const replayRoutes: FastifyPluginAsyncZod = async (app) => {
  const svc = app.jobs;
  const linksFor = (tenant: string, jobId: string) => {
    const self = `${app.publicUrl}/v1/jobs/${encodeURIComponent(jobId)}`;
    return { self, result: `${self}/result`, comparison: `${self}/comparison`, temporalUi: svc.uiLink(svc.workflowIdOf(tenant, jobId)) };
  };

  app.post(
    '/v1/jobs/:jobId/replay',
    {
      schema: {
        summary: "Replay a finished job's subtasks (all, or some) on another agent or model, as a new job labelled replayOf=<jobId>",
        description:
          'The spec comes from the record (kept at submission, so a replay works after Temporal has deleted the job), else from the workflow input while Temporal keeps it. ' +
          'The new job runs through the usual checks; its id is `<jobId>-replay-<n>` unless given, and the same replay again answers the existing job. ' +
          'GET /v1/jobs/{replayId}/comparison answers the comparison once it has finished.',
        operationId: 'replayJob',
        tags: ['jobs'],
        params: JobParams,
        body: ReplayRequestSchema,
        response: { 202: ReplayAccepted, ...problems, 422: AdmissionProblemSchema },
      },
    },
    async (req, reply) => {
      const { tenant } = req;
      const sub = await svc.replay(tenant, req.params.jobId, req.body);
      req.log.info(
        { jobId: sub.jobId, replayOf: sub.replayOf, created: sub.created },
        sub.created ? 'job replay started' : 'job replay resubmitted',
      );
      const links = linksFor(tenant, sub.jobId);
      return reply
        .code(202)
        .header('location', links.self)
        .send({
          jobId: sub.jobId,
          workflowId: sub.workflowId,
          status: sub.created ? 'running' : 'existing',
          replayOf: sub.replayOf,
          links,
        });
    },
  );

  app.get(
    '/v1/jobs/:jobId/comparison',
    {
      schema: {
        summary:
          "A finished replay beside the job it replays: per subtask status, output equality, the judge's scores, cost and latency, and the totals",
        description:
          "200 with the comparison once the replay has finished (and, where a judge is configured (DELEGATE_JUDGE_AGENT), once its grading job `<replayId>-grade` has scored both sides); 202 with the replay's state while either still runs after waitSeconds; 404 for a job that is not a replay.",
        operationId: 'getJobComparison',
        tags: ['jobs'],
        params: JobParams,
        querystring: z.strictObject({ waitSeconds: z.coerce.number().min(0).max(60).default(0) }),
        response: { 200: JobComparisonSchema, 202: JobViewSchema, ...problems },
      },
    },
    async (req, reply) => {
      const { tenant } = req;
      const { jobId } = req.params;
      const comparison = await svc.comparison(tenant, jobId, req.query.waitSeconds);
      if (comparison) return reply.code(200).send(comparison);
      const { comparison: _c, ...links } = linksFor(tenant, jobId);
      return reply.code(202).send(await svc.view(tenant, jobId, links));
    },
  );
};
