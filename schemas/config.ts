/**
 * The process configuration: every environment variable the API and the workers read, one zod
 * schema composed of one module per area (schemas/env/), validated by `loadConfig` in entry
 * points only. The areas' order is the reference page's (docs/reference/configuration.md, which
 * `npm run docs:config` generates from them).
 */
import { z } from 'zod';
import { AGENTS_ENV } from './env/agents';
import { JOBS_ENV } from './env/jobs';
import { RECORD_ENV } from './env/record';
import { ROUTING_ENV } from './env/routing';
import { SCOUTS_ENV } from './env/scouts';
import { SERVER_ENV } from './env/server';
import { TELEMETRY_ENV } from './env/telemetry';
import { TEMPORAL_ENV } from './env/temporal';
import { TENANTS_ENV } from './env/tenants';
import { WEBHOOKS_ENV } from './env/webhooks';
import { WORKERS_ENV } from './env/workers';

/** The configuration's areas, each a heading of the reference page with its variables. */
export const CONFIG_AREAS = [
  { title: 'Temporal', shape: TEMPORAL_ENV },
  { title: 'API server', shape: SERVER_ENV },
  { title: 'Tenants and quotas', shape: TENANTS_ENV },
  { title: 'Jobs', shape: JOBS_ENV },
  { title: 'Agents', shape: AGENTS_ENV },
  { title: 'Semantic routing', shape: ROUTING_ENV },
  { title: 'Workers', shape: WORKERS_ENV },
  { title: 'Webhooks and approvals', shape: WEBHOOKS_ENV },
  { title: 'Record', shape: RECORD_ENV },
  { title: 'Code scouts', shape: SCOUTS_ENV },
  { title: 'Logs, metrics and traces', shape: TELEMETRY_ENV },
] as const;

/** Process configuration, read from the environment by `loadConfig` (entry points only). */
export const ConfigSchema = z
  .object({
    ...TEMPORAL_ENV,
    ...SERVER_ENV,
    ...TENANTS_ENV,
    ...JOBS_ENV,
    ...AGENTS_ENV,
    ...ROUTING_ENV,
    ...WORKERS_ENV,
    ...WEBHOOKS_ENV,
    ...RECORD_ENV,
    ...SCOUTS_ENV,
    ...TELEMETRY_ENV,
  })
  .superRefine((c, ctx) => {
    if (c.DELEGATE_EMBEDDINGS_URL && !c.DELEGATE_EMBEDDINGS_MODEL) {
      ctx.addIssue({
        code: 'custom',
        path: ['DELEGATE_EMBEDDINGS_MODEL'],
        message: 'required when DELEGATE_EMBEDDINGS_URL is set (e.g. text-embedding-3-small)',
      });
    }
  });
/** Validated configuration. */
export type Config = z.infer<typeof ConfigSchema>;
