/**
 * The inbox of humans and parents in the loop: approvals, questions from subagents and budget
 * waits, listed from the record and decided through the waiting subtask's update; each pending
 * item also has a token URL that decides it without the tenant's key. And steering: a message
 * for a running subtask's next step.
 *
 *   GET  /v1/approvals ?state &jobId &label          the tenant's items (pending by default)
 *   GET  /v1/approvals/:id · POST /v1/approvals/:id   one item · approve | reject | answer (404 · 409 · 422)
 *   GET  /v1/approvals/token/:token · POST …          the same without a key (404 forged · 409 used · 410 expired)
 *   POST /v1/jobs/:jobId/subtasks/:taskId/messages     steering (202)
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { INBOX_STATES } from '../../core/inbox';
import { DecisionSchema, IdSchema, InboxItemSchema, SteeringMessageSchema } from '../../schemas';
import { PROBLEM_RESPONSES, ProblemSchema } from '../errors';
import { LabelFilter } from './jobs';

const problems = { ...PROBLEM_RESPONSES, 410: ProblemSchema, 422: ProblemSchema };
const ItemParams = z.strictObject({ id: z.string().min(1).max(64) });
const TokenParams = z.strictObject({ token: z.string().min(1).max(2048) });
const InboxPage = z.object({ items: z.array(InboxItemSchema) }).meta({ id: 'InboxPage' });

/** Approval and steering routes. */
export const approvalRoutes: FastifyPluginAsyncZod = async (app) => {
  const inbox = app.inbox;

  app.get(
    '/v1/approvals',
    {
      schema: {
        summary: "The tenant's inbox: approvals, questions and budget waits (pending by default), oldest first",
        operationId: 'listApprovals',
        tags: ['approvals'],
        querystring: z.strictObject({
          state: z.enum(INBOX_STATES).default('pending'),
          jobId: IdSchema.optional(),
          label: z.union([LabelFilter, z.array(LabelFilter).max(32)]).optional(),
          limit: z.coerce.number().int().min(1).max(500).default(100),
        }),
        response: { 200: InboxPage, ...problems },
      },
    },
    async (req) => {
      const { label, ...rest } = req.query;
      const labels = Object.fromEntries([label ?? []].flat().map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
      return { items: await inbox.list(req.tenant, { ...rest, labels }) };
    },
  );

  app.get(
    '/v1/approvals/:id',
    {
      schema: {
        summary: 'One inbox item of the tenant (404 for an unknown id or another tenant’s)',
        operationId: 'getApproval',
        tags: ['approvals'],
        params: ItemParams,
        response: { 200: InboxItemSchema, ...problems },
      },
    },
    async (req) => inbox.get(req.tenant, req.params.id),
  );

  app.post(
    '/v1/approvals/:id',
    {
      schema: {
        summary:
          'Approve or reject an approval (or budget wait), or answer a question; 409 once decided, 422 for an answer its schema refuses',
        operationId: 'decideApproval',
        tags: ['approvals'],
        params: ItemParams,
        body: DecisionSchema,
        response: { 200: InboxItemSchema, ...problems },
      },
    },
    async (req) => {
      const item = await inbox.decide(req.tenant, req.params.id, req.body, `key:${req.tenant}`);
      req.log.info({ approvalId: item.id, jobId: item.jobId, state: item.state }, 'approval decided');
      return item;
    },
  );

  app.get(
    '/v1/approvals/token/:token',
    {
      schema: {
        summary: 'The item a token URL decides (no key needed); 410 once the link has expired',
        operationId: 'getApprovalByToken',
        tags: ['approvals'],
        security: [],
        params: TokenParams,
        response: { 200: InboxItemSchema, ...problems },
      },
    },
    async (req) => {
      const { item } = await inbox.byToken(req.params.token);
      // the link itself is the secret: it is not shown again
      const { tokenUrl: _, ...rest } = item;
      return rest;
    },
  );

  app.post(
    '/v1/approvals/token/:token',
    {
      schema: {
        summary: 'Decide the item of a token URL without a key: single use (409 once decided), 410 once expired',
        operationId: 'decideApprovalByToken',
        tags: ['approvals'],
        security: [],
        params: TokenParams,
        body: DecisionSchema,
        response: { 200: InboxItemSchema, ...problems },
      },
    },
    async (req) => {
      const { tenant, item } = await inbox.byToken(req.params.token);
      const decided = await inbox.decide(tenant, item.id, req.body, 'token');
      req.log.info({ approvalId: decided.id, jobId: decided.jobId, state: decided.state, tenant }, 'approval decided by token');
      return decided;
    },
  );

  app.post(
    '/v1/jobs/:jobId/subtasks/:taskId/messages',
    {
      schema: {
        summary:
          "Steer a running subtask: its next step receives the message (an llm agent as a user turn); in the stream and the result's notes",
        operationId: 'steerSubtask',
        tags: ['jobs'],
        params: z.strictObject({ jobId: IdSchema, taskId: IdSchema }),
        body: SteeringMessageSchema,
        response: { 202: z.object({ taskId: z.string(), workflowId: z.string(), status: z.literal('queued') }), ...problems },
      },
    },
    async (req, reply) => {
      const { jobId, taskId } = req.params;
      const { workflowId } = await app.jobs.steer(req.tenant, jobId, taskId, req.body);
      return reply.code(202).send({ taskId, workflowId, status: 'queued' as const });
    },
  );
};
