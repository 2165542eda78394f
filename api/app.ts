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
import type { Config } from '../schemas';
import { frameworkErrorAsProblem, installErrorHandling } from './errors';
import { installJsonBodyParser } from './json-body';
import { createJobService, type JobService } from './job-service';
import { jobRoutes } from './routes/jobs';
import { systemRoutes } from './routes/system';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    temporal: Client;
    registry: AgentRegistry;
    jobs: JobService;
    publicUrl: string;
  }
}

/** What the app needs from its host. */
export interface AppDeps {
  config: Config;
  client: Client;
  registry: AgentRegistry;
  /** Fastify's own options (logger etc.). */
  fastify?: FastifyServerOptions;
}

/** Builds the API app (routes, OpenAPI, errors); call `listen` yourself. */
export async function buildApp({ config, client, registry, fastify }: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    bodyLimit: 4 * 1024 * 1024,
    // above the 128 characters ids may have, so long ids reach the schema and its message
    routerOptions: { maxParamLength: 256 },
    frameworkErrors: frameworkErrorAsProblem,
    ...fastify,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorate('config', config);
  app.decorate('temporal', client);
  app.decorate('registry', registry);
  app.decorate('jobs', createJobService({ client, config, registry }));
  app.decorate('publicUrl', config.PUBLIC_URL ?? `http://${config.HOST === '0.0.0.0' ? 'localhost' : config.HOST}:${config.PORT}`);
  installErrorHandling(app);
  installJsonBodyParser(app);

  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Delegate API',
        version: '0.1.0',
        description: 'Delegate subtasks to subagents on Temporal and get back validated, budget-bounded results.',
      },
      tags: [
        { name: 'jobs', description: 'Submit jobs and follow them' },
        { name: 'budgets', description: 'Live budget top-ups' },
        { name: 'agents', description: 'The agent catalogue' },
        { name: 'system', description: 'Health and readiness' },
      ],
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(systemRoutes);
  await app.register(jobRoutes);
  return app;
}
