/**
 * A job spec as a plan, from data alone: the API's thread resolves each task's agents against
 * the registry (api/forecast.ts `resolveJob`), and a forecast thread turns that resolved job
 * into the plan core/forecast.ts forecasts, reading the history it was sent.
 *
 *   API thread: spec ──resolveJob (registry)──> ForecastJob + agents ──postMessage──> forecast thread
 *   thread:     ForecastJob ──planOf (history)──> JobPlan ──forecastPlan──> Forecast
 *   a task's history: its agent's in jobs of this pattern (MIN_RUNS or more), else its agent's in any pattern;
 *   a capability several agents share: their histories merged (which one runs is decided when it starts)
 *
 * Pure: no registry, no zod, nothing a thread cannot receive in a message.
 */
import type { AgentStats } from '../record';
import { capabilityLadder, measure, pickRung } from '../core/downshift';
import type { AgentRef, Budget, Pattern } from '../schemas';
import { mergeStats, type TaskStats } from '../core/forecast-sketch';
import type { HedgeSpec } from '../core/hedge';
import type { ForecastAxis, JobPlan, PlanNode, TaskPlan } from '../core/forecast-plan';

/** Runs in a pattern below which a task's history is its agent's over every pattern. */
export const MIN_RUNS = 5;

/** An agent as a forecast sees it: what its manifest and its service declare. */
export interface ForecastAgent {
  id: string;
  capabilities: string[];
  maxSteps: number;
  timeoutSeconds: number;
  provider?: string;
  /** The declared request rate of its provider. */
  requestsPerMinute?: number;
}

/** A task of a resolved job. */
export interface ForecastTask {
  id: string;
  /** The spec's agent reference; a re-plan sets an agent id. */
  ref?: AgentRef;
  /** The agents it may run on (resolved by the API from the registry; a re-plan sets one). */
  agents: string[];
  /** The agents a re-plan may move it to (they take its params and scope), for the spec's own reference; absent: none. */
  accepts?: string[];
  budget?: Budget;
  timeoutSeconds?: number;
  job?: ForecastJob;
  /** The task's hedged steps: their extra spend is in the forecast. */
  hedge?: HedgeSpec;
  /** The task's own ladder (`tasks[].downshift`): past its threshold of the task's budget, its remaining steps run cheaper. */
  downshift?: ForecastLadder;
  /** Set when the tenant's result cache would serve the task (api/forecast-cache.ts): the job its result comes from. */
  cachedFrom?: string;
}

/** A job spec, resolved: what a forecast and a re-plan read of it, and nothing else (no questions, no params). */
export interface ForecastJob {
  pattern: Pattern;
  maxParallel?: number;
  /** A fan-out that stops after this many successes (its quorum, or 1 for first_success). */
  quorum?: number;
  budget?: Budget;
  tasks: ForecastTask[];
  /** The root job's ladder (`downshift`): its agent ids priciest first (a capability's: ranked by their history here). */
  downshift?: ForecastLadder;
}

/** A ladder as a forecast reads it: its agent ids priciest first (a capability's: ranked by their history here). */
export interface ForecastLadder {
  threshold: number;
  qualityFloor: number;
  agents: string[];
  byCost: boolean;
}

/** The agents of a resolved job, by id. */
export type ForecastAgents = Record<string, ForecastAgent>;

const defsOf = (t: ForecastTask, agents: ForecastAgents) => t.agents.map((id) => agents[id]).filter((a) => a !== undefined);

/** The upper bounds a task without history falls back on: the manifest's limits and the task's own budget. */
function limitsOf(task: ForecastTask, defs: ForecastAgent[]): Partial<Record<ForecastAxis, number>> {
  const limits: Partial<Record<ForecastAxis, number>> = {};
  const b = task.budget ?? {};
  if (b.costUsd !== undefined) limits.costUsd = b.costUsd;
  if (b.tokens !== undefined) limits.tokens = b.tokens;
  if (b.toolCalls !== undefined) limits.toolCalls = b.toolCalls;
  if (defs.length) {
    const steps = Math.max(...defs.map((d) => d.maxSteps));
    const stepSeconds = task.timeoutSeconds ?? Math.max(...defs.map((d) => d.timeoutSeconds));
    limits.steps = steps;
    limits.latencySeconds = Math.min(b.latencySeconds ?? Infinity, steps * stepSeconds);
  } else if (b.latencySeconds !== undefined) limits.latencySeconds = b.latencySeconds;
  return limits;
}

/** The declared provider rate every agent a task may run on shares (absent: none, or they differ). */
function pacedBy(defs: ForecastAgent[]): TaskPlan['provider'] {
  const ids = new Set(defs.map((d) => d.provider));
  const rpm = defs[0]?.requestsPerMinute;
  const id = defs[0]?.provider;
  return ids.size === 1 && id !== undefined && rpm !== undefined ? { id, stepsPerSecond: rpm / 60 } : undefined;
}

/** A task's history in a pattern's jobs, and what it is. */
function historyOf(defs: ForecastAgent[], pattern: Pattern, stats: Map<string, AgentStats>, days: number) {
  const of = (d: ForecastAgent) => stats.get(d.id);
  const inPattern = mergeStats(defs.map((d) => of(d)?.get(pattern)).filter((s): s is TaskStats => s !== undefined));
  const who = defs.length === 1 ? `agent ${defs[0].id}` : `agents ${defs.map((d) => d.id).join(', ')}`;
  if (inPattern.runs >= MIN_RUNS) return { stats: inPattern, basis: `${who} in ${pattern} jobs, last ${days} days` };
  const any = mergeStats(defs.flatMap((d) => [...(of(d)?.values() ?? [])]));
  if (any.runs > 0) return { stats: any, basis: `${who} in jobs of any pattern, last ${days} days` };
  return {
    stats: undefined,
    basis: `no history of ${who || 'its agent'} in the last ${days} days: the manifest limits and the task budget`,
  };
}

/** A ladder with each rung's measured quality and cost, as pickRung reads it. */
function measuredLadder(d: ForecastLadder, stats: Map<string, AgentStats>) {
  const measured = d.agents.map((a) => measure(a, mergeStats([...(stats.get(a)?.values() ?? [])])));
  return { qualityFloor: d.qualityFloor, rungs: d.byCost ? capabilityLadder(measured) : measured };
}

/** The plan of the cheaper agent a measured ladder hands task `c` to past its threshold (above its floor only), if any. */
function downshifted(
  c: TaskPlan,
  ladder: ReturnType<typeof measuredLadder>,
  pattern: Pattern,
  agents: ForecastAgents,
  stats: Map<string, AgentStats>,
  days: number,
): TaskPlan | undefined {
  const to = pickRung(ladder, c.agent);
  const def = to && agents[to.agent];
  if (!def) return undefined;
  const h = historyOf([def], pattern, stats, days);
  const { selfShift: _s, downshiftTo: _d, ...plan } = c;
  return {
    ...plan,
    agent: def.id,
    basis: `down-shifted to ${def.id}: ${h.basis}`,
    stats: h.stats,
    limits: limitsOf({ id: c.id, agents: [def.id], budget: c.budget }, [def]),
  };
}

/** Each task of a job with a ladder gets the plan of the cheaper agent its job would start it on past the threshold. */
function laddered(job: ForecastJob, children: PlanNode[], agents: ForecastAgents, stats: Map<string, AgentStats>, days: number) {
  const ladder = measuredLadder(job.downshift!, stats);
  for (const c of children) {
    const to = c.kind === 'task' ? downshifted(c, ladder, job.pattern, agents, stats, days) : undefined;
    if (to) (c as TaskPlan).downshiftTo = to;
  }
}

/** A task the result cache would serve (from job `from`): every axis 0, for certain. */
export function cachedPlan(id: string, agent: string, from: string): TaskPlan {
  return {
    kind: 'task',
    id,
    agent,
    basis: `served from the result cache (job ${from}): nothing spent`,
    limits: { costUsd: 0, tokens: 0, toolCalls: 0, steps: 0, latencySeconds: 0 },
    cachedFrom: from,
  };
}

/** A resolved job as a plan, every task with its history. */
export function planOf(job: ForecastJob, agents: ForecastAgents, stats: Map<string, AgentStats>, days: number, id = 'job'): JobPlan {
  const children = job.tasks.map((t): PlanNode => {
    if (t.job) return planOf(t.job, agents, stats, days, t.id);
    if (t.cachedFrom !== undefined) return cachedPlan(t.id, t.agents[0] ?? 'unknown', t.cachedFrom);
    const defs = defsOf(t, agents);
    const h = historyOf(defs, job.pattern, stats, days);
    const ref = t.ref;
    const agent =
      defs.length === 1 ? defs[0].id : typeof ref === 'object' && 'capability' in ref ? `capability:${ref.capability}` : 'unknown';
    const plan: TaskPlan = { kind: 'task', id: t.id, agent, basis: h.basis, limits: limitsOf(t, defs) };
    const provider = pacedBy(defs);
    if (provider) plan.provider = provider;
    if (h.stats) plan.stats = h.stats;
    if (t.budget) plan.budget = t.budget;
    if (t.hedge) plan.hedge = t.hedge;
    // its own ladder steps down within its own budget
    const to =
      t.downshift && t.budget ? downshifted(plan, measuredLadder(t.downshift, stats), job.pattern, agents, stats, days) : undefined;
    if (to) plan.selfShift = { at: t.downshift!.threshold, to };
    return plan;
  });
  if (job.downshift) laddered(job, children, agents, stats, days);
  return {
    kind: 'job',
    id,
    pattern: job.pattern,
    ...(job.downshift ? { downshiftAt: job.downshift.threshold } : {}),
    ...(job.maxParallel !== undefined ? { maxParallel: job.maxParallel } : {}),
    ...(job.budget ? { budget: job.budget } : {}),
    ...(job.quorum !== undefined ? { quorum: job.quorum } : {}),
    children,
  };
}
