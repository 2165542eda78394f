/**
 * The API's /metrics for Prometheus: request latency by route pattern (timed in an onResponse
 * hook) and running root jobs by tenant, counted in Temporal's visibility when scraped and
 * cached briefly, so several scrapers or a tight interval cost one count per tenant.
 *
 * Who may scrape: an operator's Prometheus holds no tenant key, and what it reads spans every
 * tenant, so tenant keys neither open nor guard it. It is open unless DELEGATE_METRICS_TOKEN
 * is set; then it takes exactly that bearer token (Prometheus: `authorization.credentials`).
 */
import type { FastifyInstance } from 'fastify';
import { createApiMetrics, type ApiMetrics, type RunningJobsCounter } from '../telemetry/metrics';
import { scrapeAllowed } from '../telemetry/metrics-server';
import { TENANT_KEY } from '../core/search-attributes';
import { JOB_WORKFLOW } from '../core/names';

/** The path Prometheus scrapes. */
export const METRICS_PATH = '/metrics';
/** How long one visibility count of running jobs stands. */
const RUNNING_CACHE_MS = 5000;

/** Counts each known tenant's running root jobs in Temporal's visibility, at most once per `RUNNING_CACHE_MS`. */
export function runningJobsCounter(app: FastifyInstance): RunningJobsCounter {
  let cached: { at: number; counts: Promise<Map<string, number>> } | undefined;
  const count = async () => {
    // the directory's tenants (auth off: the one tenant every caller is)
    const tenants = app.tenants.auth === 'off' ? ['default'] : app.tenants.list().map((t) => t.tenant);
    const counts = await Promise.all(
      tenants.map(async (tenant) => {
        const query = `WorkflowType = '${JOB_WORKFLOW}' AND ${TENANT_KEY.name} = ${JSON.stringify(tenant)} AND ExecutionStatus = 'Running' AND ParentWorkflowId IS NULL`;
        return [tenant, (await app.temporal.workflow.count(query)).count] as const;
      }),
    );
    return new Map(counts);
  };
  return () => {
    if (!cached || Date.now() - cached.at > RUNNING_CACHE_MS) {
      const counts = count();
      cached = { at: Date.now(), counts };
      // a failed count is not cached: the next scrape asks again
      counts.catch(() => (cached = undefined));
    }
    return cached.counts;
  };
}

/** Times every request by its route pattern and serves GET /metrics (open, or behind DELEGATE_METRICS_TOKEN). */
export function installMetrics(app: FastifyInstance, metrics: ApiMetrics = createApiMetrics(runningJobsCounter(app))): void {
  app.addHook('onResponse', async (req, reply) => {
    // the pattern, never the path: job ids in label values would grow the series without bound
    metrics.requestDone(req.method, req.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
  });
  // for Prometheus, not API clients: left out of the OpenAPI document, which describes tenant-keyed routes
  app.get(METRICS_PATH, { schema: { hide: true } }, async (req, reply) => {
    if (!scrapeAllowed(req.headers.authorization, app.config.DELEGATE_METRICS_TOKEN)) {
      return reply.code(401).header('www-authenticate', 'Bearer realm="metrics"').type('text/plain').send('unauthorized\n');
    }
    try {
      return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    } catch (err) {
      // Temporal unreachable: say so in the log; Prometheus marks the target down
      req.log.warn({ err: String(err) }, 'metrics unavailable');
      return reply.code(503).type('text/plain').send('metrics unavailable\n');
    }
  });
}
