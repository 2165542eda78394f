/**
 * Per-tenant quotas, all checked before anything starts:
 *
 *   request ──rate (429 + Retry-After)──> submit ──tasks across nesting (422)──> running jobs (429) ──> start
 *
 * The request rate is @fastify/rate-limit keyed by tenant (by address without a valid key);
 * running jobs are counted in Temporal's visibility (root jobs only), plus this process's
 * submissions in flight and the starts visibility may not show yet, minus the jobs the record
 * already holds: a job is archived as it finishes, seconds before visibility stops listing it
 * as running, so a finished job frees its place at once.
 */
import rateLimit from '@fastify/rate-limit';
import type { Client } from '@temporalio/client';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RecordStore } from '../record';
import { JOB_WORKFLOW } from '../core/names';
import { TENANT_KEY } from '../core/search-attributes';
import type { TenantDirectory, TenantQuotas } from '../config/tenants';
import { isPublicPath } from './auth';
import { HttpProblem } from './errors';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Counts `n` more requests of this caller against its rate (one request that carries `n`
     * more calls: an MCP JSON-RPC batch); throws 429 once past it.
     */
    chargeRequests(req: FastifyRequest, n: number): Promise<void>;
  }
}

/**
 * Registers the request rate limit between `identifyCaller` and `requireCaller`, so refused
 * requests count too: a known key is limited per tenant (its quota), anything else (no key,
 * a wrong key) per client address, at the default rate. Public routes are not limited. One
 * counter per caller serves the hook and `app.chargeRequests`, so a batch of 100 tool calls
 * in one POST counts 100.
 */
export async function installRateLimit(app: FastifyInstance, tenants: TenantDirectory, fallback: number): Promise<void> {
  await app.register(rateLimit, { global: false });
  const limiter = app.createRateLimit({
    timeWindow: 60_000,
    // identifyCaller ran first: req.tenant is set for a known key
    keyGenerator: (req) => (req.tenant ? `tenant:${req.tenant}` : `ip:${req.ip}`),
    max: (_req, key) => (key.startsWith('tenant:') ? (tenants.get(key.slice(7))?.quotas.requestsPerMinute ?? fallback) : fallback),
    allowList: (req) => isPublicPath(req.url),
  });
  /** Counts one request; sets the rate headers; 429 past the rate. */
  const count = async (req: FastifyRequest, reply?: FastifyReply) => {
    const r = await limiter(req);
    if (r.isAllowed) return;
    if (reply) reply.headers({ 'x-ratelimit-limit': r.max, 'x-ratelimit-remaining': r.remaining, 'x-ratelimit-reset': r.ttlInSeconds });
    if (r.isExceeded) {
      throw new HttpProblem(429, 'Too many requests', `at most ${r.max} requests per minute; retry in ${r.ttlInSeconds} s`, undefined, {
        'retry-after': String(r.ttlInSeconds),
      });
    }
  };
  app.addHook('onRequest', async (req, reply) => count(req, reply));
  app.decorate('chargeRequests', async (req: FastifyRequest, n: number) => {
    for (let i = 0; i < n; i++) await count(req);
  });
}

/** How long a refused submission should wait before trying again. */
const RETRY_AFTER_SECONDS = 5;
/** A start stays counted locally this long, until visibility surely shows it. */
const RECENT_MS = 15_000;

/** Finished jobs visibility may still list as running: read past the quota by this many, then drop the archived ones. */
const LAG_ALLOWANCE = 100;

/** Counts a tenant's running root jobs against its quota; `record` tells which of them have finished already. */
export function createRunningJobsQuota(client: Client, record?: Pick<RecordStore, 'archivedAmong'>) {
  const recent = new Map<string, Map<string, number>>();
  /** Submissions of each tenant between their check and their start: counted at once, before any await. */
  const pending = new Map<string, number>();

  async function running(tenant: string, limit: number): Promise<Set<string>> {
    const ids = new Set<string>();
    const query = `WorkflowType = '${JOB_WORKFLOW}' AND ${TENANT_KEY.name} = ${JSON.stringify(tenant)} AND ExecutionStatus = 'Running' AND ParentWorkflowId IS NULL`;
    const cap = limit + 1 + (record ? LAG_ALLOWANCE : 0);
    for await (const wf of client.workflow.list({ query, pageSize: Math.min(1000, cap) })) {
      ids.add(wf.workflowId);
      if (ids.size >= cap) break;
    }
    const now = Date.now();
    for (const [id, at] of recent.get(tenant) ?? []) {
      if (now - at > RECENT_MS) recent.get(tenant)!.delete(id);
      else ids.add(id);
    }
    return ids;
  }

  /** Drops from `ids` the jobs the record holds already (finished, visibility not caught up yet). */
  async function dropArchived(tenant: string, ids: Set<string>): Promise<void> {
    if (!record || ids.size === 0) return;
    const prefix = `job/${tenant}/`;
    const finished = await record.archivedAmong(
      tenant,
      [...ids].filter((id) => id.startsWith(prefix)).map((id) => id.slice(prefix.length)),
    );
    for (const jobId of finished) {
      ids.delete(prefix + jobId);
      recent.get(tenant)?.delete(prefix + jobId);
    }
  }

  return {
    /**
     * Reserves a place for one more running job, or throws 429 when the tenant already has as
     * many as its quota allows (counting submissions of this process still on their way).
     * Call `release` when the start is done or failed. Several API replicas each count their
     * own submissions in flight: the bound is exact per replica, eventually exact across them.
     */
    async reserve(tenant: string, quotas: TenantQuotas): Promise<{ release(startedWorkflowId?: string): void }> {
      pending.set(tenant, (pending.get(tenant) ?? 0) + 1);
      let released = false;
      const release = (startedWorkflowId?: string) => {
        if (released) return;
        released = true;
        if (startedWorkflowId) {
          if (!recent.has(tenant)) recent.set(tenant, new Map());
          recent.get(tenant)!.set(startedWorkflowId, Date.now());
        }
        pending.set(tenant, pending.get(tenant)! - 1);
      };
      try {
        const ids = await running(tenant, quotas.runningJobs);
        const inFlight = pending.get(tenant)! - 1;
        // the record is asked only when the count would refuse: dropping finished jobs can only lower it
        if (ids.size + inFlight >= quotas.runningJobs) await dropArchived(tenant, ids);
        const count = ids.size + pending.get(tenant)! - 1;
        if (count >= quotas.runningJobs) {
          throw new HttpProblem(
            429,
            'Too many running jobs',
            `tenant has ${count} running job(s), its quota is ${quotas.runningJobs}; retry when one finishes`,
            undefined,
            { 'retry-after': String(RETRY_AFTER_SECONDS) },
          );
        }
      } catch (err) {
        release();
        throw err;
      }
      return { release };
    },
  };
}
