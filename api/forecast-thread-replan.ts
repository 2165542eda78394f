/**
 * What a forecast thread computes: the forecast of a resolved job, and for admission control's
 * `replan` the greedy re-plan, within a bound of Monte Carlo draws so a job of any shape costs
 * a bounded time. Pure (see forecast-thread-plan.ts); the API's thread applies the changes
 * chosen to the spec it will start (`applyChange` serves both).
 *
 *   job ──forecast──> P < confidence? ──replan──> of every single change (a cheaper capable agent for a group of tasks,
 *                                                 one voter fewer, a lower maxParallel of a quorum fan-out) the one that
 *                                                 raises P most, until it fits, nothing helps, MAX_CHANGES or the draws bound
 */
import type { AgentStats } from '../record';
import { mergeStats, quantile } from '../core/forecast-sketch';
import { forecastPlan } from '../core/forecast';
import type { Forecast, NodeForecast } from '../core/forecast-plan';
import { MIN_RUNS, planOf, type ForecastAgents, type ForecastJob, type ForecastTask } from './forecast-thread-plan';

/** Changes a re-plan makes at most. */
const MAX_CHANGES = 20;
/** Nodes of an admission's forecast a thread answers (the job's, then its tasks' breadth first): a 422 or an event need no 10,000. */
export const ADMISSION_FORECAST_NODES = 200;

/** One change of a job: the job at `path` (task indexes into nested jobs) loses its last voter, gets a lower maxParallel, or tasks move to agent `to`. */
export type ReplanOp =
  | { kind: 'dropVoter'; path: number[] }
  | { kind: 'maxParallel'; path: number[]; value: number }
  | { kind: 'agent'; to: string; tasks: { path: number[]; index: number }[] };

/** A change and what it says. */
export interface ReplanChange {
  op: ReplanOp;
  text: string;
}

/** One forecast thread's work: a resolved job and its history, with admission control's ask when it has one. */
export interface ForecastWork {
  job: ForecastJob;
  agents: ForecastAgents;
  stats: Map<string, AgentStats>;
  days: number;
  /** Admission control's ask; the re-plan stops at `maxDraws` Monte Carlo draws (the same for every run), or after `maxMs` on a loaded host. */
  admission?: { confidence: number; replan: boolean; maxDraws: number; maxMs: number };
}

/** The re-plan's outcome: its best forecast, the changes that lead there, and the bound it stopped at, if any. */
export interface ReplanOutcome {
  best: Forecast;
  changes: ReplanChange[];
  stopped?: 'draws' | 'time';
}

/** What a forecast thread answers. */
export interface ForecastOutcome {
  forecast: Forecast;
  replan?: ReplanOutcome;
}

/** A job with tasks that may nest jobs: a spec, or a resolved one. */
interface Nests<J> {
  tasks: { job?: J }[];
  maxParallel?: number;
}

/** Applies `f` to the job at `path` of `job`, copying only what changes. */
function atJob<J extends Nests<J>>(job: J, path: number[], f: (j: J) => J): J {
  if (path.length === 0) return f(job);
  const [i, ...rest] = path;
  const tasks = job.tasks.slice();
  tasks[i] = { ...tasks[i], job: atJob(tasks[i].job!, rest, f) };
  return { ...job, tasks };
}

/** `job` with the change made; `assign` moves one task to an agent. */
export function applyChange<J extends Nests<J>>(
  job: J,
  op: ReplanOp,
  assign: (task: J['tasks'][number], to: string) => J['tasks'][number],
): J {
  if (op.kind === 'dropVoter') return atJob(job, op.path, (j) => ({ ...j, tasks: j.tasks.slice(0, -1) }));
  if (op.kind === 'maxParallel') return atJob(job, op.path, (j) => ({ ...j, maxParallel: op.value }));
  // one copy of each job the tasks are in, however many of its tasks move
  const byJob = new Map<string, { path: number[]; indexes: Set<number> }>();
  for (const { path, index } of op.tasks) {
    const key = path.join('.');
    const at = byJob.get(key) ?? { path, indexes: new Set<number>() };
    at.indexes.add(index);
    byJob.set(key, at);
  }
  let next = job;
  for (const { path, indexes } of byJob.values())
    next = atJob(next, path, (j) => ({ ...j, tasks: j.tasks.map((t, i) => (indexes.has(i) ? assign(t, op.to) : t)) }));
  return next;
}

const assignResolved = (t: ForecastTask, to: string): ForecastTask => ({ ...t, ref: to, agents: [to] });

/** An agent's p50 cost in dollars over every pattern, with its runs; undefined below MIN_RUNS. */
function p50Cost(stats: Map<string, AgentStats>, agent: string): { usd: number; runs: number } | undefined {
  const s = mergeStats([...(stats.get(agent)?.values() ?? [])]);
  if (s.runs < MIN_RUNS) return undefined;
  const v = quantile(s.hist.costMicros, 0.5);
  return v === undefined ? undefined : { usd: v / 1e6, runs: s.runs };
}

/**
 * The agents that could take a task in place of its own: same capability (or every capability of
 * the one it runs on), among those the API found take its params and scope (`accepts`, for the
 * spec's reference: a task moved once can only narrow that set, as its agent has every capability
 * the first one had).
 */
function alternativesOf(t: ForecastTask, agents: ForecastAgents): string[] {
  if (!t.accepts?.length) return [];
  if (typeof t.ref === 'object' && 'capability' in t.ref) return t.accepts;
  const need = t.agents.length === 1 ? agents[t.agents[0]]?.capabilities : undefined;
  if (!need?.length) return [];
  return t.accepts.filter((id) => need.every((c) => agents[id]?.capabilities.includes(c)));
}

/** Every single change that could lower the job's spend. */
function proposals(job: ForecastJob, agents: ForecastAgents, stats: Map<string, AgentStats>): ReplanChange[] {
  const out: ReplanChange[] = [];
  /** (from → to) agent swaps: the tasks they apply to, by job path. */
  const swaps = new Map<string, { from: string; to: string; why: string; tasks: { path: number[]; index: number }[] }>();
  const walk = (j: ForecastJob, path: number[], label: string) => {
    // a vote keeps three voters (a majority can still form); fewer are never dropped
    if (j.pattern === 'vote' && j.tasks.length > 3)
      out.push({
        op: { kind: 'dropVoter', path },
        text: `${label}: ${j.tasks.length} → ${j.tasks.length - 1} voters (dropped ${j.tasks.at(-1)!.id})`,
      });
    const width = j.maxParallel ?? j.tasks.length;
    if (j.pattern === 'fanout' && j.quorum !== undefined && width > j.quorum) {
      const lower = Math.max(j.quorum, Math.floor(width / 2));
      out.push({
        op: { kind: 'maxParallel', path, value: lower },
        text: `${label}: maxParallel ${j.maxParallel ?? `unset (${width})`} → ${lower}, so fewer tasks start before the quorum of ${j.quorum} is met`,
      });
    }
    j.tasks.forEach((t, index) => {
      if (t.job) return walk(t.job, [...path, index], `${label}.tasks[${index}] (${t.id})`);
      const from = t.agents.length === 1 ? t.agents[0] : undefined;
      const fromCost = from ? p50Cost(stats, from) : undefined;
      for (const to of alternativesOf(t, agents)) {
        const toCost = p50Cost(stats, to);
        if (to === from || !toCost || (fromCost && toCost.usd >= fromCost.usd)) continue;
        const key = `${from ?? JSON.stringify(t.ref)}→${to}`;
        const why = `p50 $${toCost.usd.toFixed(4)} over ${toCost.runs} runs${fromCost ? ` against $${fromCost.usd.toFixed(4)} over ${fromCost.runs}` : ''}`;
        const swap = swaps.get(key) ?? { from: from ?? 'the capability', to, why, tasks: [] };
        swap.tasks.push({ path, index });
        swaps.set(key, swap);
      }
    });
  };
  walk(job, [], 'job');
  for (const s of swaps.values()) {
    const ids = s.tasks.slice(0, 5).map((t) => t.index);
    out.push({
      op: { kind: 'agent', to: s.to, tasks: s.tasks },
      text: `${s.tasks.length} task(s) (first at index ${ids.join(', ')}): agent ${s.from} → ${s.to}, the cheaper capable agent (${s.why})`,
    });
  }
  return out;
}

/** Agent tasks of a job, across nesting. */
const leaves = (job: ForecastJob): number => job.tasks.reduce((n, t) => n + (t.job ? leaves(t.job) : 1), 0);

/** The job's p90 cost: the tie-break between changes of equal probability (the cheaper plan wins). */
const spendOf = (f: Forecast): number => f.job.predicted.costUsd.p90 ?? Infinity;
const chance = (f: Forecast) => f.budgetSuffices ?? 0;

/** The greedy re-plan from the job's first forecast: at most `maxDraws` Monte Carlo draws (task samples) in all, the first forecast's included. */
export function replan({ job, agents, stats, days, admission }: ForecastWork, first: Forecast, began: number): ReplanOutcome {
  const { confidence, maxDraws, maxMs } = admission!;
  let current = job;
  let best = first;
  let draws = first.samples * leaves(job);
  let stopped: ReplanOutcome['stopped'];
  const changes: ReplanChange[] = [];
  while (!stopped && changes.length < MAX_CHANGES && chance(best) < confidence) {
    // the next forecast costs about what the current plan's did: the bound is checked before each, so it is never passed
    const each = best.samples * leaves(current);
    // the round's best so far (the first of equals), not every candidate: a 10,000-task forecast is tens of MB
    let top: { change: ReplanChange; job: ForecastJob; f: Forecast } | undefined;
    for (const change of proposals(current, agents, stats)) {
      stopped = draws + each > maxDraws ? 'draws' : performance.now() - began > maxMs ? 'time' : undefined;
      if (stopped) break;
      const next = applyChange(current, change.op, assignResolved);
      const f = forecastPlan(planOf(next, agents, stats, days));
      draws += f.samples * leaves(next);
      if (!top || (chance(f) - chance(top.f) || spendOf(top.f) - spendOf(f)) > 0) top = { change, job: next, f };
    }
    if (!top || (chance(top.f) <= chance(best) && spendOf(top.f) >= spendOf(best))) break;
    current = top.job;
    best = top.f;
    changes.push(top.change);
  }
  return { best, changes, ...(stopped ? { stopped } : {}) };
}

/** The forecast with its first `max` nodes (breadth first), and a note when some are left out. */
export function trimmed(f: Forecast, max = ADMISSION_FORECAST_NODES): Forecast {
  const copy = (n: NodeForecast): NodeForecast => ({ ...n, ...(n.children ? { children: [] } : {}) });
  const job = copy(f.job);
  const queue: [NodeForecast, NodeForecast][] = [[f.job, job]];
  let left = max - 1;
  let cut = false;
  for (let i = 0; i < queue.length && !cut; i++) {
    const [from, to] = queue[i];
    for (const c of from.children ?? []) {
      if (left-- === 0) {
        cut = true;
        break;
      }
      const d = copy(c);
      to.children!.push(d);
      queue.push([c, d]);
    }
  }
  if (!cut) return f;
  return {
    ...f,
    job,
    notes: [...f.notes, `only the first ${max} of the plan's nodes are shown: POST /v1/jobs/estimate answers every task`],
  };
}

/** A thread's work: the forecast, and the re-plan when admission asks for one and the budget falls short; an admission's forecasts trimmed. */
export function forecastWork(work: ForecastWork): ForecastOutcome {
  const began = performance.now();
  const forecast = forecastPlan(planOf(work.job, work.agents, work.stats, work.days));
  const a = work.admission;
  if (!a) return { forecast };
  const p = forecast.budgetSuffices;
  if (!a.replan || p === null || p >= a.confidence) return { forecast: trimmed(forecast) };
  const r = replan(work, forecast, began);
  return { forecast: trimmed(forecast), replan: { ...r, best: trimmed(r.best) } };
}
