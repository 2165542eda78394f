/** POST /v1/jobs/estimate: the forecast of a job spec from the tenant's record, before anything runs. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { EstimateSchema, JobSpecSchema } from '../../schemas';
import { STATS_MAX_DAYS } from '../../record';
import { PROBLEM_RESPONSES } from '../errors';

/** The estimate route. */
export const forecastRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/v1/jobs/estimate',
    {
      schema: {
        summary:
          'Forecast a job: per task and for the job, predicted spend per axis and duration (p50, p90), the runs each rests on, and the probability its budget suffices',
        description:
          "Takes the body `POST /v1/jobs` takes, with the same checks; starts nothing. A task's history is its agent's subtasks in the tenant's record over the window (same pattern when it has 5 runs or more); a task without history says so and falls back on the agent's manifest limits and its own budget. Fan-out and vote sum their tasks' spend and run them `maxParallel` at a time; a pipeline sums durations; nested jobs compose.",
        operationId: 'estimateJob',
        tags: ['jobs'],
        querystring: z.strictObject({
          windowDays: z.coerce.number().int().min(1).max(STATS_MAX_DAYS).optional().describe('days of history (default 30)'),
        }),
        body: JobSpecSchema,
        response: { 200: EstimateSchema, ...PROBLEM_RESPONSES },
      },
    },
    async (req, reply) => {
      const estimate = await app.jobs.estimate(req.tenant, req.body, { windowDays: req.query.windowDays });
      // plain JSON: the forecast is built by typed code (core/forecast.ts) in a forecast thread, and
      // checking its 10,000 nodes against the schema again would cost the event loop ~0.3 s (problems keep the check)
      return reply.type('application/json; charset=utf-8').serializer(JSON.stringify).send(estimate);
    },
  );
};
