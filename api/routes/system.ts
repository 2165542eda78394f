/** Health, readiness and the agent catalogue. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { AgentDetailSchema, AgentManifestSchema, RoleSchema, breakerSettingsOf } from '../../schemas';
import { readBreaker } from '../breakers';
import { HttpProblem, ProblemSchema } from '../errors';
import { findOtherDeployments, otherDeploymentMessage } from '../../config/deployment';

/** A role as the catalogue lists it: everything but its persona (the prompt stays with the operator). */
const RoleEntrySchema = RoleSchema.omit({ persona: true });

/** What the API says, at start and in /readyz, while authentication is off. */
export const AUTH_OFF_WARNING = 'DELEGATE_AUTH=off: no authentication, every caller is tenant "default"; never expose this API';

/** A 503 of /readyz: the problem, and the processes of the stack that are down. */
const NotReadySchema = ProblemSchema.extend({
  down: z.array(z.string()).optional().describe("the supervisor's children that are down or being started again"),
});

/**
 * What the supervisor of `npm start` / `npm run cluster` says is down (its status file,
 * DELEGATE_STACK_STATUS_FILE), e.g. `worker (restarting after SIGKILL, restart 1)`; nothing
 * without a supervisor, or when its file is unreadable or its process gone (a stale file).
 */
export function downInStack(file: string | undefined): string[] {
  if (!file) return [];
  try {
    const status = JSON.parse(readFileSync(file, 'utf8')) as {
      supervisor: number;
      children: Record<string, { state: string; pid?: number; restarts: number; lastExit?: string }>;
    };
    process.kill(status.supervisor, 0);
    return Object.entries(status.children)
      .filter(([, c]) => c.state !== 'up' && c.pid !== process.pid)
      .map(([name, c]) => `${name} (${c.state}${c.lastExit ? ` after ${c.lastExit}` : ''}, restart ${c.restarts})`);
  } catch {
    return [];
  }
}

/** /healthz, /readyz, /v1/agents and /v1/agents/:id. */
export const systemRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'The process is up',
        operationId: 'healthz',
        security: [],
        tags: ['system'],
        response: { 200: z.object({ ok: z.boolean() }) },
      },
    },
    async () => ({ ok: true }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        summary:
          "Temporal is reachable, the stack's processes are up and no other deployment's workers poll its task queue (503 naming what is not); says when authentication is off and which agent lanes no worker serves",
        operationId: 'readyz',
        security: [],
        tags: ['system'],
        response: {
          200: z.object({
            ok: z.boolean(),
            temporal: z.string(),
            auth: z.enum(['on', 'off']),
            warning: z.string().optional(),
            lanesWithoutWorker: z
              .array(z.string())
              .describe(
                "the workflow queue, tenants' agent lanes and pool queues on them that no worker polled in the last 5 minutes: jobs on such a lane get 503",
              )
              .optional(),
          }),
          503: NotReadySchema,
        },
      },
    },
    async (req, reply) => {
      const notReady = (title: string, detail: string, down: string[]) =>
        reply
          .code(503)
          .type('application/problem+json')
          .send({ type: 'https://delegate.dev/problems/unavailable', title, status: 503, detail, ...(down.length ? { down } : {}) });
      // Temporal unreachable: what was down when asked and when the probe gave up (a restart may end in between)
      const downBefore = downInStack(app.config.DELEGATE_STACK_STATUS_FILE);
      const stackDown = () => [...new Set([...downBefore, ...downInStack(app.config.DELEGATE_STACK_STATUS_FILE)])];
      let timer: NodeJS.Timeout | undefined;
      try {
        const conn = app.temporal.connection;
        // the client retries an unreachable server past the call's deadline: the answer must not wait for that
        await Promise.race([
          conn.withDeadline(Date.now() + 2000, () => conn.workflowService.getSystemInfo({})),
          new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no answer within 2 s')), 2000))),
        ]);
      } catch (err) {
        req.log.warn({ err: String(err) }, 'readiness check failed');
        const down = stackDown();
        return notReady(
          'Temporal unavailable',
          `cannot reach Temporal at ${app.config.TEMPORAL_ADDRESS}${down.length ? `; down: ${down.join(', ')}` : ''}`,
          down,
        );
      } finally {
        clearTimeout(timer);
      }
      // a worker (or the UI) the supervisor is starting again: jobs are accepted but wait for it
      const down = downInStack(app.config.DELEGATE_STACK_STATUS_FILE);
      if (down.length) return notReady('Delegate degraded', `down: ${down.join(', ')}`, down);
      // workers of another deployment (another record) on this queue take part of every job: its events go to one record, its steps to the other
      const ours = await app.record.deploymentId();
      const others = await findOtherDeployments({
        connection: app.temporal.connection,
        namespace: app.config.TEMPORAL_NAMESPACE,
        queues: [app.config.DELEGATE_TASK_QUEUE],
        deploymentId: ours,
      }).catch(() => []);
      if (others.length) return notReady('Another deployment on the task queue', otherDeploymentMessage(ours, others, false), []);
      const off = app.tenants.auth === 'off';
      const lanesWithoutWorker = await app.jobs.lanesWithoutWorker();
      return {
        ok: true,
        temporal: app.config.TEMPORAL_ADDRESS,
        auth: app.tenants.auth,
        ...(off ? { warning: AUTH_OFF_WARNING } : {}),
        lanesWithoutWorker,
      };
    },
  );

  app.get(
    '/v1/agents',
    {
      schema: {
        summary: 'The agents and specialist roles this deployment can run',
        operationId: 'listAgents',
        tags: ['agents'],
        response: { 200: z.object({ agents: z.array(AgentManifestSchema), roles: z.array(RoleEntrySchema) }), 401: ProblemSchema },
      },
    },
    async () => ({ agents: app.registry.list(), roles: (app.registry.roles?.list() ?? []).map(({ persona: _persona, ...r }) => r) }),
  );

  app.get(
    '/v1/agents/:id',
    {
      schema: {
        summary: "One agent: its manifest and, for a remote agent, the caller's tenant's circuit breaker on it, as every worker shares it",
        operationId: 'getAgent',
        tags: ['agents'],
        params: z.strictObject({ id: z.string().min(1).max(128) }),
        response: { 200: AgentDetailSchema, 404: ProblemSchema, 503: ProblemSchema },
      },
    },
    async (req) => {
      const def = app.registry.get(req.params.id);
      if (!def) throw new HttpProblem(404, 'Not found', `no agent "${req.params.id}"; GET /v1/agents lists them`);
      const m = def.manifest;
      if (m.kind === 'builtin') return { ...m, breaker: null };
      return { ...m, breaker: await readBreaker(app.temporal, m.id, breakerSettingsOf(app.config), req.tenant) };
    },
  );
};
