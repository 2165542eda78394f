/**
 * The MCP backend over a Delegate API's REST routes (for `delegate mcp` on stdio), on the
 * typed client: its retries, problem+json errors and SSE events. Refusals become
 * `DelegateError`s with the problem's extension members (a scout cap's code and caps); a
 * 401 says which variable holds the key.
 */
import { createDelegateClient, DelegateProblemError, DelegateTimeoutError, type JobOutcome } from 'delegate/client';
import { DelegateError, type DelegateBackend } from './backend';

/** Where the API is and the key to call it with. */
export interface HttpBackendOptions {
  /** The API's base URL, e.g. `http://localhost:3000`. */
  url: string;
  /** A bearer key; it decides the tenant. */
  key: string;
}

/** The API's refusal as the MCP tools report it. */
function asDelegateError(err: unknown): unknown {
  if (!(err instanceof DelegateProblemError)) return err;
  const hint = err.status === 401 ? ' (check DELEGATE_KEY)' : '';
  const { type: _type, title: _title, status: _status, detail: _detail, errors: _errors, ...extensions } = err.problem;
  return new DelegateError(
    err.status,
    err.title,
    `${err.detail ?? err.request}${hint}`,
    err.errors,
    Object.keys(extensions).length ? extensions : undefined,
  );
}

/** Creates the backend that calls the API at `url` with `key`. */
export function createHttpBackend({ url, key }: HttpBackendOptions): DelegateBackend {
  const client = createDelegateClient({ baseUrl: url, apiKey: key });
  // every operation maps its errors the same way
  const guard = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      throw asDelegateError(err);
    }
  };
  return {
    submit: (spec) =>
      guard(async () => {
        const accepted = await client.submit(spec);
        return { jobId: accepted.jobId, created: accepted.status === 'running' };
      }),
    view: (jobId) => guard(() => client.get(jobId)),
    result: (jobId, waitSeconds) =>
      guard(() =>
        client.waitForResult(jobId, { timeoutSeconds: waitSeconds }).catch((err: unknown) => {
          if (err instanceof DelegateTimeoutError) return undefined;
          throw err;
        }),
      ),
    stop: (jobId) => guard(async () => void (await client.stop(jobId))),
    cancel: (jobId) => guard(async () => void (await client.cancel(jobId))),
    topUp: (jobId, add, taskId) =>
      guard(async () =>
        (taskId === undefined ? client.addBudget(jobId, add) : client.addSubtaskBudget(jobId, taskId, add)).then((r) => r.ledger),
      ),
    replay: (jobId, req) =>
      guard(async () => {
        const a = await client.replay(jobId, req);
        return { jobId: a.jobId, replayOf: a.replayOf, created: a.status === 'running' };
      }),
    comparison: (replayId, waitSeconds) =>
      guard(() =>
        client.comparison(replayId, { timeoutSeconds: waitSeconds }).catch((err: unknown) => {
          if (err instanceof DelegateTimeoutError) return undefined;
          throw err;
        }),
      ),
    agents: () => guard(() => client.agents()),
    roles: () => guard(() => client.roles()),
    approvals: (f) => guard(() => client.approvals.list(f)),
    decide: (id, decision) => guard(() => client.approvals.decide(id, decision)),
    // a stream that fails (an API without the route, a network loss) ends the feed: the view reports progress instead
    events: (jobId, afterSeq, signal) => client.events(jobId, { after: afterSeq, signal }),
    list: ({ status, limit, pageToken }) =>
      guard(() => client.list({ status: status as 'running' | JobOutcome | undefined, pageSize: limit, nextPageToken: pageToken })),
    runResearchSubtask: (input, waitSeconds) => guard(() => client.subtasks.run(input, { waitSeconds })),
    researchSubtask: (jobId, waitSeconds) => guard(() => client.subtasks.get(jobId, { waitSeconds })),
    dispatchScout: (req) => guard(() => client.scouts.dispatch(req)),
    scout: (id, waitSeconds) => guard(() => client.scouts.get(id, { waitSeconds })),
    prepHarnessScout: (req) => guard(() => client.scouts.prepHarness(req)),
    reportScout: (id, answer, validateOnly) => guard(() => client.scouts.report(id, answer, { validateOnly })),
  };
}
