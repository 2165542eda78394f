/** The API's request log lines name the caller's tenant and the job a route is about, like the worker's lines do. */
import type { FastifyInstance } from 'fastify';

/** Binds `tenant` and `jobId` to each request's logger, so its lines (Fastify's "request completed" too) carry them; install after `identifyCaller`. */
export function bindRequestLogIds(app: FastifyInstance): void {
  app.addHook('onRequest', async (req, reply) => {
    const jobId = (req.params as { jobId?: unknown } | undefined)?.jobId;
    const ids = { ...(req.tenant ? { tenant: req.tenant } : {}), ...(typeof jobId === 'string' ? { jobId } : {}) };
    if (Object.keys(ids).length === 0) return;
    // the reply keeps its own reference to the logger it was made with
    req.log = reply.log = req.log.child(ids);
  });
}
