/**
 * Callers and their tenants: authentication, the keys, and the quotas a tenant's keys-file entry may override.
 * Part of `ConfigSchema` (schemas/config.ts), under "Tenants and quotas" in docs/reference/configuration.md.
 */
import { z } from 'zod';

/** The tenants and quotas variables. */
export const TENANTS_ENV = {
  DELEGATE_AUTH: z
    .enum(['on', 'off'])
    .default('on')
    .describe('off: no keys, every caller is tenant "default" (development only); announced at start and in /readyz'),
  DELEGATE_API_KEYS: z
    .string()
    .regex(/^\s*[^=,\s]+=[^,\s]+\s*(,\s*[^=,\s]+=[^,\s]+\s*)*$/, 'comma-separated tenant=key pairs')
    .optional()
    .describe('tenant=key pairs, keys of 16+ characters (development and tests)'),
  DELEGATE_API_KEYS_FILE: z
    .string()
    .min(1)
    .optional()
    .describe('JSON file of tenants with SHA-256 hashes of their keys and their quotas (production); followed while the processes run'),
  DELEGATE_QUOTA_REQUESTS_PER_MINUTE: z.coerce
    .number()
    .int()
    .positive()
    .default(600)
    .describe("API requests per tenant per minute (429 with Retry-After past it); a tenant's own quota in the keys file wins"),
  DELEGATE_QUOTA_RUNNING_JOBS: z.coerce
    .number()
    .int()
    .positive()
    .default(50)
    .describe('root jobs a tenant may have running (429 with Retry-After past it)'),
  DELEGATE_QUOTA_TASKS_PER_JOB: z.coerce
    .number()
    .int()
    .positive()
    .max(10_000)
    .default(10_000)
    .describe('subtasks in one request, counted across every level of nesting (422 past it)'),
  DELEGATE_QUOTA_AGENT_SLOTS: z.coerce
    .number()
    .int()
    .positive()
    .max(10_000)
    .default(50)
    .describe('agent steps a tenant runs at once on each worker (the size of its lane)'),
  DELEGATE_QUOTA_OPEN_STREAMS: z.coerce
    .number()
    .int()
    .positive()
    .max(100_000)
    .default(200)
    .describe('event streams (SSE, A2A, MCP progress) a tenant may hold open on one API process (429 with Retry-After past it)'),
  DELEGATE_QUOTA_OPEN_STREAMS_PER_JOB: z.coerce
    .number()
    .int()
    .positive()
    .max(100_000)
    .default(20)
    .describe('event streams of one job a tenant may hold open on one API process (429 with Retry-After past it)'),
};
