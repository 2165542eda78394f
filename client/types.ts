/**
 * The client's types, from the same zod schemas the API validates with (type imports only:
 * the client loads no zod at run time).
 */
import type { z } from 'zod';
import type {
  AgentDetail,
  AgentManifest,
  BudgetSchema,
  BudgetTopUp,
  JobEvent,
  JobListItem,
  JobOutcome,
  JobPage,
  JobResult,
  JobSpecSchema,
  JobView,
  Ledger,
  Pattern,
  ReportPageSchema,
  ReportSummary,
} from '../schemas';
import type { ResearchSubtaskInputSchema, ResearchSubtaskOutput } from '../schemas/research-contract';
import type { Decision, InboxItem } from '../schemas/approval';
import type { InboxState } from '../core/inbox';
import type { ScoutReport, ScoutRequestSchema } from '../schemas/scout';
import type { ScoutCaps } from './errors';

export type { AgentDetail, AgentManifest, JobEvent, JobListItem, JobOutcome, JobPage, JobResult, JobView, Ledger, Pattern, ReportSummary };

export type { InboxItem, InboxState };

/** A decision on an inbox item: `{ decision: 'approve' | 'reject', note? }`, or `{ answer, note? }` for a question. */
export type ApprovalDecision = Decision;

/** A job spec as a caller writes it (defaults may be left out). */
export type JobSpecInput = z.input<typeof JobSpecSchema>;

/** Amounts to add to a budget, each strictly positive (at least one axis). */
export type BudgetAdd = BudgetTopUp['add'];

/** A page of the record's search. */
export type ReportPage = z.infer<typeof ReportPageSchema>;

/** What the API answers to a submission, a stop or a cancel. */
export interface Accepted {
  jobId: string;
  workflowId: string;
  /** `running` (created), `existing` (same id, same spec), `stopping`, `cancelling`. */
  status: string;
  links: { self: string; result: string; temporalUi: string };
}

/** Filters of `list()`. */
export interface ListFilters {
  pattern?: Pattern;
  status?: 'running' | JobOutcome;
  /** `{ team: 'research' }`: jobs with all of these labels. */
  labels?: Record<string, string>;
  /** Jobs per page. @default 50 */
  pageSize?: number;
  /** `nextPageToken` of the previous page. */
  nextPageToken?: string;
}

/** Filters of `reports()` (the record of finished jobs). */
export interface ReportFilters {
  labels?: Record<string, string>;
  pattern?: Pattern;
  status?: JobOutcome;
  /** Jobs with a subtask this agent ran. */
  agent?: string;
  /** Finished at or after / before (ISO 8601 or a Date). */
  from?: string | Date;
  to?: string | Date;
  /** Words that must all occur (as prefixes) in the objective, questions or summaries. */
  q?: string;
  /** Reports per page. @default 50 */
  pageSize?: number;
  /** `nextPageToken` of the previous page. */
  nextPageToken?: string;
}

/** The period of `reportsSummary()` (default: the last 30 days). */
export interface ReportPeriod {
  from?: string | Date;
  to?: string | Date;
  /** How many labels to list. @default 10 */
  top?: number;
}

/** The answer to a job top-up. */
export interface JobTopUp {
  jobId: string;
  ledger: Ledger;
}

/** A job's current model and output cap, as `setModel` sets them. */
export interface JobModel {
  jobId: string;
  model?: string;
  maxOutputTokens?: number;
}

/** The answer to a subtask top-up: what the subtask got (within what the job had left). */
export interface SubtaskTopUp {
  taskId: string;
  granted: Record<string, number>;
  ledger: Ledger;
}

/** A subtask in the research-subtask contract, as a harness writes it (snake_case; defaults may be left out). */
export type ResearchSubtaskRequest = z.input<typeof ResearchSubtaskInputSchema>;

export type { ResearchSubtaskOutput, ScoutReport };

/** A research subtask still running: where to read its output (`subtasks.get(job_id)`). */
export interface ResearchSubtaskRunning {
  /** The contract's id, echoed. */
  id: string;
  job_id: string;
  status: 'running';
  links: { self: string; job: string; temporalUi: string };
}

/** What `POST /v1/scouts/prep` and `POST /v1/scouts` take: the question, the scope, who asks and why. */
export type ScoutRequest = z.input<typeof ScoutRequestSchema>;

/** A scout dispatch: the request plus Delegate's extensions. */
export interface ScoutDispatchRequest extends ScoutRequest {
  /** The scout agent. @default DELEGATE_SCOUT_AGENT (the offline `scout` unless configured) */
  agent?: string;
  /** That agent's params. @default { paths: the resolved scope } */
  params?: Record<string, unknown>;
  /** The scout subtask's budget. @default 40 tool calls, 300 s */
  budget?: z.input<typeof BudgetSchema>;
  /** Commit a valid report when the scout ends; false: `scouts.commit(id)` does. @default true */
  autoCommit?: boolean;
}

/** The answer to a scout prep: its id, the standard prompt, the scope resolved inside the root, and the caps left. */
export interface ScoutPrep {
  id: string;
  prompt: string;
  scopePaths: string[];
  tools: string[];
  /** The report's size cap, in tokens. */
  maxTokens: number;
  caps: ScoutCaps;
  /** Where the report will be read. */
  report: string;
}

/** The answer to a scout dispatch. */
export interface ScoutDispatched {
  id: string;
  jobId: string;
  status: 'dispatched';
  /** The caps left after this one. */
  caps: ScoutCaps;
  links: Record<string, string>;
}

/** A scout: `dispatched` while it runs (or until committed by hand), then `committed` with its report, or `error`. */
export interface Scout {
  id: string;
  state: 'dispatched' | 'committed' | 'error';
  jobId: string | null;
  parentAgent: string;
  parentSessionId: string;
  featureSlug: string | null;
  question: string;
  scopePaths: string[];
  /** Set once committed (or settled as error). */
  report: ScoutReport | null;
  createdAt: string;
  committedAt: string | null;
}

/** The answer to an explicit scout commit. */
export interface ScoutCommit {
  committed: boolean;
  reason?: string;
  report?: ScoutReport;
  caps: ScoutCaps;
}

/** Filters of `scouts.list()`. */
export interface ScoutFilters {
  /** Scouts of this feature slug. */
  feature?: string;
  parentSessionId?: string;
  /** Scouts per page. @default 50 */
  pageSize?: number;
  /** `nextPageToken` of the previous page. */
  nextPageToken?: string;
}

/** A page of scouts, newest first. */
export interface ScoutPage {
  scouts: Scout[];
  nextPageToken: string | null;
}
