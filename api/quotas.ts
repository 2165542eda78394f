/**
 * Per-tenant quotas, all checked before anything starts:
 *
 *   request ──rate (429 + Retry-After)──> submit ──tasks across nesting (422)──> running jobs (429) ──> start
 *
 * The request rate is @fastify/rate-limit keyed by tenant; running jobs are counted in
 * Temporal's visibility (root jobs only), plus the jobs this process started moments ago
 * that visibility may not show yet.
 */
import rateLimit from '@fastify/rate-limit';
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { TENANT_KEY } from '../workflows/search-attributes';
import type { TenantDirectory, TenantQuotas } from '../workers/tenants';
import { isPublicPath } from './auth';
import { HttpProblem } from './errors';

/** Registers the per-tenant request rate limit (call after the auth hook, before the routes). */
export async function installRateLimit(app: FastifyInstance, tenants: TenantDirectory, fallback: number): Promise<void> {
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    timeWindow: 60_000,
    max: (req) => tenants.get(req.tenant)?.quotas.requestsPerMinute ?? fallback,
    keyGenerator: (req) => (req.tenant ? `tenant:${req.tenant}` : `ip:${req.ip}`),
    allowList: (req) => isPublicPath(req.url),
    errorResponseBuilder: (_req, ctx) =>
      new HttpProblem(429, 'Too many requests', `at most ${ctx.max} requests per minute for this tenant; retry in ${Math.ceil(ctx.ttl / 1000)} s`),
  });
}

/** How long a refused submission should wait before trying again. */
const RETRY_AFTER_SECONDS = 5;
/** A start stays counted locally this long, until visibility surely shows it. */
const RECENT_MS = 15_000;

/** Counts a tenant's running root jobs against its quota. */
export function createRunningJobsQuota(client: Client) {
  const recent = new Map<string, Map<string, number>>();

  async function running(tenant: string, limit: number): Promise<Set<string>> {
    const ids = new Set<string>();
    const query = `WorkflowType = 'delegationJob' AND ${TENANT_KEY.name} = ${JSON.stringify(tenant)} AND ExecutionStatus = 'Running' AND ParentWorkflowId IS NULL`;
    for await (const wf of client.workflow.list({ query, pageSize: Math.min(1000, limit + 1) })) {
      ids.add(wf.workflowId);
      if (ids.size > limit) break;
    }
    const now = Date.now();
    for (const [id, at] of recent.get(tenant) ?? []) {
      if (now - at > RECENT_MS) recent.get(tenant)!.delete(id);
      else ids.add(id);
    }
    return ids;
  }

  return {
    /** Throws 429 when the tenant already runs as many root jobs as its quota allows. */
    async check(tenant: string, quotas: TenantQuotas): Promise<void> {
      const ids = await running(tenant, quotas.runningJobs);
      if (ids.size >= quotas.runningJobs) {
        throw new HttpProblem(429, 'Too many running jobs', `tenant has ${ids.size} running job(s), its quota is ${quotas.runningJobs}; retry when one finishes`, undefined, { 'retry-after': String(RETRY_AFTER_SECONDS) });
      }
    },
    /** Remembers a start until visibility shows it. */
    started(tenant: string, workflowId: string): void {
      if (!recent.has(tenant)) recent.set(tenant, new Map());
      recent.get(tenant)!.set(workflowId, Date.now());
    },
  };
}
