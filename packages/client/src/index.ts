/**
 * The typed Delegate client: submit jobs, follow them (polling or live events), control
 * them, read the agent catalogue and the record; run research-contract subtasks
 * (`subtasks`) and code scouts (`scouts`). Errors are `DelegateProblemError` (the API's
 * RFC 9457 problem, field paths and extension members included); only idempotent calls
 * are retried.
 *
 *   const delegate = createDelegateClient({ baseUrl: 'http://127.0.0.1:3000', apiKey });
 *   const { jobId } = await delegate.submit(spec, { idempotencyKey: 'order-42' });
 *   for await (const e of delegate.events(jobId)) console.log(e.type);
 *   const result = await delegate.waitForResult(jobId);
 *   const out = await delegate.subtasks.run(researchSubtask, { waitSeconds: 120 });
 *   const scout = await delegate.scouts.run(scoutRequest);   // scout.report once committed
 */
import { DelegateTimeoutError } from './errors.js';
import { streamEvents, type EventsOptions } from './events.js';
import { createTransport, type TransportOptions } from './http.js';
import { MAX_WAIT_SECONDS } from './long-poll.js';
import { allPages } from './pages.js';
import { approvalMethods } from './approvals.js';
import { scoutMethods } from './scouts.js';
import { subtaskMethods } from './subtasks.js';
import type {
  Accepted,
  AgentDetail,
  AgentManifest,
  BudgetAdd,
  DoctorFix,
  DoctorReport,
  JobComparison,
  JobListItem,
  JobModel,
  JobPage,
  JobResult,
  JobSpecInput,
  JobTopUp,
  JobView,
  ListFilters,
  ReportFilters,
  ReportPage,
  ReportPeriod,
  ReportSummary,
  ReplayAccepted,
  ReplayRequest,
  RoleEntry,
  SubtaskTopUp,
} from './types.js';

export * from './errors.js';
export { FinishedSubtasks } from './finished-subtasks.js';
export { MAX_WAIT_SECONDS } from './long-poll.js';
export type * from './types.js';
export type { EventsOptions } from './events.js';
export type { ParentContext } from './http.js';
export type { ResearchSubtaskAnswer, SubtaskRunOptions } from './subtasks.js';
export type { ApprovalFilters } from './approvals.js';

/** Options of `createDelegateClient`. */
export type DelegateClientOptions = TransportOptions;

/** Options of `waitForResult` and `comparison`. */
export interface WaitOptions {
  /** Give up after this long with a `DelegateTimeoutError`. @default no limit */
  timeoutSeconds?: number;
  signal?: AbortSignal;
}

const iso = (d: string | Date | undefined) => (d instanceof Date ? d.toISOString() : d);
const labelQuery = (labels?: Record<string, string>) => (labels ? Object.entries(labels).map(([k, v]) => `${k}=${v}`) : undefined);

/** A client of one Delegate API with one key. */
export function createDelegateClient(options: DelegateClientOptions) {
  const request = createTransport(options);
  const job = (jobId: string) => `/v1/jobs/${encodeURIComponent(jobId)}`;

  /** GETs the job's `what` (a 200 once it is ready, else 202 with the job's view) in long polls until a 200 or the timeout. */
  async function waitFor200<T>(jobId: string, what: 'result' | 'comparison', opts: WaitOptions): Promise<T> {
    const deadline = opts.timeoutSeconds === undefined ? Infinity : Date.now() + opts.timeoutSeconds * 1000;
    for (;;) {
      const waitSeconds = Math.min(MAX_WAIT_SECONDS, Math.max(0, (deadline - Date.now()) / 1000));
      const res = await request<T | JobView>('GET', `${job(jobId)}/${what}`, {
        query: { waitSeconds: Math.round(waitSeconds * 10) / 10 },
        idempotent: true,
        signal: opts.signal,
      });
      if (res.status === 200) return res.body as T;
      if (Date.now() >= deadline) throw new DelegateTimeoutError(jobId, res.body as JobView);
    }
  }

  const client = {
    /**
     * Submits a job. With `spec.jobId` or an idempotency key the submission is idempotent
     * (the same spec again answers the existing job, `status: 'existing'`) and so retried on
     * network errors; without either it is sent once.
     */
    async submit(spec: JobSpecInput, opts: { idempotencyKey?: string; signal?: AbortSignal } = {}): Promise<Accepted> {
      const headers = opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : undefined;
      const idempotent = Boolean(spec.jobId ?? opts.idempotencyKey);
      return (await request<Accepted>('POST', '/v1/jobs', { body: spec, headers, idempotent, signal: opts.signal })).body;
    },

    /** The job's state, progress, per-subtask status and ledger; its result once done. */
    async get(jobId: string, opts: { signal?: AbortSignal } = {}): Promise<JobView> {
      return (await request<JobView>('GET', job(jobId), { idempotent: true, signal: opts.signal })).body;
    },

    /**
     * The job's result, waiting as long as it runs (long polls of at most 60 s each). A job
     * that ended without a result (terminated) is a 409 `DelegateProblemError`.
     */
    async waitForResult(jobId: string, opts: WaitOptions = {}): Promise<JobResult> {
      return waitFor200<JobResult>(jobId, 'result', opts);
    },

    /** A page of the tenant's root jobs, newest start first; pass its `nextPageToken` back for the next (null on the last). */
    async list(filters: ListFilters = {}): Promise<JobPage> {
      const { labels, ...rest } = filters;
      return (await request<JobPage>('GET', '/v1/jobs', { query: { ...rest, label: labelQuery(labels) }, idempotent: true })).body;
    },

    /** Every job of the listing, page after page (`pageSize` each), newest start first. */
    listAll(filters: Omit<ListFilters, 'nextPageToken'> = {}): AsyncGenerator<JobListItem> {
      return allPages(
        (nextPageToken) => client.list({ ...filters, nextPageToken }),
        (page) => page.jobs,
      );
    },

    /** The job's live events (async iterator): replays from the start (or after `after`), follows, ends after `job.finished`. */
    events(jobId: string, opts: EventsOptions = {}) {
      return streamEvents(options, jobId, opts);
    },

    /** Graceful stop: running subtasks finish their step and return partial results. Sent once. */
    async stop(jobId: string, opts: { reason?: string } = {}): Promise<Accepted> {
      return (await request<Accepted>('POST', `${job(jobId)}/stop`, { body: opts, idempotent: false })).body;
    },

    /** Hard cancel: children are cancelled; finished results are kept. Sent once. */
    async cancel(jobId: string, opts: { reason?: string } = {}): Promise<Accepted> {
      return (await request<Accepted>('POST', `${job(jobId)}/cancel`, { body: opts, idempotent: false })).body;
    },

    /** Adds to the job budget; answers the new ledger. Sent once (a repeat would add twice). */
    async addBudget(jobId: string, add: BudgetAdd): Promise<JobTopUp> {
      return (await request<JobTopUp>('POST', `${job(jobId)}/budget`, { body: { add }, idempotent: false })).body;
    },

    /** Adds to one running subtask's budget, within what its job has left. Sent once. */
    async addSubtaskBudget(jobId: string, taskId: string, add: BudgetAdd): Promise<SubtaskTopUp> {
      return (
        await request<SubtaskTopUp>('POST', `${job(jobId)}/subtasks/${encodeURIComponent(taskId)}/budget`, {
          body: { add },
          idempotent: false,
        })
      ).body;
    },

    /** Switches a running job's model (and output cap): children it starts from now on use it, running ones keep theirs. */
    async setModel(jobId: string, change: { model?: string; maxOutputTokens?: number }): Promise<JobModel> {
      return (await request<JobModel>('POST', `${job(jobId)}/model`, { body: change, idempotent: true })).body;
    },

    /**
     * Replays a finished job's subtasks (all, or `tasks`) on another `agent` or `model` as a new job
     * labelled `replayOf`; idempotent on the replay's id, so retried only when `jobId` is given.
     */
    async replay(jobId: string, req: ReplayRequest): Promise<ReplayAccepted> {
      return (await request<ReplayAccepted>('POST', `${job(jobId)}/replay`, { body: req, idempotent: req.jobId !== undefined })).body;
    },

    /** The comparison of a replay with its source, waiting as long as the replay runs (long polls of at most 60 s each). */
    async comparison(replayId: string, opts: WaitOptions = {}): Promise<JobComparison> {
      return waitFor200<JobComparison>(replayId, 'comparison', opts);
    },

    /** The agents this deployment can run. */
    async agents(): Promise<AgentManifest[]> {
      return (await request<{ agents: AgentManifest[] }>('GET', '/v1/agents', { idempotent: true })).body.agents;
    },

    /** The specialist roles this deployment runs (agents file `roles`), without their personas; empty when none are configured. */
    async roles(): Promise<RoleEntry[]> {
      return (await request<{ roles?: RoleEntry[] }>('GET', '/v1/agents', { idempotent: true })).body.roles ?? [];
    },

    /** One agent's manifest and its circuit breaker as every worker shares it (`null` for builtin agents). */
    async agent(agentId: string): Promise<AgentDetail> {
      return (await request<AgentDetail>('GET', `/v1/agents/${encodeURIComponent(agentId)}`, { idempotent: true })).body;
    },

    /** Searches the record of finished jobs (survives Temporal's retention), newest finish first; pass its `nextPageToken` back for the next page. */
    async reports(filters: ReportFilters = {}): Promise<ReportPage> {
      const { labels, from, to, ...rest } = filters;
      return (
        await request<ReportPage>('GET', '/v1/reports', {
          query: { ...rest, label: labelQuery(labels), from: iso(from), to: iso(to) },
          idempotent: true,
        })
      ).body;
    },

    /** Counts and spend of the jobs finished in a period (default: the last 30 days). */
    async reportsSummary(period: ReportPeriod = {}): Promise<ReportSummary> {
      return (
        await request<ReportSummary>('GET', '/v1/reports/summary', {
          query: { from: iso(period.from), to: iso(period.to), top: period.top },
          idempotent: true,
        })
      ).body;
    },

    /** The record's hygiene for this key's tenant (orphaned scouts, approvals pending past their expiry) and what the prune schedule does next, and when. */
    async doctor(): Promise<DoctorReport> {
      return (await request<DoctorReport>('GET', '/v1/doctor', { idempotent: true })).body;
    },

    /** Deletes this tenant's orphaned scouts (no feature, older than 90 days) now; scouts with a feature are never deleted. Repeating it deletes nothing more. */
    async doctorFix(): Promise<DoctorFix> {
      return (await request<DoctorFix>('POST', '/v1/doctor/fix', { body: {}, idempotent: true })).body;
    },

    /** Sends a steering message to a running subtask: its next step receives it. Sent once. */
    async steer(
      jobId: string,
      taskId: string,
      text: string,
      opts: { from?: string } = {},
    ): Promise<{ taskId: string; workflowId: string }> {
      const url = `${job(jobId)}/subtasks/${encodeURIComponent(taskId)}/messages`;
      return (await request<{ taskId: string; workflowId: string }>('POST', url, { body: { text, ...opts }, idempotent: false })).body;
    },

    /** The inbox: approvals, questions from subagents and budget waits, and their decisions. */
    approvals: approvalMethods(request),

    /** Subtasks in the research-subtask contract (snake_case in, the contract's output back). */
    subtasks: subtaskMethods(request),

    /** Read-only code scouts: prep, dispatch, read the report, commit, list. */
    scouts: scoutMethods(request),
  };
  return client;
}

/** A client made by `createDelegateClient`. */
export type DelegateClient = ReturnType<typeof createDelegateClient>;
