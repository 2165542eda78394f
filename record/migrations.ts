/**
 * The record's schema, as numbered migrations per store, applied by whichever process
 * opens the record first. Kysely's own Migrator is not used: on SQLite it runs DDL outside
 * a transaction and takes no lock, and here the API and the workers open the file at once.
 *
 *   one connection ─ BEGIN IMMEDIATE (SQLite) | BEGIN + advisory lock (PostgreSQL)
 *                  ─ every pending migration, each recorded in schema_migrations ─ COMMIT
 * A migration that fails rolls back with everything else of the run: none is half applied.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from './tables';

/** One migration: its statements on each store. */
interface Migration {
  name: string;
  sqlite: string[];
  postgres: string[];
}

/** Columns both stores share, in each store's types. */
const jobColumns = (int: string, big: string) => `
  tenant TEXT NOT NULL, job_id TEXT NOT NULL, workflow_id TEXT NOT NULL, spec_hash TEXT,
  pattern TEXT NOT NULL, status TEXT NOT NULL,
  started_at ${big} NOT NULL, closed_at ${big} NOT NULL, archived_at ${big} NOT NULL,
  objective TEXT, labels TEXT NOT NULL, subtasks ${int} NOT NULL,
  cost_micros ${big} NOT NULL, tokens ${big} NOT NULL, tool_calls ${big} NOT NULL,
  digest TEXT NOT NULL, result TEXT NOT NULL, search_text TEXT NOT NULL,
  UNIQUE (tenant, job_id)`;

const childTables = (id: string, int: string, big: string) => [
  `CREATE TABLE job_labels (job ${id} NOT NULL REFERENCES jobs(id) ON DELETE CASCADE, tenant TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, closed_at ${big} NOT NULL, PRIMARY KEY (job, key))`,
  'CREATE INDEX job_labels_by_label ON job_labels (tenant, key, value, closed_at)',
  `CREATE TABLE job_agents (job ${id} NOT NULL REFERENCES jobs(id) ON DELETE CASCADE, tenant TEXT NOT NULL, agent_id TEXT NOT NULL, subtasks ${int} NOT NULL, cost_micros ${big} NOT NULL, tokens ${big} NOT NULL, closed_at ${big} NOT NULL, PRIMARY KEY (job, agent_id))`,
  'CREATE INDEX job_agents_by_agent ON job_agents (tenant, agent_id, closed_at)',
  `CREATE TABLE job_subtasks (job ${id} NOT NULL REFERENCES jobs(id) ON DELETE CASCADE, idx ${int} NOT NULL, task_id TEXT NOT NULL, agent_id TEXT NOT NULL, status TEXT NOT NULL, result TEXT NOT NULL, PRIMARY KEY (job, idx))`,
];

const jobIndexes = [
  'CREATE INDEX jobs_by_closed ON jobs (tenant, closed_at DESC, id DESC)',
  'CREATE INDEX jobs_by_started ON jobs (tenant, started_at DESC, id DESC)',
  'CREATE INDEX jobs_by_age ON jobs (closed_at)',
];

/** The scouts table's columns: `big` is the type of epoch ms and token counts. */
const scoutColumns = (big: string) => `
  tenant TEXT NOT NULL, id TEXT NOT NULL, parent_agent TEXT NOT NULL, parent_session_id TEXT NOT NULL,
  feature_slug TEXT, question TEXT NOT NULL, scope_key TEXT NOT NULL, scope TEXT NOT NULL, excerpt TEXT NOT NULL,
  job_id TEXT, state TEXT NOT NULL, report TEXT, report_status TEXT, tokens ${big},
  created_at ${big} NOT NULL, committed_at ${big}, failed_at ${big},
  PRIMARY KEY (tenant, id)`;

const scoutIndexes = [
  'CREATE INDEX scouts_by_feature ON scouts (tenant, feature_slug, created_at DESC, id DESC)',
  'CREATE INDEX scouts_by_session ON scouts (tenant, parent_session_id, scope_key, state)',
  'CREATE INDEX scouts_by_created ON scouts (tenant, created_at DESC, id DESC)',
  // prune's query exactly: only scouts without a feature are ever pruned
  'CREATE INDEX scouts_by_age ON scouts (created_at) WHERE feature_slug IS NULL',
];

/** A feature's dossier: its scouts filed as entries (JSON) when the feature closed. */
const dossierTable = (big: string) =>
  `CREATE TABLE feature_dossiers (tenant TEXT NOT NULL, feature_slug TEXT NOT NULL, closed_at ${big} NOT NULL, entries TEXT NOT NULL, PRIMARY KEY (tenant, feature_slug))`;

/** The task statistics' columns: a count per (tenant, agent, pattern, day, metric, bin). */
const taskStatColumns = (big: string) => `
  tenant TEXT NOT NULL, agent_id TEXT NOT NULL, pattern TEXT NOT NULL, bucket ${big} NOT NULL,
  metric TEXT NOT NULL, bin INTEGER NOT NULL, n ${big} NOT NULL,
  PRIMARY KEY (tenant, agent_id, pattern, bucket, metric, bin)`;

const taskStatIndexes = ['CREATE INDEX task_stats_by_age ON task_stats (bucket)'];

/** The inbox table: `big` is the type of epoch ms. */
const inboxTable = (big: string) => `CREATE TABLE inbox (
  tenant TEXT NOT NULL, id TEXT NOT NULL, kind TEXT NOT NULL, reason TEXT NOT NULL, state TEXT NOT NULL,
  job_id TEXT NOT NULL, task_id TEXT, workflow_id TEXT NOT NULL, labels TEXT NOT NULL, detail TEXT NOT NULL, on_timeout TEXT NOT NULL,
  requested_at ${big} NOT NULL, expires_at ${big} NOT NULL, decided_at ${big}, decided_by TEXT, note TEXT, answer TEXT,
  PRIMARY KEY (tenant, id))`;

const inboxIndexes = [
  'CREATE INDEX inbox_by_state ON inbox (tenant, state, requested_at)',
  'CREATE INDEX inbox_by_job ON inbox (tenant, job_id, requested_at)',
];

/** The job_callbacks table: a job's completion webhook, its secrets kept here instead of in the workflow's input. */
const callbackTable = (big: string) => `CREATE TABLE job_callbacks (
  ref TEXT PRIMARY KEY, tenant TEXT NOT NULL, job_id TEXT NOT NULL, url TEXT NOT NULL, format TEXT NOT NULL, token TEXT,
  created_at ${big} NOT NULL)`;

/** Where a root job came from: its trace id (the job's events carry it) and the parent session that submitted it, if one did. */
const jobOriginTable = (big: string) => `CREATE TABLE job_origins (
  tenant TEXT NOT NULL, job_id TEXT NOT NULL, trace_id TEXT NOT NULL, parent_session TEXT, created_at ${big} NOT NULL,
  PRIMARY KEY (tenant, job_id))`;

/** A parent session's current model and output cap, as its latest request said (see parent-sessions.ts). */
const parentSessionTable = (big: string) => `CREATE TABLE parent_sessions (
  tenant TEXT NOT NULL, session_id TEXT NOT NULL, model TEXT, max_output_tokens INTEGER, updated_at ${big} NOT NULL,
  PRIMARY KEY (tenant, session_id))`;

/** The spec each root job was submitted with, and the job a replay replays (see job-specs.ts). */
const jobSpecTable = (big: string) => `CREATE TABLE job_specs (
  tenant TEXT NOT NULL, job_id TEXT NOT NULL, spec TEXT NOT NULL, replay_of TEXT, replay_overrides TEXT, created_at ${big} NOT NULL,
  PRIMARY KEY (tenant, job_id))`;

const jobSpecIndexes = [
  'CREATE INDEX job_specs_by_replay ON job_specs (tenant, replay_of)',
  'CREATE INDEX job_specs_by_age ON job_specs (created_at)',
];

/** Prompt-cache reads per role of each job (prompt-cache.ts), beside job_agents' own token split. */
const jobRoleTable = (id: string, big: string) =>
  `CREATE TABLE job_roles (job ${id} NOT NULL REFERENCES jobs(id) ON DELETE CASCADE, tenant TEXT NOT NULL, role TEXT NOT NULL, subtasks INTEGER NOT NULL, input_tokens ${big} NOT NULL, cached_input_tokens ${big} NOT NULL, closed_at ${big} NOT NULL, PRIMARY KEY (job, role))`;
const promptCacheColumns = (big: string) => [
  `ALTER TABLE job_agents ADD COLUMN input_tokens ${big} NOT NULL DEFAULT 0`,
  `ALTER TABLE job_agents ADD COLUMN cached_input_tokens ${big} NOT NULL DEFAULT 0`,
  'CREATE INDEX job_roles_by_role ON job_roles (tenant, role, closed_at)',
];

/** The identical-subtask cache (result-cache.ts): a successful result by tenant and key, until it expires. */
const resultCacheTable = (big: string) => `CREATE TABLE result_cache (
  tenant TEXT NOT NULL, cache_key TEXT NOT NULL, job_id TEXT NOT NULL, task_id TEXT NOT NULL, result TEXT NOT NULL,
  created_at ${big} NOT NULL, expires_at ${big} NOT NULL,
  PRIMARY KEY (tenant, cache_key))`;

const originIndexes = [
  'CREATE INDEX job_origins_by_session ON job_origins (tenant, parent_session, created_at)',
  'CREATE INDEX job_origins_by_age ON job_origins (created_at)',
];

/** Every migration, oldest first. Append only: a released migration never changes. */
export const MIGRATIONS: Migration[] = [
  {
    name: '0001_job_record',
    sqlite: [
      `CREATE TABLE jobs (id INTEGER PRIMARY KEY, ${jobColumns('INTEGER', 'INTEGER')})`,
      ...jobIndexes,
      ...childTables('INTEGER', 'INTEGER', 'INTEGER'),
      // free text: an external-content FTS5 index over jobs.search_text, kept by triggers
      "CREATE VIRTUAL TABLE jobs_fts USING fts5(search_text, content='jobs', content_rowid='id')",
      'CREATE TRIGGER jobs_fts_insert AFTER INSERT ON jobs BEGIN INSERT INTO jobs_fts(rowid, search_text) VALUES (new.id, new.search_text); END',
      "CREATE TRIGGER jobs_fts_delete AFTER DELETE ON jobs BEGIN INSERT INTO jobs_fts(jobs_fts, rowid, search_text) VALUES ('delete', old.id, old.search_text); END",
    ],
    postgres: [
      `CREATE TABLE jobs (id BIGSERIAL PRIMARY KEY, ${jobColumns('INTEGER', 'BIGINT')},
        search tsvector GENERATED ALWAYS AS (to_tsvector('simple', search_text)) STORED)`,
      ...jobIndexes,
      'CREATE INDEX jobs_search ON jobs USING gin (search)',
      ...childTables('BIGINT', 'INTEGER', 'BIGINT'),
    ],
  },
  {
    // a job's live events, in the order they happened (per-job seq); the SSE stream and MCP progress read them
    name: '0002_job_events',
    sqlite: [
      'CREATE TABLE job_events (tenant TEXT NOT NULL, job_id TEXT NOT NULL, seq INTEGER NOT NULL, key TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (tenant, job_id, seq), UNIQUE (tenant, job_id, key))',
      'CREATE INDEX job_events_by_age ON job_events (at)',
    ],
    postgres: [
      'CREATE TABLE job_events (tenant TEXT NOT NULL, job_id TEXT NOT NULL, seq INTEGER NOT NULL, key TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, at BIGINT NOT NULL, PRIMARY KEY (tenant, job_id, seq), UNIQUE (tenant, job_id, key))',
      'CREATE INDEX job_events_by_age ON job_events (at)',
    ],
  },
  {
    // the code scouts: one row per dispatch, reserved against the caps before the job starts (see scouts.ts)
    name: '0003_scouts',
    sqlite: [`CREATE TABLE scouts (${scoutColumns('INTEGER')})`, ...scoutIndexes],
    postgres: [`CREATE TABLE scouts (${scoutColumns('BIGINT')})`, ...scoutIndexes],
  },
  {
    // per tenant, agent and pattern, one day's bin counts of each task metric (see task-stats.ts): what forecasts and adaptive routing read
    name: '0004_task_stats',
    sqlite: [`CREATE TABLE task_stats (${taskStatColumns('INTEGER')})`, ...taskStatIndexes],
    postgres: [`CREATE TABLE task_stats (${taskStatColumns('BIGINT')})`, ...taskStatIndexes],
  },
  {
    // the inbox: approvals, questions and budget waits; pending ones listed per tenant without asking Temporal
    name: '0005_inbox',
    sqlite: [inboxTable('INTEGER'), ...inboxIndexes],
    postgres: [inboxTable('BIGINT'), ...inboxIndexes],
  },
  {
    // the deployment's identity, made once with the record (its workers carry it, config/deployment.ts), and the
    // completion webhooks' URLs and tokens, which the workflow input names by reference only (record/callbacks.ts)
    name: '0006_deployment_callbacks',
    sqlite: [
      'CREATE TABLE deployment (one INTEGER PRIMARY KEY CHECK (one = 1), id TEXT NOT NULL, created_at INTEGER NOT NULL)',
      "INSERT INTO deployment (one, id, created_at) VALUES (1, lower(hex(randomblob(8))), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))",
      callbackTable('INTEGER'),
      'CREATE INDEX job_callbacks_by_age ON job_callbacks (created_at)',
      'CREATE INDEX job_callbacks_by_job ON job_callbacks (tenant, job_id)',
    ],
    postgres: [
      'CREATE TABLE deployment (one INTEGER PRIMARY KEY CHECK (one = 1), id TEXT NOT NULL, created_at BIGINT NOT NULL)',
      'INSERT INTO deployment (one, id, created_at) VALUES (1, substr(md5(random()::text || clock_timestamp()::text), 1, 16), (extract(epoch from now()) * 1000)::bigint)',
      callbackTable('BIGINT'),
      'CREATE INDEX job_callbacks_by_age ON job_callbacks (created_at)',
      'CREATE INDEX job_callbacks_by_job ON job_callbacks (tenant, job_id)',
    ],
  },
  {
    // scouts a harness runs itself (prepped here, reported back, scout-reports.ts): the invalid reports counted, one retry;
    // and the feature dossiers a feature's close files its scouts into (feature-dossiers.ts)
    name: '0007_scout_reports_dossiers',
    sqlite: ['ALTER TABLE scouts ADD COLUMN report_attempts INTEGER NOT NULL DEFAULT 0', dossierTable('INTEGER')],
    postgres: ['ALTER TABLE scouts ADD COLUMN report_attempts INTEGER NOT NULL DEFAULT 0', dossierTable('BIGINT')],
  },
  {
    // a job's trace id for its events, and the parent sessions whose latest request names the model their jobs' children run on
    name: '0008_job_origins_parent_sessions',
    sqlite: [jobOriginTable('INTEGER'), parentSessionTable('INTEGER'), ...originIndexes],
    postgres: [jobOriginTable('BIGINT'), parentSessionTable('BIGINT'), ...originIndexes],
  },
  {
    // the submitted spec of each root job, so a finished job can be replayed after Temporal's retention
    name: '0009_job_specs',
    sqlite: [jobSpecTable('INTEGER'), ...jobSpecIndexes],
    postgres: [jobSpecTable('BIGINT'), ...jobSpecIndexes],
  },
  {
    // the identical-subtask cache: a subtask's success served to identical subtasks of the same tenant until it expires
    name: '0010_result_cache',
    sqlite: [resultCacheTable('INTEGER'), 'CREATE INDEX result_cache_by_expiry ON result_cache (expires_at)'],
    postgres: [resultCacheTable('BIGINT'), 'CREATE INDEX result_cache_by_expiry ON result_cache (expires_at)'],
  },
  {
    // prompt-cache hit rates: input and cached input tokens per agent (job_agents) and per role (job_roles) of each job
    name: '0011_prompt_cache_rates',
    sqlite: [jobRoleTable('INTEGER', 'INTEGER'), ...promptCacheColumns('INTEGER')],
    postgres: [jobRoleTable('BIGINT', 'BIGINT'), ...promptCacheColumns('BIGINT')],
  },
];

/** Any number: the PostgreSQL advisory lock the migrations of this schema hold. */
const PG_LOCK = 0x6465_6c67;

/** Applies the pending migrations in one transaction; returns the names applied (none when up to date). */
export async function migrate<DB>(db: Kysely<DB>, dialect: Dialect, migrations: Migration[] = MIGRATIONS): Promise<string[]> {
  return db.connection().execute(async (conn) => {
    await sql.raw(dialect === 'sqlite' ? 'BEGIN IMMEDIATE' : 'BEGIN').execute(conn);
    try {
      if (dialect === 'postgres') await sql`SELECT pg_advisory_xact_lock(${PG_LOCK})`.execute(conn);
      await sql`CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`.execute(conn);
      const done = new Set((await sql<{ name: string }>`SELECT name FROM schema_migrations`.execute(conn)).rows.map((r) => r.name));
      const applied: string[] = [];
      for (const m of migrations) {
        if (done.has(m.name)) continue;
        for (const stmt of m[dialect]) await sql.raw(stmt).execute(conn);
        await sql`INSERT INTO schema_migrations (name, applied_at) VALUES (${m.name}, ${new Date().toISOString()})`.execute(conn);
        applied.push(m.name);
      }
      await sql.raw('COMMIT').execute(conn);
      return applied;
    } catch (err) {
      await sql
        .raw('ROLLBACK')
        .execute(conn)
        .catch(() => undefined);
      throw err;
    }
  });
}
