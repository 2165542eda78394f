/**
 * The API as a Fastify app that never listens (server.ts does): tests drive it with
 * `app.inject`, the server entry binds it to a port.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Client } from '@temporalio/client';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { AgentRegistry } from '../activities';
import type { RecordStore } from '../record';
import type { Config } from '../schemas';
import type { TenantDirectory } from '../config/tenants';
import { BEARER_SCHEME, identifyCaller, requireCaller } from './auth';
import { installConnectionLimits, serverOptionsOf } from './connection-limits';
import { frameworkErrorAsProblem, installErrorHandling } from './errors';
import { installHostCheck } from './host-check';
import { installJsonBodyParser } from './json-body';
import { installMetrics } from './metrics';
import { bindRequestLogIds, redactingChildLogger } from './request-log';
import { withExamples } from './openapi-examples';
import { finishDocument } from './openapi-doc';
import { createJobService, type JobService } from './job-service';
import { installRateLimit } from './quotas';
import { approvalRoutes } from './routes/approvals';
import { jobRoutes } from './routes/jobs';
import { replayRoutes } from './routes/replay';
import { forecastRoutes } from './routes/forecast';
import { mcpRoutes } from './routes/mcp';
import { a2aRoutes } from './a2a/routes';
import { systemRoutes } from './routes/system';
import { webhookRoutes } from './routes/webhooks';
import { reportRoutes } from './routes/reports';
import { subtaskRoutes } from './routes/subtasks';
import { scoutRoutes } from './routes/scouts';
import { doctorRoutes } from './routes/doctor';
import { createScoutService, type ScoutService } from './scouts/service';
import { createInboxService, type InboxService } from './inbox/service';
import { installRequestTracing } from './request-tracing';
import { installCallerContext } from './caller-context';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    temporal: Client;
    registry: AgentRegistry;
    jobs: JobService;
    scouts: ScoutService;
    inbox: InboxService;
    tenants: TenantDirectory;
    record: RecordStore;
    publicUrl: string;
  }
}

/** What the app needs from its host. */
export interface AppDeps {
  config: Config;
  client: Client;
  registry: AgentRegistry;
  /** Who may call (bearer keys → tenants) and their quotas. */
  tenants: TenantDirectory;
  /** The durable record of finished jobs (the caller opens and closes it). */
  record: RecordStore;
  /** Fastify's own options (logger etc.). */
  fastify?: FastifyServerOptions;
  /** A server span per request (tracing is on: telemetry/tracing.ts). @default false */
  tracing?: boolean;
}

/** Builds the API app (auth, quotas, routes, OpenAPI, errors); call `listen` yourself. Refuses to build without keys unless auth is off. */
export async function buildApp({ config, client, registry, tenants, record, fastify, tracing = false }: AppDeps): Promise<FastifyInstance> {
  if (tenants.auth === 'on' && tenants.list().length === 0) {
    throw new Error('no API keys: set DELEGATE_API_KEYS (tenant=key,...) or DELEGATE_API_KEYS_FILE, or DELEGATE_AUTH=off for development');
  }
  const app = Fastify({
    bodyLimit: 4 * 1024 * 1024,
    // above the 128 characters ids may have, so long ids reach the schema and its message
    routerOptions: { maxParamLength: 256 },
    frameworkErrors: frameworkErrorAsProblem,
    // request lines log the path and the query's keys, never a value sent in the URL by mistake
    childLoggerFactory: redactingChildLogger,
    // timeouts of a request's arrival, keep-alive and idle sockets (DELEGATE_*_TIMEOUT_SECONDS and kin)
    ...serverOptionsOf(config),
    ...fastify,
  }).withTypeProvider<ZodTypeProvider>();
  // before any byte is parsed: at most DELEGATE_MAX_CONNECTIONS sockets, DELEGATE_MAX_CONNECTIONS_PER_PEER of one address
  installConnectionLimits(app.server, config, app.log);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorate('config', config);
  app.decorate('temporal', client);
  app.decorate('registry', registry);
  app.decorate('tenants', tenants);
  app.decorate('record', record);
  app.decorate('jobs', createJobService({ client, config, registry, tenants, record }));
  app.decorate('scouts', createScoutService({ config, record, jobs: app.jobs }));
  app.decorate('publicUrl', config.PUBLIC_URL ?? `http://${config.HOST === '0.0.0.0' ? 'localhost' : config.HOST}:${config.PORT}`);
  app.decorate('inbox', createInboxService({ client, record, config, publicUrl: app.publicUrl }));
  if (tracing) installRequestTracing(app);
  installErrorHandling(app);
  // before anything answers: a DNS-rebinding page gets 403, not even a 401 to learn from
  installHostCheck(app, config);
  installJsonBodyParser(app);
  installMetrics(app);
  // who is calling, then the rate limit (refused requests count too), then the refusal
  identifyCaller(app, tenants);
  bindRequestLogIds(app);
  await installRateLimit(app, tenants, config.DELEGATE_QUOTA_REQUESTS_PER_MINUTE);
  requireCaller(app);
  // the caller's traceparent and parent session for the handler; a parent's new model kept before it runs
  installCallerContext(app, app.jobs.noteParent);

  await app.register(swagger, {
    openapi: {
      // 3.1: its schemas are JSON Schema 2020-12, what zod emits (null as a type, {} for any value);
      // fastify-type-provider-zod picks its target from this version
      openapi: '3.1.0',
      info: {
        title: 'Delegate API',
        version: '0.1.0',
        description: 'Delegate subtasks to subagents on Temporal and get back validated, budget-bounded results.',
      },
      tags: [
        { name: 'jobs', description: 'Submit jobs and follow them' },
        { name: 'subtasks', description: 'One subtask in the research-subtask contract (snake_case), as planners write it' },
        { name: 'scouts', description: 'Read-only code scouts: prep, dispatch, report, commit' },
        { name: 'budgets', description: 'Live budget top-ups' },
        { name: 'agents', description: 'The agent catalogue' },
        { name: 'reports', description: "Search and sum up the tenant's finished jobs (the durable record)" },
        { name: 'webhooks', description: 'Completion webhooks: signing secret' },
        { name: 'approvals', description: 'Humans and parents in the loop: approvals, questions, budget waits' },
        { name: 'system', description: 'Health and readiness' },
      ],
      components: {
        securitySchemes: { [BEARER_SCHEME]: { type: 'http', scheme: 'bearer', description: 'An API key; the key decides the tenant' } },
      },
      security: [{ [BEARER_SCHEME]: [] }],
      // relative: the API is served from where its document is, whatever PUBLIC_URL says
      servers: [{ url: '/', description: 'this API' }],
    },
    transform: jsonSchemaTransform,
    transformObject: finishDocument(withExamples(jsonSchemaTransformObject)),
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(systemRoutes);
  await app.register(jobRoutes);
  await app.register(replayRoutes);
  await app.register(forecastRoutes);
  await app.register(subtaskRoutes);
  await app.register(approvalRoutes);
  await app.register(scoutRoutes);
  await app.register(doctorRoutes);
  await app.register(webhookRoutes);
  await app.register(reportRoutes);
  await app.register(mcpRoutes);
  await app.register(a2aRoutes);
  return app;
}
