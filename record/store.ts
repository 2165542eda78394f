/**
 * The durable record of finished jobs: written once per job by the archive activity, read
 * by the API after Temporal's retention has deleted the workflow, searched and summed up
 * per tenant, pruned by age (except jobs that carry a keep-label).
 *
 *   archive ── one transaction: jobs row (unique per tenant + job id) ─┬─ job_labels
 *              a second archive of the same job writes nothing         ├─ job_agents (spend per agent)
 *                                                                      ├─ job_subtasks (each TaskResult)
 *                                                                      └─ task_stats (bin counts per agent, see task-stats.ts)
 */
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { JobOutcome, JobResult, Pattern, Report, ReportSummary, TaskResult } from '../schemas';
import { fromMicros, toMicros } from '../core/money';
import type { RecordDb, RecordTables } from './db';
import { createJobEvents } from './events';
import { createFeatureDossiers } from './feature-dossiers';
import { createScoutStore } from './scouts';
import { createInbox } from './inbox';
import { createRecordHygiene } from './hygiene';
import { createCallbacks } from './callbacks';
import { createParentSessions } from './parent-sessions';
import { deploymentIdOf } from './deployment';
import { searchText, tokens } from './tokens';
import { addTaskStats, createTaskStats, DAY_MS, STATS_MAX_DAYS } from './task-stats';

/** What the archive activity writes: one finished root job, its result whole (stitched). */
export interface ArchiveInput {
  tenant: string;
  jobId: string;
  workflowId: string;
  /** The API's spec hash (idempotency); null for a job started straight through Temporal. */
  specHash: string | null;
  /** Epoch ms. */
  startedAt: number;
  closedAt: number;
  objective?: string;
  labels?: Record<string, string>;
  /** The questions of the job's tasks, for free-text search. */
  questions?: string[];
  result: JobResult;
}

/** One archived job as the API reads it back: what was archived, its labels always present. */
export type JobRecord = Pick<ArchiveInput, 'tenant' | 'jobId' | 'workflowId' | 'specHash' | 'startedAt' | 'closedAt' | 'result'> & {
  labels: Record<string, string>;
};

/** Filters of a search of one tenant's record. */
export interface ReportFilter {
  /** `key=value` each; all must hold. */
  label?: string[];
  pattern?: Pattern;
  status?: JobOutcome;
  agent?: string;
  /** Finished at or after (epoch ms). */
  from?: number;
  /** Finished before (epoch ms). */
  to?: number;
  /** Words that must all occur (as prefixes) in the objective, the questions or the summaries. */
  text?: string;
  cursor?: string;
  limit: number;
}

/** What pruning did (or, dry, would do). */
export interface PruneOutcome {
  dryRun: boolean;
  /** Jobs deleted, or that a dry run would delete. */
  jobs: number;
  /** The first of them (at most 1000), oldest first. */
  listed: { tenant: string; jobId: string; closedAt: string }[];
  /** Scouts without a feature older than SCOUT_RETENTION_DAYS deleted (or that a dry run would delete). */
  scouts?: number;
}

/** Rows written per INSERT (SQLite takes at most 32,766 bound values in one statement). */
const CHUNK = 500;
/** Characters of a search hit's digest. */
const DIGEST_CHARS = 500;
/** Text matches below which PostgreSQL fetches them through its search index first (see textMatch). */
const SPARSE = 1000;
/** Jobs a dry run lists. */
const PRUNE_LISTED = 1000;

/** The opaque cursor of a page: the last hit's (closed_at, id). */
export function encodeCursor(closedAt: number, id: number): string {
  return Buffer.from(`${closedAt}.${id}`).toString('base64url');
}

/** The position a cursor names; undefined when it is not one of ours. */
export function decodeCursor(cursor: string): { closedAt: number; id: number } | undefined {
  const m = /^(\d{1,15})\.(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString());
  return m ? { closedAt: Number(m[1]), id: Number(m[2]) } : undefined;
}

/**
 * Text for a plain column: PostgreSQL's text cannot hold NUL (the whole archive would fail,
 * and be retried forever), and an agent's summary may carry one. JSON columns escape it.
 */
const noNul = (s: string) => s.replace(/\0/g, '');

/** Jobs carrying every `key=value` label of `labels`. */
const hasLabels = (labels: string[]) => (eb: ExpressionBuilder<RecordTables, 'jobs'>) =>
  eb.and(
    labels.map((l) => {
      const at = l.indexOf('=');
      return eb.exists(
        eb
          .selectFrom('job_labels')
          .select('job')
          .whereRef('job_labels.job', '=', 'jobs.id')
          .where('key', '=', l.slice(0, at))
          .where('value', '=', l.slice(at + 1)),
      );
    }),
  );

/** Spend per agent over a job's results, exact to the micro-dollar. */
function spendByAgent(results: TaskResult[]) {
  const by = new Map<string, { subtasks: number; micros: number; tokens: number }>();
  for (const r of results) {
    const a = by.get(r.agentId) ?? { subtasks: 0, micros: 0, tokens: 0 };
    a.subtasks++;
    a.micros += toMicros(r.metrics.costUsd);
    a.tokens += r.metrics.tokens;
    by.set(r.agentId, a);
  }
  return by;
}

/** Past this age a callback's job has ended, whatever its maximum duration (DELEGATE_JOB_MAX_SECONDS is at most 365 days). */
const CALLBACK_MAX_AGE_MS = 366 * DAY_MS;

/** The record over an open database; `sparseText` is how many text matches count as few (tests set 0 to take the walk). */
export function createRecordStore(rdb: RecordDb, { sparseText = SPARSE }: { sparseText?: number } = {}) {
  const { db, dialect } = rdb;
  // job ids compared byte by byte on both databases (PostgreSQL's default collation would not)
  const jobIdBytes = dialect === 'sqlite' ? sql<string>`job_id` : sql<string>`job_id COLLATE "C"`;
  /**
   * Words as a full-text predicate on a tenant's `jobs` (every word, as a prefix). PostgreSQL
   * cannot estimate how many rows a prefix query matches: it walks the finish-time index and
   * tests each row (22 ms for a rare word at 10,000 jobs, growing with the table). A probe of
   * at most `sparseText` matches through the GIN index tells the two cases apart: few matches are
   * fetched through the index first (under 1 ms), many are found by the walk soon enough.
   */
  async function textMatch(tenant: string, words: string[]): Promise<Expression<SqlBool>> {
    if (dialect === 'sqlite') {
      const match = words.map((w) => `"${w}"*`).join(' ');
      return sql<SqlBool>`jobs.id IN (SELECT rowid FROM jobs_fts WHERE jobs_fts MATCH ${match})`;
    }
    const query = words.map((w) => `${w}:*`).join(' & ');
    const matches = sql`SELECT id FROM jobs WHERE tenant = ${tenant} AND search @@ to_tsquery('simple', ${query})`;
    const probe = await sql<{ n: number }>`SELECT count(*)::int AS n FROM (${matches} LIMIT ${sparseText}) AS m`.execute(db);
    // OFFSET 0 keeps the subquery apart: planned alone, it takes the GIN index
    if ((probe.rows[0]?.n ?? 0) < sparseText) return sql<SqlBool>`jobs.id IN (${matches} OFFSET 0)`;
    return sql<SqlBool>`jobs.search @@ to_tsquery('simple', ${query})`;
  }

  return {
    dialect,
    /** The jobs' live events (see events.ts). */
    events: createJobEvents(rdb),
    /** The code scouts (see scouts.ts). */
    scouts: createScoutStore(rdb),
    /** Closed features' dossiers of their scouts (see feature-dossiers.ts). */
    dossiers: createFeatureDossiers(rdb),
    /** Task statistics per agent and pattern over a sliding window (see task-stats.ts). */
    stats: createTaskStats(rdb),
    /** Approvals, questions and budget waits (see inbox.ts). */
    inbox: createInbox(rdb),
    /** Orphaned scouts and overdue inbox items of a tenant, for `delegate doctor` (see hygiene.ts). */
    hygiene: createRecordHygiene(rdb),
    /** Completion webhooks' URLs and tokens, which job inputs name by reference (see callbacks.ts). */
    callbacks: createCallbacks(rdb),
    /** Parent sessions' current models, and each root job's trace id and session (see parent-sessions.ts). */
    sessions: createParentSessions(rdb),
    /** The deployment's id, made once with the record (see deployment.ts). */
    deploymentId: () => deploymentIdOf(rdb),

    /** Writes a finished job once; a second call for the same job writes nothing. `beforeCommit` runs inside the transaction. */
    async archive(input: ArchiveInput, beforeCommit?: () => Promise<void>): Promise<{ created: boolean; bytes: number }> {
      const { result } = input;
      const stored = JSON.stringify({ ...result, results: [] });
      const subtasks = result.results.map((r, idx) => ({
        idx,
        task_id: r.id,
        agent_id: r.agentId,
        status: r.status,
        result: JSON.stringify(r),
      }));
      const digest = noNul(
        result.results
          .map((r) => r.summary.trim())
          .filter(Boolean)
          .join(' · ')
          .slice(0, DIGEST_CHARS),
      );
      const text = searchText([input.objective, ...(input.questions ?? []), ...result.results.map((r) => r.summary)]);
      const m = result.metrics;
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .insertInto('jobs')
          .values({
            tenant: input.tenant,
            job_id: input.jobId,
            workflow_id: input.workflowId,
            spec_hash: input.specHash,
            pattern: result.pattern,
            status: result.status,
            started_at: input.startedAt,
            closed_at: input.closedAt,
            archived_at: Date.now(),
            objective: input.objective === undefined ? null : noNul(input.objective),
            labels: JSON.stringify(input.labels ?? {}),
            subtasks: result.results.length,
            cost_micros: toMicros(m.costUsd),
            tokens: m.tokens,
            tool_calls: m.toolCalls,
            digest,
            result: stored,
            search_text: text,
          })
          .onConflict((oc) => oc.columns(['tenant', 'job_id']).doNothing())
          .returning('id')
          .executeTakeFirst();
        if (!row) return { created: false, bytes: 0 };
        const job = row.id;
        const common = { job, tenant: input.tenant, closed_at: input.closedAt };
        const labels = Object.entries(input.labels ?? {}).map(([key, value]) => ({ ...common, key, value }));
        if (labels.length) await trx.insertInto('job_labels').values(labels).execute();
        const agents = [...spendByAgent(result.results)].map(([agent_id, a]) => ({
          ...common,
          agent_id,
          subtasks: a.subtasks,
          cost_micros: a.micros,
          tokens: a.tokens,
        }));
        for (let i = 0; i < agents.length; i += CHUNK)
          await trx
            .insertInto('job_agents')
            .values(agents.slice(i, i + CHUNK))
            .execute();
        for (let i = 0; i < subtasks.length; i += CHUNK)
          await trx
            .insertInto('job_subtasks')
            .values(subtasks.slice(i, i + CHUNK).map((s) => ({ job, ...s })))
            .execute();
        await addTaskStats(trx, { tenant: input.tenant, pattern: result.pattern, closedAt: input.closedAt, results: result.results });
        await beforeCommit?.();
        const bytes = [stored, text, digest, ...subtasks.map((s) => s.result)].reduce((n, s) => n + Buffer.byteLength(s), 0);
        return { created: true, bytes };
      });
    },

    /** The spec hash of an archived job (idempotency), without reading its result. */
    async specHashOf(tenant: string, jobId: string): Promise<{ specHash: string | null } | undefined> {
      const row = await db
        .selectFrom('jobs')
        .select('spec_hash')
        .where('tenant', '=', tenant)
        .where('job_id', '=', jobId)
        .executeTakeFirst();
      return row && { specHash: row.spec_hash };
    },

    /** One archived job, its result whole; undefined when there is none. */
    async get(tenant: string, jobId: string): Promise<JobRecord | undefined> {
      const row = await db
        .selectFrom('jobs')
        .select(['id', 'workflow_id', 'spec_hash', 'started_at', 'closed_at', 'labels', 'result'])
        .where('tenant', '=', tenant)
        .where('job_id', '=', jobId)
        .executeTakeFirst();
      if (!row) return undefined;
      const subs = await db.selectFrom('job_subtasks').select('result').where('job', '=', row.id).orderBy('idx').execute();
      // `results` was stored empty in its place: the spread keeps the result's key order
      const result = { ...(JSON.parse(row.result) as JobResult), results: subs.map((s) => JSON.parse(s.result) as TaskResult) };
      return {
        tenant,
        jobId,
        workflowId: row.workflow_id,
        specHash: row.spec_hash,
        startedAt: row.started_at,
        closedAt: row.closed_at,
        labels: JSON.parse(row.labels) as Record<string, string>,
        result,
      };
    },

    /**
     * Finished jobs of a tenant, newest start first, ties by job id (bytewise, as the API
     * compares them): the job list's finished half, from after `after` on.
     */
    async listFinished(
      tenant: string,
      f: { pattern?: string; status?: string; label?: string[]; after?: { startedAt: number; jobId: string }; limit: number },
    ) {
      let q = db.selectFrom('jobs').select(['job_id', 'workflow_id', 'status', 'pattern', 'started_at']).where('tenant', '=', tenant);
      if (f.pattern) q = q.where('pattern', '=', f.pattern);
      if (f.status) q = q.where('status', '=', f.status);
      if (f.label?.length) q = q.where(hasLabels(f.label));
      const after = f.after;
      if (after)
        q = q.where((eb) =>
          eb.or([
            eb('started_at', '<', after.startedAt),
            eb.and([eb('started_at', '=', after.startedAt), eb(jobIdBytes, '<', after.jobId)]),
          ]),
        );
      return q.orderBy('started_at', 'desc').orderBy(jobIdBytes, 'desc').limit(f.limit).execute();
    },

    /** Which of these job ids the record holds (a job is archived a moment before Temporal reports it completed). */
    async archivedAmong(tenant: string, jobIds: string[]): Promise<Set<string>> {
      if (!jobIds.length) return new Set();
      const rows = await db.selectFrom('jobs').select('job_id').where('tenant', '=', tenant).where('job_id', 'in', jobIds).execute();
      return new Set(rows.map((r) => r.job_id));
    },

    /** A page of a tenant's archived jobs, newest finish first; `nextCursor` while more match. */
    async search(tenant: string, f: ReportFilter): Promise<{ reports: Report[]; nextCursor: string | null }> {
      let q = db
        .selectFrom('jobs')
        .select([
          'id',
          'job_id',
          'workflow_id',
          'pattern',
          'status',
          'labels',
          'objective',
          'started_at',
          'closed_at',
          'subtasks',
          'cost_micros',
          'tokens',
          'tool_calls',
          'digest',
        ])
        .where('tenant', '=', tenant);
      if (f.pattern) q = q.where('pattern', '=', f.pattern);
      if (f.status) q = q.where('status', '=', f.status);
      if (f.from !== undefined) q = q.where('closed_at', '>=', f.from);
      if (f.to !== undefined) q = q.where('closed_at', '<', f.to);
      if (f.label?.length) q = q.where(hasLabels(f.label));
      if (f.agent) {
        const agent = f.agent;
        q = q.where((eb) =>
          eb.exists(eb.selectFrom('job_agents').select('job').whereRef('job_agents.job', '=', 'jobs.id').where('agent_id', '=', agent)),
        );
      }
      const words = f.text ? tokens(f.text) : [];
      if (words.length) q = q.where(await textMatch(tenant, words));
      const at = f.cursor ? decodeCursor(f.cursor) : undefined;
      if (at)
        q = q.where((eb) => eb.or([eb('closed_at', '<', at.closedAt), eb.and([eb('closed_at', '=', at.closedAt), eb('id', '<', at.id)])]));
      const rows = await q
        .orderBy('closed_at', 'desc')
        .orderBy('id', 'desc')
        .limit(f.limit + 1)
        .execute();
      const page = rows.slice(0, f.limit);
      const agentRows = page.length
        ? await db
            .selectFrom('job_agents')
            .select(['job', 'agent_id'])
            .where(
              'job',
              'in',
              page.map((r) => r.id),
            )
            .orderBy('agent_id')
            .execute()
        : [];
      const reports = page.map((r): Report => ({
        jobId: r.job_id,
        workflowId: r.workflow_id,
        pattern: r.pattern as Pattern,
        status: r.status as JobOutcome,
        labels: JSON.parse(r.labels) as Record<string, string>,
        ...(r.objective ? { objective: r.objective } : {}),
        startedAt: new Date(r.started_at).toISOString(),
        closedAt: new Date(r.closed_at).toISOString(),
        subtasks: r.subtasks,
        agents: agentRows.filter((a) => a.job === r.id).map((a) => a.agent_id),
        spend: { costUsd: fromMicros(r.cost_micros), tokens: r.tokens, toolCalls: r.tool_calls },
        digest: r.digest,
      }));
      const last = page.at(-1);
      return { reports, nextCursor: rows.length > f.limit && last ? encodeCursor(last.closed_at, last.id) : null };
    },

    /** Counts, spend by status and by agent, and the top labels of a tenant's jobs finished in [from, to). */
    async summary(tenant: string, from: number, to: number, topLabels = 10): Promise<ReportSummary> {
      const byStatus = await db
        .selectFrom('jobs')
        .select((eb) => [
          'status',
          eb.fn.countAll<number>().as('jobs'),
          eb.fn.sum<number>('subtasks').as('subtasks'),
          eb.fn.sum<number>('cost_micros').as('micros'),
          eb.fn.sum<number>('tokens').as('tokens'),
          eb.fn.sum<number>('tool_calls').as('tool_calls'),
        ])
        .where('tenant', '=', tenant)
        .where('closed_at', '>=', from)
        .where('closed_at', '<', to)
        .groupBy('status')
        .orderBy('status')
        .execute();
      const byAgent = await db
        .selectFrom('job_agents')
        .select((eb) => [
          'agent_id',
          eb.fn.sum<number>('subtasks').as('subtasks'),
          eb.fn.sum<number>('cost_micros').as('micros'),
          eb.fn.sum<number>('tokens').as('tokens'),
        ])
        .where('tenant', '=', tenant)
        .where('closed_at', '>=', from)
        .where('closed_at', '<', to)
        .groupBy('agent_id')
        .orderBy('micros', 'desc')
        .orderBy('agent_id')
        .execute();
      const labels = await db
        .selectFrom('job_labels')
        .select((eb) => ['key', 'value', eb.fn.countAll<number>().as('jobs')])
        .where('tenant', '=', tenant)
        .where('closed_at', '>=', from)
        .where('closed_at', '<', to)
        .groupBy(['key', 'value'])
        .orderBy('jobs', 'desc')
        .orderBy('key')
        .orderBy('value')
        .limit(topLabels)
        .execute();
      // PostgreSQL sums and counts bigints as numeric/int8: strings or numbers, made numbers here
      const n = (v: unknown) => Number(v ?? 0);
      const sum = (k: 'jobs' | 'subtasks' | 'micros' | 'tokens' | 'tool_calls') => byStatus.reduce((a, r) => a + n(r[k]), 0);
      return {
        from: new Date(from).toISOString(),
        to: new Date(to).toISOString(),
        jobs: sum('jobs'),
        subtasks: sum('subtasks'),
        spend: { costUsd: fromMicros(sum('micros')), tokens: sum('tokens'), toolCalls: sum('tool_calls') },
        byStatus: byStatus.map((r) => ({ status: r.status as JobOutcome, jobs: n(r.jobs), costUsd: fromMicros(n(r.micros)) })),
        byAgent: byAgent.map((r) => ({
          agentId: r.agent_id,
          subtasks: n(r.subtasks),
          costUsd: fromMicros(n(r.micros)),
          tokens: n(r.tokens),
        })),
        topLabels: labels.map((r) => ({ label: `${r.key}=${r.value}`, jobs: n(r.jobs) })),
      };
    },

    /**
     * Deletes (or, dry, lists) every tenant's jobs finished before `before`, except those
     * with a label key in `keepLabels`; in batches, each its own transaction, `onBatch` after each.
     */
    async prune(o: {
      before: number;
      keepLabels: string[];
      dryRun: boolean;
      batch?: number;
      onBatch?: (deleted: number) => void;
    }): Promise<PruneOutcome> {
      const batch = o.batch ?? 500;
      const doomed = () => {
        let q = db.selectFrom('jobs').where('closed_at', '<', o.before);
        if (o.keepLabels.length) {
          q = q.where((eb) =>
            eb.not(
              eb.exists(
                eb.selectFrom('job_labels').select('job').whereRef('job_labels.job', '=', 'jobs.id').where('key', 'in', o.keepLabels),
              ),
            ),
          );
        }
        return q;
      };
      const listed = (
        await doomed().select(['tenant', 'job_id', 'closed_at']).orderBy('closed_at').orderBy('id').limit(PRUNE_LISTED).execute()
      ).map((r) => ({ tenant: r.tenant, jobId: r.job_id, closedAt: new Date(r.closed_at).toISOString() }));
      if (o.dryRun) {
        const { jobs } = await doomed()
          .select((eb) => eb.fn.countAll<number>().as('jobs'))
          .executeTakeFirstOrThrow();
        return { dryRun: true, jobs: Number(jobs), listed };
      }
      let deleted = 0;
      for (;;) {
        const rows = await doomed().select(['id', 'tenant', 'job_id']).orderBy('closed_at').orderBy('id').limit(batch).execute();
        const ids = rows.map((r) => r.id);
        if (!ids.length) break;
        // child rows go with their job (ON DELETE CASCADE), the FTS index through its trigger, its live events here
        await db.transaction().execute(async (trx) => {
          await trx
            .deleteFrom('job_events')
            .where((eb) => eb.or(rows.map((r) => eb.and([eb('tenant', '=', r.tenant), eb('job_id', '=', r.job_id)]))))
            .execute();
          // a pruned job's webhook secrets too: its webhook was sent when it finished
          await trx
            .deleteFrom('job_callbacks')
            .where((eb) => eb.or(rows.map((r) => eb.and([eb('tenant', '=', r.tenant), eb('job_id', '=', r.job_id)]))))
            .execute();
          await trx.deleteFrom('jobs').where('id', 'in', ids).execute();
        });
        deleted += ids.length;
        o.onBatch?.(deleted);
      }
      // callbacks whose job was never archived (its archive failed): once no job can still be running
      await createCallbacks(rdb).prune(Date.now() - CALLBACK_MAX_AGE_MS);
      // origins and sessions name no content: kept as long as a running job may still need them
      await createParentSessions(rdb).prune(Date.now() - CALLBACK_MAX_AGE_MS);
      // statistics hold no content: they go when no window can reach them, whatever the jobs' retention
      await createTaskStats(rdb).prune(Date.now() - STATS_MAX_DAYS * DAY_MS);
      return { dryRun: false, jobs: deleted, listed };
    },
  };
}

/** The record's operations. */
export type RecordStore = ReturnType<typeof createRecordStore>;
