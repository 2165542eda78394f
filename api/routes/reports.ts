/**
 * The record's routes: search a tenant's finished jobs (labels, pattern, status, agent,
 * period, free text; pages by `pageSize` and `nextPageToken`) and sum them up over a period. Both read only the
 * record, so they answer for jobs Temporal deleted long ago.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { decodeCursor, scoutSummaryLine } from '../../record';
import { IdSchema, JobOutcomeSchema, PatternSchema, ReportPageSchema, ReportSummarySchema } from '../../schemas';
import { HttpProblem, ProblemSchema } from '../errors';
import { LabelFilter } from './jobs';

const problems = { 400: ProblemSchema, 401: ProblemSchema, 429: ProblemSchema, 503: ProblemSchema };
const Instant = z.iso.datetime({ offset: true }).describe('ISO 8601, e.g. 2026-11-01T00:00:00Z');
const DAY_MS = 86_400_000;
/** A page token of the search (the record's cursor, opaque to callers). */
const Token = z
  .string()
  .max(64)
  .refine((c) => decodeCursor(c) !== undefined, 'not a page token this API gave');

/** A period from the query: [from, to) in epoch ms; 400 when it runs backwards. */
function periodOf(q: { from?: string; to?: string }, defaultDays?: number): { from?: number; to?: number } {
  const to = q.to ? Date.parse(q.to) : undefined;
  const from = q.from ? Date.parse(q.from) : defaultDays !== undefined ? (to ?? Date.now()) - defaultDays * DAY_MS : undefined;
  if (from !== undefined && to !== undefined && from > to) {
    throw new HttpProblem(400, 'Invalid request', 'the period ends before it starts', [
      { path: 'querystring.from', message: `after "to" (${q.to})` },
    ]);
  }
  return { from, to };
}

/** Report routes under /v1/reports. */
export const reportRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/v1/reports',
    {
      schema: {
        summary: "Search the tenant's finished jobs, newest finish first (survives Temporal's retention)",
        operationId: 'searchReports',
        tags: ['reports'],
        querystring: z.strictObject({
          label: z
            .union([LabelFilter, z.array(LabelFilter).max(32)])
            .optional()
            .describe('key=value; repeat for all of several'),
          pattern: PatternSchema.optional(),
          status: JobOutcomeSchema.optional(),
          agent: IdSchema.optional().describe('jobs with a subtask this agent ran'),
          from: Instant.optional().describe('finished at or after'),
          to: Instant.optional().describe('finished before'),
          q: z
            .string()
            .trim()
            .min(1)
            .max(500)
            .optional()
            .describe('words that must all occur (as prefixes) in the objective, questions or summaries'),
          pageSize: z.coerce.number().int().min(1).max(200).optional().describe('at most this many (default 50)'),
          nextPageToken: Token.optional().describe('the `nextPageToken` of the previous page'),
          cursor: Token.optional().describe('deprecated: the same as `nextPageToken`'),
          limit: z.coerce.number().int().min(1).max(200).optional().describe('deprecated: the same as `pageSize`'),
        }),
        response: { 200: ReportPageSchema, ...problems },
      },
    },
    async (req) => {
      const { label, q, from, to, pageSize, nextPageToken, cursor, limit, ...rest } = req.query;
      const page = await app.record.search(req.tenant, {
        ...rest,
        ...periodOf({ from, to }),
        text: q,
        label: label === undefined ? [] : [label].flat(),
        cursor: nextPageToken ?? cursor,
        limit: pageSize ?? limit ?? 50,
      });
      return { reports: page.reports, nextPageToken: page.nextCursor, nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/v1/reports/summary',
    {
      schema: {
        summary:
          "Counts, spend by status and by agent, and top labels of the tenant's jobs finished in a period (default: the last 30 days); scouts dispatched in it",
        operationId: 'summarizeReports',
        tags: ['reports'],
        querystring: z.strictObject({
          from: Instant.optional().describe('finished at or after (default: 30 days before `to`)'),
          to: Instant.optional().describe('finished before (default: now)'),
          top: z.coerce.number().int().min(1).max(100).default(10).describe('how many labels to list'),
        }),
        response: { 200: ReportSummarySchema, ...problems },
      },
    },
    async (req) => {
      const { from, to } = periodOf(req.query, 30);
      const period = { from: from ?? 0, to: to ?? Date.now() };
      const [jobs, scouts] = await Promise.all([
        app.record.summary(req.tenant, period.from, period.to, req.query.top),
        app.record.scouts.summary(req.tenant, { ...period, topTopics: 5 }),
      ]);
      return { ...jobs, scouts: { ...scouts, line: scoutSummaryLine(scouts) } };
    },
  );
};
