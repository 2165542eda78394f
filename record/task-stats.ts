/**
 * Task statistics in the record: per tenant, agent, pattern and UTC day, how many finished
 * subtasks fell in each bin of each metric (fixed log bins, core/forecast-sketch.ts). The
 * archive adds a job's subtasks in its own transaction, as additive upserts; a read sums the
 * days of a sliding window, so it touches at most days × metrics × occupied bins rows per
 * agent and pattern, never the jobs.
 *
 *   archive ── results ──> (agent, pattern, day, metric, bin) += n   (rows sorted: two PostgreSQL archives lock in one order)
 *   window(tenant, agents, days) ── SUM(n) GROUP BY agent, pattern, metric, bin ──> TaskStats per agent and pattern
 */
import type { Kysely, Transaction } from 'kysely';
import type { Pattern, TaskResult } from '../schemas';
import { toMicros } from '../core/money';
import { addBin, binsOf, emptyStats, OUTCOME_BIN, type StatMetric, type TaskStats } from '../core/forecast-sketch';
import type { RecordDb, RecordTables } from './db';

/** A day, the width of one bucket. */
export const DAY_MS = 86_400_000;
/** Days the forecasts and adaptive routing look back by default. */
export const STATS_WINDOW_DAYS = 30;
/** The longest window a read may ask for; older days are pruned. */
export const STATS_MAX_DAYS = 90;

/** Why a result says nothing of its agent: it never ran, or it was ended from outside. */
const NOT_MEASURED = new Set(['cancelled', 'stopped', 'skipped', 'no_agent', 'depth_exceeded', 'agent_unavailable', 'circuit_open']);

/**
 * The results the statistics count: ones an agent worked on (ids with a colon are nested jobs, roles
 * or unresolved references; a cached result ran no agent; a task the budget refused before its first
 * step says nothing of its agent, and counted as its failure it would sink the agent's measured
 * quality, which a down-shift's floor reads).
 */
export function measuredResults(results: TaskResult[]): TaskResult[] {
  return results.filter(
    (r) =>
      !r.agentId.includes(':') &&
      r.agentId !== 'none' &&
      !NOT_MEASURED.has(r.failureReason ?? '') &&
      !r.metrics.cached &&
      !(r.failureReason === 'budget_exhausted' && r.metrics.steps === 0),
  );
}

/** The agents a task tried before its last one (fallbacks), that worked on it and failed. */
export function earlierTries(r: TaskResult): NonNullable<TaskResult['agentsTried']> {
  const tries = r.agentsTried ?? [];
  return tries.filter(
    (t, i) => !(i === tries.length - 1 && t.agent === r.agentId) && !t.agent.includes(':') && !NOT_MEASURED.has(t.reason ?? ''),
  );
}

/** The start of the day `at` falls in. */
export const bucketOf = (at: number) => Math.floor(at / DAY_MS) * DAY_MS;

/** Adds a finished job's subtasks to the statistics, inside the archive's transaction. */
export async function addTaskStats(
  trx: Transaction<RecordTables> | Kysely<RecordTables>,
  o: { tenant: string; pattern: Pattern; closedAt: number; results: TaskResult[] },
): Promise<number> {
  const bucket = bucketOf(o.closedAt);
  const counts = new Map<string, { agent_id: string; metric: StatMetric; bin: number; n: number }>();
  const count = (agent_id: string, metric: StatMetric, bin: number) => {
    const key = `${agent_id}\u0000${metric}\u0000${bin}`;
    const c = counts.get(key);
    if (c) c.n++;
    else counts.set(key, { agent_id, metric, bin, n: 1 });
  };
  for (const r of measuredResults(o.results)) {
    const m = r.metrics;
    const bins = binsOf({
      status: r.status,
      values: { costMicros: toMicros(m.costUsd), tokens: m.tokens, toolCalls: m.toolCalls, steps: m.steps, latencyMs: m.latencyMs },
    });
    for (const { metric, bin } of bins) count(r.agentId, metric, bin);
    // the agents a fallback moved on from failed the task: their outcome counts, the spend is the task's (its last agent's)
    for (const t of earlierTries(r)) count(t.agent, 'outcome', OUTCOME_BIN[t.outcome]);
  }
  // one row per key per statement (PostgreSQL refuses to update a row twice in one), in one order for every writer
  const rows = [...counts.values()]
    .sort((a, b) =>
      a.agent_id < b.agent_id ? -1 : a.agent_id > b.agent_id ? 1 : a.metric < b.metric ? -1 : a.metric > b.metric ? 1 : a.bin - b.bin,
    )
    .map((c) => ({ tenant: o.tenant, pattern: o.pattern, bucket, ...c }));
  for (let i = 0; i < rows.length; i += 500)
    await trx
      .insertInto('task_stats')
      .values(rows.slice(i, i + 500))
      .onConflict((oc) =>
        oc.columns(['tenant', 'agent_id', 'pattern', 'bucket', 'metric', 'bin']).doUpdateSet((eb) => ({
          n: eb('task_stats.n', '+', eb.ref('excluded.n')),
        })),
      )
      .execute();
  return rows.length;
}

/** Statistics of one agent, per pattern of the jobs its tasks ran in. */
export type AgentStats = Map<Pattern, TaskStats>;

/** The statistics part of the record. */
export function createTaskStats({ db }: Pick<RecordDb, 'db'>) {
  return {
    /** Each agent's statistics over the last `days` (from `now`), per pattern; agents without any are absent. */
    async window(tenant: string, agents: string[], o: { days?: number; now?: number } = {}): Promise<Map<string, AgentStats>> {
      const out = new Map<string, AgentStats>();
      const ids = [...new Set(agents)];
      if (!ids.length) return out;
      const since = bucketOf((o.now ?? Date.now()) - (o.days ?? STATS_WINDOW_DAYS) * DAY_MS);
      const rows = await db
        .selectFrom('task_stats')
        .select((eb) => ['agent_id', 'pattern', 'metric', 'bin', eb.fn.sum<number>('n').as('n')])
        .where('tenant', '=', tenant)
        .where('agent_id', 'in', ids)
        .where('bucket', '>=', since)
        .groupBy(['agent_id', 'pattern', 'metric', 'bin'])
        .execute();
      for (const r of rows) {
        let byPattern = out.get(r.agent_id);
        if (!byPattern) out.set(r.agent_id, (byPattern = new Map()));
        let s = byPattern.get(r.pattern as Pattern);
        if (!s) byPattern.set(r.pattern as Pattern, (s = emptyStats()));
        // PostgreSQL sums bigints as numeric: a string
        addBin(s, r.metric as StatMetric, Number(r.bin), Number(r.n));
      }
      return out;
    },

    /** Deletes the days before `before` (pruning); returns the rows deleted. */
    async prune(before: number): Promise<number> {
      const res = await db.deleteFrom('task_stats').where('bucket', '<', bucketOf(before)).executeTakeFirst();
      return Number(res.numDeletedRows ?? 0);
    },
  };
}

/** The task statistics' operations. */
export type TaskStatsStore = ReturnType<typeof createTaskStats>;
