/**
 * What the MCP server needs from Delegate, for one caller: the same operations as the REST
 * API, already bound to a tenant. Two implementations: in-process (the API's own job
 * service and record, for `/mcp`) and over HTTP (a remote API, for `delegate mcp` on stdio).
 *
 *   MCP tools ──> DelegateBackend ──┬── api/mcp-backend.ts ──> app.jobs, app.record.events, the scout service
 *                                   └── http-backend.ts ──> delegate/client ──> https://…/v1/jobs…, /v1/subtasks, /v1/scouts
 */
import type {
  ApprovalDecision,
  ApprovalFilters,
  InboxItem,
  ResearchSubtaskAnswer,
  RoleEntry,
  Scout,
  ScoutDispatched,
  ScoutDispatchRequest,
  ScoutPrep,
  ScoutReportOutcome,
  ScoutRequest,
} from 'delegate/client';
import type { AgentManifest, Budget, JobEvent, JobResult, JobSpec, JobView, Ledger } from '../schemas';
import type { ResearchSubtaskInput } from '../schemas/research-contract';
import type { JobComparison, ReplayRequest } from '../schemas/replay';

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
  /** Replays a finished job on another agent or model as a new job (ReplayRequest: agent, model, tasks, jobId). */
  replay(jobId: string, req: ReplayRequest): Promise<{ jobId: string; replayOf: string; created: boolean }>;
  /** A replay's comparison with its source, waiting up to `waitSeconds` (≤ 60); undefined while the replay still runs. */
  comparison(replayId: string, waitSeconds: number): Promise<JobComparison | undefined>;
  /** The agents this deployment runs. */
  agents(): Promise<AgentManifest[]>;
  /** The specialist roles this deployment runs (without their personas); empty when none are configured. */
  roles(): Promise<RoleEntry[]>;
  /** The job's live events after `afterSeq`, until it finishes or `signal` aborts (empty, or a throw, where the deployment has none). */
  events(jobId: string, afterSeq: number, signal: AbortSignal): AsyncIterable<JobEvent>;
  /** A page of the tenant's jobs, newest first, after the place `pageToken` (a page's `nextPageToken`) names; a token it never gave is a 400. */
  list(filter: { status?: string; limit: number; pageToken?: string }): Promise<{ jobs: JobSummary[]; nextPageToken: string | null }>;
  /** Runs one subtask in the research-subtask contract (input already validated), waiting up to `waitSeconds` (≤ 60): its output, or where it runs. */
  runResearchSubtask(input: ResearchSubtaskInput, waitSeconds: number): Promise<ResearchSubtaskAnswer>;
  /** A research subtask's output by its job id, waiting up to `waitSeconds` (≤ 60). */
  researchSubtask(jobId: string, waitSeconds: number): Promise<ResearchSubtaskAnswer>;
  /** Dispatches a code scout (request already validated); 429 over a cap, 422 for a scope outside the root. */
  dispatchScout(req: ScoutDispatchRequest): Promise<ScoutDispatched>;
  /** A scout and, once settled, its report, waiting up to `waitSeconds` (≤ 60) for it to settle. */
  scout(id: string, waitSeconds: number): Promise<Scout>;
  /** Preps a scout the harness runs with its own sub-agent: its id taken, the prompt, tools and caps left. */
  prepHarnessScout(req: ScoutRequest): Promise<ScoutPrep>;
  /** Validates (and unless `validateOnly`, commits) the report a harness's scout wrote; 422 with the JSON path when invalid. */
  reportScout(id: string, answer: unknown, validateOnly: boolean): Promise<ScoutReportOutcome>;
  /** The tenant's inbox items (pending by default). */
  approvals(filter: ApprovalFilters): Promise<InboxItem[]>;
  /** Decides one (`by` says who, in the record). */
  decide(id: string, decision: ApprovalDecision): Promise<InboxItem>;
}

/** A refusal from Delegate, as its problem+json says it: status, title, detail, field errors and extension members (code, caps). */
export class DelegateError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail?: string,
    readonly errors?: { path: string; message: string }[],
    /** The problem's extension members, e.g. `{ code: 'scout_cap_exceeded', cap, caps }`: a model acts on them. */
    readonly extensions?: Record<string, unknown>,
  ) {
    super(
      [
        `${title} (${status})${detail ? `: ${detail}` : ''}`,
        ...(errors ?? []).map((e) => `  ${e.path}: ${e.message}`),
        ...Object.entries(extensions ?? {}).map(([k, v]) => `  ${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`),
      ].join('\n'),
    );
    this.name = 'DelegateError';
  }
}
