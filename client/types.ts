/**
 * The client's types, from the same zod schemas the API validates with (type imports only:
 * the client loads no zod at run time).
 */
import type { z } from 'zod';
import type { AgentManifest, BudgetTopUp, JobEvent, JobListItem, JobOutcome, JobPage, JobResult, JobSpecSchema, JobView, Ledger, Pattern, ReportPageSchema, ReportSummary } from '../schemas';

export type { AgentManifest, JobEvent, JobListItem, JobOutcome, JobPage, JobResult, JobView, Ledger, Pattern, ReportSummary };

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

/** The answer to a subtask top-up: what the subtask got (within what the job had left). */
export interface SubtaskTopUp {
  taskId: string;
  granted: Record<string, number>;
  ledger: Ledger;
}
