/**
 * The client's types: the service's (`ServiceTypes`, from the API's zod schemas) and the
 * client's own options and answers.
 */
import type { ScoutCaps } from './errors.js';
import type { ServiceTypes } from './service-types.js';

export type AgentDetail = ServiceTypes['AgentDetail'];
/** An inbox item: an approval, a question or a budget wait (`approvals.list()`). */
export type InboxItem = ServiceTypes['InboxItem'];
export type InboxState = InboxItem['state'];
/** A decision on an inbox item: `{ decision: 'approve' | 'reject', note? }`, or `{ answer, note? }` for a question. */
export type ApprovalDecision = ServiceTypes['ApprovalDecision'];
export type AgentManifest = ServiceTypes['AgentManifest'];
/** `delegate doctor`: the tenant's record hygiene (orphaned scouts, overdue approvals) and what the prune schedule does next. */
export type DoctorReport = ServiceTypes['DoctorReport'];
/** What `doctorFix()` deleted, and the report after. */
export type DoctorFix = ServiceTypes['DoctorFix'];
/** A specialist role as `GET /v1/agents` lists it (without its persona): its task types and their output kinds, tools and caps. */
export interface RoleEntry {
  id: string;
  agent: string;
  requiredSkills: string[];
  tools: string[];
  outputKinds: Record<string, string[]>;
  maxOutputTokens: number;
  maxDepth: number;
}
/** One event of a job's live stream (`events()`): a union discriminated by `type`, so `if (e.type === 'subtask.finished')` types `e.data`. */
export type JobEvent = ServiceTypes['JobEvent'];
/** What a live event says happened: `job.started`, `subtask.finished`, … */
export type JobEventType = JobEvent['type'];
/** The event of one type: `JobEventOf<'subtask.finished'>['data']['metrics']`. */
export type JobEventOf<T extends JobEventType> = Extract<JobEvent, { type: T }>;
export type JobListItem = ServiceTypes['JobListItem'];
/** How a finished job ended: `success`, `partial`, `failure`, `cancelled`. */
export type JobOutcome = ServiceTypes['JobOutcome'];
export type JobPage = ServiceTypes['JobPage'];
/** A finished job's result: its output, every subtask's `TaskResult`, the vote, evidence and summed metrics. */
export type JobResult = ServiceTypes['JobResult'];
/** A job's state, progress, subtasks and ledger (its result once done). */
export type JobView = ServiceTypes['JobView'];
export type Ledger = ServiceTypes['Ledger'];
export type Pattern = ServiceTypes['Pattern'];
/** Counts and spend of the jobs finished in a period. */
export type ReportSummary = ServiceTypes['ReportSummary'];
/** A research subtask's output in the contract. */
export type ResearchSubtaskOutput = ServiceTypes['ResearchSubtaskOutput'];
/** One subtask's result: status, summary, data, evidence, metrics, failure reason. */
export type TaskResult = ServiceTypes['TaskResult'];
/** A scout's committed report. */
export type ScoutReport = ServiceTypes['ScoutReport'];

/** A replay's overrides and filter: `{ agent?, model?, tasks?, jobId? }` (`replay()`). */
export type ReplayRequest = ServiceTypes['ReplayRequest'];
/** A finished replay beside the job it replays: per subtask and totals (`comparison()`). */
export type JobComparison = ServiceTypes['JobComparison'];

/** What the API answers to a replay: the new job, the job it replays, and its links (comparison included). */
export interface ReplayAccepted {
  jobId: string;
  workflowId: string;
  /** `running` (started by this call) or `existing` (the same replay again). */
  status: string;
  replayOf: string;
  links: { self: string; result: string; comparison: string; temporalUi: string };
}

/** A job spec as a caller writes it (defaults may be left out). */
export type JobSpecInput = ServiceTypes['JobSpecInput'];

/** Amounts to add to a budget, each strictly positive (at least one axis). */
export type BudgetAdd = ServiceTypes['BudgetTopUp']['add'];

/** A page of the record's search. */
export type ReportPage = ServiceTypes['ReportPage'];

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
export type ResearchSubtaskRequest = ServiceTypes['ResearchSubtaskRequest'];

/** A research subtask still running: where to read its output (`subtasks.get(job_id)`). */
export interface ResearchSubtaskRunning {
  /** The contract's id, echoed. */
  id: string;
  job_id: string;
  status: 'running';
  links: { self: string; job: string; temporalUi: string };
}

/** What `POST /v1/scouts/prep` and `POST /v1/scouts` take: the question, the scope, who asks and why. */
export type ScoutRequest = ServiceTypes['ScoutRequest'];

/** A scout dispatch: the request plus Delegate's extensions. */
export interface ScoutDispatchRequest extends ScoutRequest {
  /** The scout agent. @default DELEGATE_SCOUT_AGENT (the offline `scout` unless configured) */
  agent?: string;
  /** That agent's params. @default { paths: the resolved scope } */
  params?: Record<string, unknown>;
  /** The scout subtask's budget. @default 40 tool calls, 300 s */
  budget?: ServiceTypes['BudgetInput'];
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

/** A scout: `dispatched` while it runs (or until committed by hand), `prepped` while a harness runs it, then `committed` with its report, or `error`. */
export interface Scout {
  id: string;
  state: 'dispatched' | 'prepped' | 'committed' | 'error';
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

/** The answer to a harness-run scout's report: valid (else a 422 `DelegateProblemError`), committed unless only validated. */
export interface ScoutReportOutcome {
  valid: true;
  committed: boolean;
  /** The report as the record keeps it: fabricated findings dropped, fitted to its size. */
  report: ScoutReport;
  /** What the host changed on the way. */
  cut: string[];
  caps: ScoutCaps;
}

/** One scout filed in a feature's dossier. */
export interface DossierEntry {
  scoutId: string;
  question: string;
  confidence: string | null;
  recommendation: string | null;
  status: string | null;
  settledAt: string | null;
  link: string;
}

/** A closed feature's dossier, as JSON and as Markdown. */
export interface FeatureDossier {
  featureSlug: string;
  closedAt: string;
  /** True when the feature had been closed before (this close added only scouts settled since). */
  alreadyClosed: boolean;
  /** Entries this close added. */
  added: number;
  /** Scouts of the feature still running (not filed). */
  pending: string[];
  entries: DossierEntry[];
  markdown: string;
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
