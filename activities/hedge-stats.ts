/**
 * The hedge's look-up (workflows/subtask/hedge.ts): an agent's step latency at the task's
 * quantile and a step's mean spend, from the tenant's task statistics in the record. A local
 * activity of the subtask's worker, once per run and agent; a fan-out's subtasks ask at once, so a
 * read is shared for a second. A record that cannot be read answers "no history" (the task's
 * `afterMs`, else no hedge), never a failed step.
 *
 *   { tenant, agentId, pattern, afterP } ──record.stats.window (cached 1 s)──> the pattern's history (≥ 5 runs) or every pattern's ──stepLatencyOf──> StepLatency
 *
 * The record keeps task-level histograms (core/forecast-sketch.ts), not per-step ones: a step's
 * latency quantile is the task latency's quantile over the median steps per task. Exact for
 * one-step tasks; for longer ones it is the quantile of a task's mean step, which smooths a tail
 * (hedges then start a little later than a true per-step quantile would say).
 */
import { log } from '@temporalio/activity';
import type { TaskStatsStore } from '../record';
import type { Pattern } from '../schemas';
import { meanOf, mergeStats, quantile, type TaskStats } from '../core/forecast-sketch';
import { HEDGE_MIN_RUNS, type StepLatency } from '../core/hedge';
import type { StepLatencyInput } from '../contracts/hedge';
import { cachedStatsWindow } from './stats-window';

/** An agent's step latency at `afterP` and a step's mean spend, from its task statistics. */
export function stepLatencyOf(s: TaskStats | undefined, afterP: number): StepLatency {
  if (!s || s.runs === 0) return { runs: 0 };
  const latency = quantile(s.hist.latencyMs, afterP);
  const steps = Math.max(1, quantile(s.hist.steps, 0.5) ?? 1);
  const meanSteps = Math.max(1, meanOf(s.hist.steps));
  return {
    runs: s.runs,
    ...(latency !== undefined ? { delayMs: Math.round(latency / steps) } : {}),
    stepCostUsd: meanOf(s.hist.costMicros) / 1e6 / meanSteps,
    stepTokens: Math.round(meanOf(s.hist.tokens) / meanSteps),
  };
}

/** The hedge activities over the record's task statistics (`cacheMs`: how long one read is shared; `now`: the cache's clock). */
export function createHedgeActivities({ stats }: { stats: Pick<TaskStatsStore, 'window'> }, { cacheMs = 1000, now = Date.now } = {}) {
  const read = cachedStatsWindow(stats, { cacheMs, now });
  return {
    /** The agent's step latency at `afterP` (see core/hedge.ts stepLatencyOf); `{ runs: 0 }` with no history. */
    async stepLatency({ tenant, agentId, pattern, afterP }: StepLatencyInput): Promise<StepLatency> {
      try {
        const byPattern = (await read(tenant, [agentId])).get(agentId);
        if (!byPattern) return { runs: 0 };
        const own = pattern ? byPattern.get(pattern as Pattern) : undefined;
        return stepLatencyOf(own && own.runs >= HEDGE_MIN_RUNS ? own : mergeStats([...byPattern.values()]), afterP);
      } catch (err) {
        log.warn('hedge: the record could not be read; the step is hedged by afterMs or not at all', { agentId, error: String(err) });
        return { runs: 0 };
      }
    },
  };
}
