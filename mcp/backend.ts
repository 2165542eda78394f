/**
 * What the MCP server needs from Delegate, for one caller: the same operations as the REST
 * API, already bound to a tenant. Two implementations: in-process (the API's own job
 * service and record, for `/mcp`) and over HTTP (a remote API, for `delegate mcp` on stdio).
 *
 *   MCP tools ──> DelegateBackend ──┬── in-process.ts ──> app.jobs, app.record.events
 *                                   └── http-backend.ts ──> client/ ──> https://…/v1/jobs…
 */
import type { AgentManifest, Budget, JobEvent, JobResult, JobSpec, JobView, Ledger } from '../schemas';

/** One job of a listing, newest first. */
export interface JobSummary {
  jobId: string;
  state: JobView['state'];
  status?: string;
  pattern?: string;
  startedAt: string;
}

/** The operations the MCP tools and resources call; every one is the caller's tenant's. */
export interface DelegateBackend {
  /** Submits a job (idempotent on `spec.jobId`); `created` is false when it already existed. */
  submit(spec: JobSpec): Promise<{ jobId: string; created: boolean }>;
  /** The job's state, progress, ledger and, once done, its result. */
  view(jobId: string): Promise<JobView>;
  /** The result, waiting up to `waitSeconds`; undefined while the job still runs. */
  result(jobId: string, waitSeconds: number): Promise<JobResult | undefined>;
  /** Graceful stop. */
  stop(jobId: string): Promise<void>;
  /** Hard cancel. */
  cancel(jobId: string): Promise<void>;
  /** Adds to the job's budget, or to one running subtask's when `taskId` is given; the new job ledger. */
  topUp(jobId: string, add: Budget, taskId?: string): Promise<Ledger>;
  /** The agents this deployment runs. */
  agents(): Promise<AgentManifest[]>;
  /** The job's live events after `afterSeq`, until it finishes or `signal` aborts (empty, or a throw, where the deployment has none). */
  events(jobId: string, afterSeq: number, signal: AbortSignal): AsyncIterable<JobEvent>;
  /** The tenant's jobs, newest first. */
  list(filter: { status?: string; limit: number }): Promise<JobSummary[]>;
}

/** A refusal from Delegate, as its problem+json says it: status, title, detail and field errors. */
export class DelegateError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail?: string,
    readonly errors?: { path: string; message: string }[],
  ) {
    super([`${title} (${status})${detail ? `: ${detail}` : ''}`, ...(errors ?? []).map((e) => `  ${e.path}: ${e.message}`)].join('\n'));
    this.name = 'DelegateError';
  }
}
