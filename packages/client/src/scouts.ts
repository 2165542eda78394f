/**
 * The code scout through the client: prep (checks only), dispatch, read the report (waiting
 * for it), commit by hand, list. A refusal over a cap is a `DelegateProblemError` with
 * `code: 'scout_cap_exceeded'` and what remains (`isScoutCapError`); it is never retried.
 *
 *   prep(req) ──> { id, prompt, caps }          (429 over a cap, 422 path_outside_root)
 *   dispatch(req) ──> { id, jobId, caps } ──get(id, { waitSeconds })──> Scout { state, report }
 */
import type { createTransport } from './http.js';
import { longPoll } from './long-poll.js';
import { allPages } from './pages.js';
import type {
  Scout,
  ScoutCommit,
  ScoutDispatched,
  ScoutDispatchRequest,
  ScoutFilters,
  ScoutPage,
  ScoutPrep,
  FeatureDossier,
  ScoutReportOutcome,
  ScoutRequest,
} from './types.js';

/** The `scouts` methods of a client over `request`. */
export function scoutMethods(request: ReturnType<typeof createTransport>) {
  const path = (id: string) => `/v1/scouts/${encodeURIComponent(id)}`;
  const methods = {
    /** Checks a scout without dispatching it: the scope inside the root, the caps left; its id and the standard prompt. Writes nothing, so it is retried. */
    async prep(req: ScoutRequest, opts: { signal?: AbortSignal } = {}): Promise<ScoutPrep> {
      return (await request<ScoutPrep>('POST', '/v1/scouts/prep', { body: req, idempotent: true, signal: opts.signal })).body;
    },

    /** Preps a scout the harness runs with its own sub-agent: the id is taken (state `prepped`); send its report to `report(id, …)`. Sent once. */
    async prepHarness(req: ScoutRequest, opts: { signal?: AbortSignal } = {}): Promise<ScoutPrep> {
      return (
        await request<ScoutPrep>('POST', '/v1/scouts/prep', { body: { ...req, harness: true }, idempotent: false, signal: opts.signal })
      ).body;
    },

    /**
     * Validates the JSON a harness's scout wrote and, unless `validateOnly`, commits it. Invalid: a 422 with each fault's
     * JSON path, `attempts` and `final` (one retry; the second invalid report is final). Sent once: an invalid one counts.
     */
    async report(id: string, answer: unknown, opts: { validateOnly?: boolean } = {}): Promise<ScoutReportOutcome> {
      return (
        await request<ScoutReportOutcome>('POST', `${path(id)}/report`, {
          body: answer,
          query: { validateOnly: opts.validateOnly ? 'true' : undefined },
          idempotent: false,
        })
      ).body;
    },

    /** Dispatches a read-only scout (read_file and grep only); its id and the caps left. Sent once: each dispatch takes a place under the caps. */
    async dispatch(req: ScoutDispatchRequest, opts: { signal?: AbortSignal } = {}): Promise<ScoutDispatched> {
      return (await request<ScoutDispatched>('POST', '/v1/scouts', { body: req, idempotent: false, signal: opts.signal })).body;
    },

    /** A scout and, once settled, its report; with `waitSeconds`, waits that long for a dispatched one to settle. */
    async get(id: string, opts: { waitSeconds?: number; signal?: AbortSignal } = {}): Promise<Scout> {
      return longPoll(
        opts.waitSeconds ?? 0,
        async (waitSeconds) =>
          (await request<Scout>('GET', path(id), { query: { waitSeconds }, idempotent: true, signal: opts.signal })).body,
        (s) => s.state !== 'dispatched',
      );
    },

    /** Dispatches a scout and waits up to `waitSeconds` (default 300) for its report: the scout as it then stands. */
    async run(req: ScoutDispatchRequest, opts: { waitSeconds?: number; signal?: AbortSignal } = {}): Promise<Scout> {
      const d = await methods.dispatch(req, opts);
      return methods.get(d.id, { waitSeconds: opts.waitSeconds ?? 300, signal: opts.signal });
    },

    /** Commits the report of a finished scout dispatched with `autoCommit: false` (409 while it runs or once settled). Sent once. */
    async commit(id: string): Promise<ScoutCommit> {
      return (await request<ScoutCommit>('POST', `${path(id)}/commit`, { body: {}, idempotent: false })).body;
    },

    /** Closes a feature: files each of its settled scouts into the feature's dossier (Markdown and JSON). Closing again adds only scouts settled since. */
    async closeFeature(slug: string): Promise<FeatureDossier> {
      return (await request<FeatureDossier>('POST', `/v1/features/${encodeURIComponent(slug)}/close`, { body: {}, idempotent: true })).body;
    },

    /** A page of the tenant's scouts, newest first, by feature or parent session; pass its `nextPageToken` back for the next. */
    async list(filters: ScoutFilters = {}): Promise<ScoutPage> {
      return (await request<ScoutPage>('GET', '/v1/scouts', { query: { ...filters }, idempotent: true })).body;
    },

    /** Every scout of the listing, page after page, newest first. */
    listAll(filters: Omit<ScoutFilters, 'nextPageToken'> = {}): AsyncGenerator<Scout> {
      return allPages(
        (nextPageToken) => methods.list({ ...filters, nextPageToken }),
        (page) => page.scouts,
      );
    },
  };
  return methods;
}
