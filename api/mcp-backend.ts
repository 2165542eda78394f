/**
 * The MCP backend inside the API process: the job service, the record's events and the scout
 * service, bound to the tenant whose key opened the MCP request; research subtasks go through
 * the same research-subtask submit and output reader as the route (api/jobs/research.ts). Errors leave as `DelegateError`s with the same
 * status and words as the REST routes; anything else is an internal error whose detail stays
 * in the log.
 */
import type { FastifyInstance } from 'fastify';
import { fromTemporal, HttpProblem } from './errors';
import { viewOf } from './routes/scouts';
import { decodeJobPageToken } from './jobs/page-token';
import { readResearchSubtask, researchRoutingOf, runResearchSubtask } from './jobs/research';
import type { JobOutcome } from '../schemas';
import { DelegateError, type DelegateBackend } from '../mcp/backend';

/** The error an MCP caller sees: the API's problem, never an internal message. */
function asDelegateError(app: FastifyInstance, err: unknown): DelegateError {
  const p = err instanceof HttpProblem ? err : fromTemporal(err);
  if (p) return new DelegateError(p.status, p.title, p.detail, p.errors, p.extensions);
  app.log.error({ err }, 'mcp: unhandled error');
  return new DelegateError(500, 'Internal error', 'the request failed; see the server log');
}

/** Creates the backend of one tenant over the app's own job service and record. */
export function createInProcessBackend(app: FastifyInstance, tenant: string): DelegateBackend {
  const svc = app.jobs;
  const links = (jobId: string) => {
    const self = `${app.publicUrl}/v1/jobs/${encodeURIComponent(jobId)}`;
    return { self, result: `${self}/result`, temporalUi: svc.uiLink(svc.workflowIdOf(tenant, jobId)) };
  };
  const subtaskLinks = (jobId: string) => ({
    self: `${app.publicUrl}/v1/subtasks/${encodeURIComponent(jobId)}`,
    job: links(jobId).self,
    temporalUi: links(jobId).temporalUi,
  });
  const { scouts } = app;
  // every operation maps its errors the same way
  const guard = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      throw asDelegateError(app, err);
    }
  };
  return {
    submit: (spec) =>
      guard(async () => {
        const sub = await svc.submit(tenant, spec);
        return { jobId: sub.jobId, created: sub.created };
      }),
    view: (jobId) => guard(() => svc.view(tenant, jobId, links(jobId))),
    result: (jobId, waitSeconds) => guard(() => svc.result(tenant, jobId, waitSeconds)),
    stop: (jobId) => guard(() => svc.stop(tenant, jobId)),
    cancel: (jobId) => guard(() => svc.cancel(tenant, jobId)),
    topUp: (jobId, add, taskId) =>
      guard(async () =>
        taskId === undefined ? svc.topUp(tenant, jobId, add) : (await svc.topUpSubtask(tenant, jobId, taskId, add)).ledger,
      ),
    replay: (jobId, req) =>
      guard(async () => {
        const sub = await svc.replay(tenant, jobId, req);
        return { jobId: sub.jobId, replayOf: sub.replayOf, created: sub.created };
      }),
    comparison: (replayId, waitSeconds) => guard(() => svc.comparison(tenant, replayId, waitSeconds)),
    agents: async () => app.registry.list(),
    roles: async () => (app.registry.roles?.list() ?? []).map(({ persona: _persona, ...r }) => r),
    approvals: (f) => guard(() => app.inbox.list(tenant, { ...f, state: f.state ?? 'pending' })),
    decide: (id, decision) => guard(() => app.inbox.decide(tenant, id, decision, `mcp:${tenant}`)),
    // the job's shared follower, counted against the tenant's cap of open streams (past it this throws: the view reports instead)
    events: (jobId, afterSeq, signal) => svc.events(tenant, jobId, afterSeq, signal),
    list: async ({ status, limit, pageToken }) => {
      const after = pageToken === undefined ? undefined : decodeJobPageToken(pageToken);
      if (pageToken !== undefined && !after) throw new DelegateError(400, 'Bad request', 'not a page token this API gave');
      return guard(async () => {
        const page = await svc.list(tenant, { status: status as 'running' | JobOutcome | undefined, label: [], pageSize: limit, after });
        return { jobs: page.jobs.map(({ workflowId: _w, ...j }) => j), nextPageToken: page.nextPageToken };
      });
    },
    runResearchSubtask: (input, waitSeconds) =>
      guard(async () => {
        const run = await runResearchSubtask(svc, researchRoutingOf(app), tenant, input, waitSeconds);
        return run.output ?? { id: input.id, job_id: run.jobId, status: 'running' as const, links: subtaskLinks(run.jobId) };
      }),
    researchSubtask: (jobId, waitSeconds) =>
      guard(async () => {
        const read = await readResearchSubtask(svc, tenant, jobId, waitSeconds);
        return 'output' in read ? read.output : { id: read.id, job_id: jobId, status: 'running' as const, links: subtaskLinks(jobId) };
      }),
    dispatchScout: (req) =>
      guard(async () => {
        const d = await scouts.dispatch(tenant, req);
        const self = `${app.publicUrl}/v1/scouts/${d.id}`;
        return {
          id: d.id,
          jobId: d.jobId,
          status: 'dispatched' as const,
          caps: d.caps,
          links: { self, job: `${app.publicUrl}/v1/jobs/${d.jobId}` },
        };
      }),
    scout: (id, waitSeconds) => guard(async () => viewOf(await scouts.get(tenant, id, waitSeconds))),
    prepHarnessScout: (req) =>
      guard(async () => {
        const p = await scouts.prep(tenant, req, { harness: true });
        return { ...p, report: `${app.publicUrl}/v1/scouts/${p.id}` };
      }),
    reportScout: (id, answer, validateOnly) => guard(() => scouts.report(tenant, id, answer, validateOnly)),
  };
}
