/**
 * One step's spend per agent as the tenant's record measured it, read at submission: a fair
 * grant's floor for a task on that agent before the job has measured a step of its own
 * (workflows/job/ledger.ts). Without it the first wave of a fan-out shares a tight budget blind,
 * and a child on a pricier agent starts on less than its one step costs and overruns its grant.
 *
 *   spec (fair, a spend cap) + its agents ──record.stats.window──> p99 spend per task ÷ mean steps ──> stepFloors
 *                                                                  (none for an agent whose p99 is over 4× its median)
 */
import type { JobInput } from '../../contracts/job';
import type { JobSpec } from '../../schemas';
import type { Budget } from '../../schemas/budget';
import type { TaskStatsStore } from '../../record';
import { GAMMA, meanOf, mergeStats, quantile, type Histogram } from '../../core/forecast-sketch';
import { fromMicros } from '../../core/money';

/** The quantile of a task's spend a floor takes: a step all but the agent's dearest one in a hundred fit in. */
export const STEP_FLOOR_QUANTILE = 0.99;

/**
 * How far the agent's dearer subtasks may be from its median for the record to predict a step: an
 * agent whose spend varies more (a simulated agent whose cost is a parameter, a tool agent whose
 * work depends on the task) has no floor of its own, or its dearest task would set every task's.
 */
export const STEP_FLOOR_MAX_SPREAD = 4;

/** The top of the histogram bin a quantile fell in (the sketch answers its middle, up to 9% lower). */
const upperEdge = (v: number | undefined) => ((v ?? 0) * (1 + GAMMA)) / 2;

/** The top of the p99's bin, when the spread allows a prediction (else 0: no floor on that axis). */
function predictable(h: Histogram): number {
  const top = quantile(h, STEP_FLOOR_QUANTILE);
  const median = quantile(h, 0.5);
  if (top === undefined || median === undefined || top > STEP_FLOOR_MAX_SPREAD * median) return 0;
  return upperEdge(top);
}

/** Whether some job of the tree caps money or tokens and shares it fairly: only then does a floor matter. */
function sharesFairly(spec: Pick<JobSpec, 'budget' | 'allocation' | 'tasks'>): boolean {
  const capped = spec.budget?.costUsd !== undefined || spec.budget?.tokens !== undefined;
  return (spec.allocation !== 'greedy' && capped) || spec.tasks.some((t) => t.job !== undefined && sharesFairly(t.job));
}

/** Each agent's recorded step floor (agents with no finished task in the window have none). */
export async function recordedStepFloors(
  spec: JobSpec,
  agents: JobInput['agents'],
  stats: Pick<TaskStatsStore, 'window'>,
  tenant: string,
): Promise<Pick<JobInput, 'stepFloors'>> {
  if (!agents || !sharesFairly(spec)) return {};
  const ids = [...new Set(Object.values(agents).map((m) => m.id))];
  if (ids.length === 0) return {};
  const history = await stats.window(tenant, ids);
  const floors: Record<string, Budget> = {};
  for (const id of ids) {
    const byPattern = history.get(id);
    if (!byPattern) continue;
    const s = mergeStats([...byPattern.values()]);
    if (s.runs === 0) continue;
    const steps = Math.max(1, meanOf(s.hist.steps));
    const costMicros = predictable(s.hist.costMicros);
    const tokens = predictable(s.hist.tokens);
    const floor: Budget = {
      ...(costMicros > 0 ? { costUsd: fromMicros(Math.ceil(costMicros / steps)) } : {}),
      ...(tokens > 0 ? { tokens: Math.ceil(tokens / steps) } : {}),
    };
    if (Object.keys(floor).length > 0) floors[id] = floor;
  }
  return Object.keys(floors).length > 0 ? { stepFloors: floors } : {};
}
