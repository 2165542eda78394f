/**
 * Code scout routes: prep, dispatch, read, list, explicit commit. The lifecycle is in
 * api/scouts/service.ts; every error is problem+json, the cap refusal with what remains.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { decodeScoutCursor, type ScoutRecord } from '../../record';
import { BudgetSchema, IdSchema } from '../../schemas';
import { FeatureSlugSchema, ScoutIdSchema, ScoutReportSchema, ScoutRequestSchema } from '../../schemas/scout';
import { PROBLEM_RESPONSES, ProblemSchema } from '../errors';
import { featureRoutes } from './features';

const Caps = z
  .object({
    perSession: z.object({ limit: z.number(), remaining: z.number() }),
    perScope: z.object({ limit: z.number(), remaining: z.number() }),
  })
  .meta({ id: 'ScoutCaps' });
/** A problem with the scout's own fields: the cap refused and what remains, or the scope code. */
const ScoutProblem = ProblemSchema.extend({
  code: z
    .enum([
      'scout_cap_exceeded',
      'path_outside_root',
      'path_denied',
      'not_found',
      'scout_root_unset',
      'report_invalid',
      'path_outside_scope',
    ])
    .optional(),
  cap: z.enum(['session', 'scope']).optional(),
  caps: Caps.optional(),
  attempts: z.number().optional().describe("a refused report: the prepped scout's invalid reports so far"),
  retriesLeft: z.number().optional(),
  final: z.boolean().optional().describe('a refused report: true when it was the last allowed (the scout is now error)'),
});
const problems = { ...PROBLEM_RESPONSES, 422: ScoutProblem, 429: ScoutProblem };

const ScoutView = z
  .object({
    id: z.string(),
    state: z
      .enum(['dispatched', 'prepped', 'committed', 'error'])
      .describe('prepped: reserved for a harness-run scout, waiting for its report'),
    jobId: z.string().nullable(),
    parentAgent: z.string(),
    parentSessionId: z.string(),
    featureSlug: z.string().nullable(),
    question: z.string(),
    scopePaths: z.array(z.string()),
    report: ScoutReportSchema.nullable().describe('set once committed (or settled as error)'),
    createdAt: z.string(),
    committedAt: z.string().nullable(),
  })
  .meta({ id: 'Scout' });

const PrepBody = ScoutRequestSchema.extend({
  harness: z
    .boolean()
    .default(false)
    .describe(
      'true: the harness runs the scout with its own sub-agent; the id is taken and its report is POSTed to /v1/scouts/{id}/report',
    ),
});

const ReportAnswer = z
  .record(z.string(), z.unknown())
  .describe(
    'the JSON the scout wrote: { findings, confidence, recommendation, files_inspected, status } (ScoutAnswer); checked here, 422 with the JSON path',
  );

const DispatchBody = ScoutRequestSchema.extend({
  agent: z.string().min(1).max(128).optional().describe('Delegate extension: the scout agent (default DELEGATE_SCOUT_AGENT)'),
  params: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("Delegate extension: that agent's params (default { paths: the resolved scope })"),
  budget: BudgetSchema.optional().describe("the scout subtask's budget (default 40 tool calls, 300 s)"),
  autoCommit: z.boolean().default(true).describe('commit a valid report when the scout ends; false: POST /v1/scouts/{id}/commit does'),
});

/** A scout record as the API shows it (also the MCP backend in-process). */
export const viewOf = (r: ScoutRecord): z.infer<typeof ScoutView> => ({
  id: r.id,
  state: r.state,
  jobId: r.jobId,
  parentAgent: r.parentAgent,
  parentSessionId: r.parentSessionId,
  featureSlug: r.featureSlug,
  question: r.question,
  scopePaths: r.scopePaths,
  report: (r.report ?? null) as z.infer<typeof ScoutView>['report'],
  createdAt: new Date(r.createdAt).toISOString(),
  committedAt: r.committedAt === null ? null : new Date(r.committedAt).toISOString(),
});

/** Scout routes under /v1/scouts. */
export const scoutRoutes: FastifyPluginAsyncZod = async (app) => {
  const { scouts } = app;
  // a feature's close files its scouts: the scouts' part of the API
  await app.register(featureRoutes);
  const links = (id: string) => ({
    self: `${app.publicUrl}/v1/scouts/${id}`,
    job: `${app.publicUrl}/v1/jobs/${id}`,
    events: `${app.publicUrl}/v1/jobs/${id}/events`,
  });

  app.post(
    '/v1/scouts/prep',
    {
      schema: {
        summary: 'Check a scout without dispatching it: scope inside the root, caps left; its id, prompt and caps (429 over a cap)',
        operationId: 'prepScout',
        tags: ['scouts'],
        body: PrepBody,
        response: {
          200: z.object({
            id: z.string(),
            prompt: z.string(),
            scopePaths: z.array(z.string()),
            tools: z.array(z.string()),
            maxTokens: z.number(),
            caps: Caps,
            report: z.string(),
          }),
          ...problems,
        },
      },
    },
    async (req) => {
      const { harness, ...request } = req.body;
      const p = await scouts.prep(req.tenant, request, { harness });
      return {
        id: p.id,
        prompt: p.prompt,
        scopePaths: p.scopePaths,
        tools: p.tools,
        maxTokens: p.maxTokens,
        caps: p.caps,
        report: links(p.id).self,
      };
    },
  );

  app.post(
    '/v1/scouts',
    {
      schema: {
        summary: 'Dispatch a read-only code scout: prep, run (read_file and grep only), validate with one re-prompt, commit',
        operationId: 'dispatchScout',
        tags: ['scouts'],
        body: DispatchBody,
        response: {
          201: z.object({
            id: z.string(),
            jobId: z.string(),
            status: z.literal('dispatched'),
            caps: Caps,
            links: z.record(z.string(), z.string()),
          }),
          ...problems,
        },
      },
    },
    async (req, reply) => {
      const d = await scouts.dispatch(req.tenant, req.body);
      req.log.info({ scoutId: d.id, parentSessionId: req.body.parentSessionId, feature: req.body.featureSlug ?? null }, 'scout dispatched');
      return reply
        .code(201)
        .header('location', links(d.id).self)
        .send({ id: d.id, jobId: d.jobId, status: 'dispatched' as const, caps: d.caps, links: links(d.id) });
    },
  );

  app.get(
    '/v1/scouts/:id',
    {
      schema: {
        summary: 'A scout and, once committed, its report (waitSeconds: wait that long for it to settle)',
        operationId: 'getScout',
        tags: ['scouts'],
        params: z.strictObject({ id: ScoutIdSchema }),
        querystring: z.strictObject({ waitSeconds: z.coerce.number().min(0).max(60).default(0) }),
        response: { 200: ScoutView, ...problems },
      },
    },
    async (req) => viewOf(await scouts.get(req.tenant, req.params.id, req.query.waitSeconds)),
  );

  app.post(
    '/v1/scouts/:id/commit',
    {
      schema: {
        summary: 'Commit the report of a finished scout dispatched with autoCommit false (409 if running or settled)',
        operationId: 'commitScout',
        tags: ['scouts'],
        params: z.strictObject({ id: ScoutIdSchema }),
        body: z.strictObject({}).nullish(),
        response: {
          200: z.object({ committed: z.boolean(), reason: z.string().optional(), report: ScoutReportSchema.optional(), caps: Caps }),
          ...problems,
        },
      },
    },
    async (req) => scouts.commit(req.tenant, req.params.id),
  );

  app.post(
    '/v1/scouts/:id/report',
    {
      schema: {
        summary:
          "Validate, and commit, the report of a harness-run scout (prep with harness: true): schema, paths inside the prep's scope; 422 with the JSON path (one retry, the second invalid report is final)",
        operationId: 'reportScout',
        tags: ['scouts'],
        params: z.strictObject({ id: ScoutIdSchema }),
        querystring: z.strictObject({
          validateOnly: z
            .enum(['true', 'false'])
            .default('false')
            .transform((v) => v === 'true')
            .describe('true: validate only (an invalid report still counts), commit nothing'),
        }),
        body: ReportAnswer,
        response: {
          200: z.object({
            valid: z.literal(true),
            committed: z.boolean(),
            report: ScoutReportSchema,
            cut: z.array(z.string()).describe('what the host changed: findings dropped (not on their line), texts cut to fit'),
            caps: Caps,
          }),
          ...problems,
        },
      },
    },
    async (req) => {
      const out = await scouts.report(req.tenant, req.params.id, req.body, req.query.validateOnly);
      if (out.committed) req.log.info({ scoutId: req.params.id, status: out.report.status }, 'scout report committed');
      return out;
    },
  );

  app.get(
    '/v1/scouts',
    {
      schema: {
        summary: "The tenant's scouts, newest first: by feature, by parent session (`pageSize`, `nextPageToken`)",
        operationId: 'listScouts',
        tags: ['scouts'],
        querystring: z.strictObject({
          feature: FeatureSlugSchema.optional(),
          parentSessionId: IdSchema.optional(),
          pageSize: z.coerce.number().int().min(1).max(500).default(50),
          nextPageToken: z
            .string()
            .max(400)
            .refine((t) => decodeScoutCursor(t) !== undefined, 'not a page token this API gave')
            .optional(),
        }),
        response: { 200: z.object({ scouts: z.array(ScoutView), nextPageToken: z.string().nullable() }), ...problems },
      },
    },
    async (req) => {
      const { feature, parentSessionId, pageSize, nextPageToken } = req.query;
      const page = await scouts.list(req.tenant, { feature, parentSessionId, limit: pageSize, cursor: nextPageToken });
      return { scouts: page.scouts.map(viewOf), nextPageToken: page.nextCursor };
    },
  );
};
