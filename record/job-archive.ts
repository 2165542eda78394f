/**
 * The archive write: a finished root job, its result whole, written once in one transaction.
 *
 *   archive ── one transaction: jobs row (unique per tenant + job id) ─┬─ job_labels
 *              a second archive of the same job writes nothing         ├─ job_agents (spend, prompt-cache reads)
 *                                                                      ├─ job_subtasks (each TaskResult)
 *                                                                      ├─ task_stats (bin counts per agent, see task-stats.ts)
 *                                                                      └─ job_roles (prompt-cache reads per role, prompt-cache.ts)
 */
import type { JobResult, TaskResult } from '../schemas';
import { toMicros } from '../core/money';
import type { RecordDb } from './db';
import { noNul } from './no-nul';
import { addTaskStats } from './task-stats';
import { addRoleCacheSums, splitSums } from './prompt-cache';
import { searchText } from './tokens';

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

/** Rows written per INSERT (SQLite takes at most 32,766 bound values in one statement). */
const CHUNK = 500;
/** Characters of a search hit's digest. */
const DIGEST_CHARS = 500;

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

/** The record's archive write, over an open database (part of `createRecordStore`). */
export function createJobArchive({ db }: RecordDb) {
  return {
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
        const split = splitSums(result.results, (r) => r.agentId);
        const agents = [...spendByAgent(result.results)].map(([agent_id, a]) => ({
          ...common,
          agent_id,
          subtasks: a.subtasks,
          cost_micros: a.micros,
          tokens: a.tokens,
          input_tokens: split.get(agent_id)?.input ?? 0,
          cached_input_tokens: split.get(agent_id)?.cached ?? 0,
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
        await addRoleCacheSums(trx, { job, tenant: input.tenant, closedAt: input.closedAt, results: result.results });
        await beforeCommit?.();
        const bytes = [stored, text, digest, ...subtasks.map((s) => s.result)].reduce((n, s) => n + Buffer.byteLength(s), 0);
        return { created: true, bytes };
      });
    },
  };
}
