/**
 * The record's tables as Kysely sees them: one interface per table, and `RecordTables` naming
 * them all. The DDL that makes them is record/migrations.ts (both stores); a column added there is
 * added here.
 */
import type { Generated, Kysely } from 'kysely';

/** One archived job (the whole result is its `result` plus its `job_subtasks` rows). */
export interface JobsTable {
  id: Generated<number>;
  tenant: string;
  job_id: string;
  workflow_id: string;
  spec_hash: string | null;
  pattern: string;
  status: string;
  /** Epoch ms. */
  started_at: number;
  closed_at: number;
  archived_at: number;
  objective: string | null;
  /** JSON object of the job's labels. */
  labels: string;
  subtasks: number;
  cost_micros: number;
  tokens: number;
  tool_calls: number;
  /** The first subtask summaries, shortened: what a search hit shows. */
  digest: string;
  /** JSON JobResult without its `results` (those are the job's `job_subtasks`). */
  result: string;
  /** Tokens of the objective, questions and summaries (see tokens.ts). */
  search_text: string;
}

/** A job's labels, one row each, for filters and top labels. */
export interface JobLabelsTable {
  job: number;
  tenant: string;
  key: string;
  value: string;
  closed_at: number;
}

/** A job's spend per agent, for the agent filter and spend by agent. */
export interface JobAgentsTable {
  job: number;
  tenant: string;
  agent_id: string;
  subtasks: number;
  cost_micros: number;
  tokens: number;
  /** Input tokens its subtasks reported, cached ones included (0 where none reported a split, or archived before 0011). */
  input_tokens: number;
  /** The part of input_tokens read from the provider's prompt cache. */
  cached_input_tokens: number;
  closed_at: number;
}

/** Each subtask's TaskResult, in task order. */
export interface JobSubtasksTable {
  job: number;
  idx: number;
  task_id: string;
  agent_id: string;
  status: string;
  /** JSON TaskResult. */
  result: string;
}

/** A job's live events, numbered per job from 1 in the order they were written. */
export interface JobEventsTable {
  tenant: string;
  job_id: string;
  seq: number;
  /** What makes the event unique in its job (a retried write of it is skipped). */
  key: string;
  type: string;
  /** JSON of the event's data. */
  data: string;
  /** Epoch ms. */
  at: number;
}

/** One code scout: reserved against its caps when dispatched, its report once committed (see scouts.ts). */
export interface ScoutsTable {
  tenant: string;
  /** `scout-{slug}-{date}-{rand6}`. */
  id: string;
  parent_agent: string;
  parent_session_id: string;
  feature_slug: string | null;
  question: string;
  /** The normalised scope paths, sorted, joined by newlines: what the per-scope cap counts. */
  scope_key: string;
  /** JSON array of the scope paths as given. */
  scope: string;
  excerpt: string;
  job_id: string | null;
  /** `dispatched` | `prepped` (a harness runs it) | `committed` | `error`. */
  state: string;
  /** JSON of the report. */
  report: string | null;
  report_status: string | null;
  tokens: number | null;
  /** Epoch ms. */
  created_at: number;
  committed_at: number | null;
  failed_at: number | null;
  /** Invalid reports a harness sent for a prepped scout (the second is final). */
  report_attempts: Generated<number>;
}

/** Task statistics: how many subtasks of an agent in a pattern's jobs fell in a metric's bin on one day (see task-stats.ts). */
export interface TaskStatsTable {
  tenant: string;
  agent_id: string;
  pattern: string;
  /** Epoch ms of the day's start (UTC). */
  bucket: number;
  /** A StatMetric (core/forecast-sketch.ts). */
  metric: string;
  bin: number;
  n: number;
}

/** One inbox item: an approval, a question or a budget wait a subtask (or job) opened (see inbox.ts). */
export interface InboxTable {
  tenant: string;
  id: string;
  kind: string;
  reason: string;
  /** `pending` until decided, answered, timed out or cancelled. */
  state: string;
  job_id: string;
  task_id: string | null;
  workflow_id: string;
  /** JSON objects. */
  labels: string;
  detail: string;
  on_timeout: string;
  /** Epoch ms. */
  requested_at: number;
  expires_at: number;
  decided_at: number | null;
  decided_by: string | null;
  note: string | null;
  /** JSON of a question's answer. */
  answer: string | null;
}

/** The deployment's identity: one row, made with the record (see deployment.ts). */
export interface DeploymentTable {
  /** Always 1: the table holds one row. */
  one: number;
  /** Random hex: what the deployment's workers carry in their Temporal identity. */
  id: string;
  /** Epoch ms. */
  created_at: number;
}

/** A job's completion webhook: its URL and A2A token, named in the workflow input by `ref` only (see callbacks.ts). */
export interface JobCallbacksTable {
  /** Random: the opaque reference the job's input carries. */
  ref: string;
  tenant: string;
  job_id: string;
  url: string;
  /** `delegate` | `a2a`. */
  format: string;
  token: string | null;
  /** Epoch ms. */
  created_at: number;
}

/** Where a root job came from (see parent-sessions.ts). */
export interface JobOriginsTable {
  tenant: string;
  job_id: string;
  /** The job's W3C trace id (32 hex). */
  trace_id: string;
  /** The parent session that submitted it, if one said so. */
  parent_session: string | null;
  /** Epoch ms. */
  created_at: number;
}

/** A parent session's current model and output cap (see parent-sessions.ts). */
export interface ParentSessionsTable {
  tenant: string;
  session_id: string;
  model: string | null;
  max_output_tokens: number | null;
  /** Epoch ms of its latest request that named them. */
  updated_at: number;
}

/** One root job's submitted spec (see job-specs.ts). */
export interface JobSpecsTable {
  tenant: string;
  job_id: string;
  /** The JobSpec as JSON, without callbackUrl and callbackToken (secrets stay in job_callbacks only). */
  spec: string;
  /** The job this one replays; null for any other job. */
  replay_of: string | null;
  /** A replay's overrides as JSON (`{ agent?, model? }`); null for any other job. */
  replay_overrides: string | null;
  /** Epoch ms. */
  created_at: number;
}

/** One cached result of the identical-subtask cache (see result-cache.ts). */
export interface ResultCacheTable {
  tenant: string;
  /** sha256 hex of the key's parts with the tenant (activities/result-cache.ts). */
  cache_key: string;
  /** The job whose subtask produced it (the root job's id). */
  job_id: string;
  task_id: string;
  /** The TaskResult as JSON. */
  result: string;
  /** Epoch ms. */
  created_at: number;
  expires_at: number;
}

/** One job's prompt-cache reads per role (see prompt-cache.ts). */
export interface JobRolesTable {
  job: number;
  tenant: string;
  role: string;
  subtasks: number;
  input_tokens: number;
  cached_input_tokens: number;
  closed_at: number;
}

/** The record's tables. */
export interface RecordTables {
  job_origins: JobOriginsTable;
  parent_sessions: ParentSessionsTable;
  job_specs: JobSpecsTable;
  result_cache: ResultCacheTable;
  job_roles: JobRolesTable;
  deployment: DeploymentTable;
  job_callbacks: JobCallbacksTable;
  inbox: InboxTable;
  jobs: JobsTable;
  job_labels: JobLabelsTable;
  job_agents: JobAgentsTable;
  job_subtasks: JobSubtasksTable;
  job_events: JobEventsTable;
  scouts: ScoutsTable;
  feature_dossiers: FeatureDossiersTable;
  task_stats: TaskStatsTable;
}

/** A closed feature's dossier: one entry per scout filed (JSON array). */
export interface FeatureDossiersTable {
  tenant: string;
  feature_slug: string;
  /** Epoch ms of the first close. */
  closed_at: number;
  /** JSON array of the dossier's entries, in the order filed. */
  entries: string;
}

/** Which store a database is. */
export type Dialect = 'sqlite' | 'postgres';

/** An open record database. */
export interface RecordDb {
  db: Kysely<RecordTables>;
  dialect: Dialect;
  /** Where it is, without credentials (for logs). */
  where: string;
  close(): Promise<void>;
}
