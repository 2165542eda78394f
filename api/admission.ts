/**
 * Admission control at submission: a job that asks for it is forecast, and when its budget
 * is unlikely to suffice (below its `confidence`) it is refused, started with a warning, or
 * re-planned to fit before it starts.
 *
 *   spec ──forecast──> P(budget suffices) ≥ confidence? ──yes──> admitted
 *                                           │ no
 *        refuse ──> 422 with the forecast   warn ──> started, `warned`   replan ──> greedy: of every single change
 *        (a cheaper capable agent for a group of tasks, one voter fewer, a lower maxParallel of a quorum fan-out)
 *        the one that raises the probability most, until it fits (`replanned`) or nothing helps (422 with what was tried)
 */
import type { AgentRegistry } from '../activities';
import { refusal } from '../activities/agents/registry';
import type { AgentStats } from '../record';
import { AdmissionDecisionSchema, EstimateSchema, type AdmissionDecision, type Estimate, type JobSpec, type TaskSpec } from '../schemas';
import { mergeStats, quantile } from '../core/forecast-sketch';
import { HttpProblem, ProblemSchema } from './errors';
import { agentsOfTask, MIN_RUNS, type Forecaster } from './forecast';

/** The 422 of admission control: the problem, the forecast and the decision. */
export const AdmissionProblemSchema = ProblemSchema.extend({
  forecast: EstimateSchema.optional().describe('admission control: the forecast the job was refused on'),
  admission: AdmissionDecisionSchema.optional(),
});

/** Changes a re-plan makes at most. */
const MAX_CHANGES = 20;

/** One possible change of a spec. */
interface Proposal {
  spec: JobSpec;
  change: string;
}

/** An agent's p50 cost in dollars over every pattern, with its runs; undefined below MIN_RUNS. */
function p50Cost(stats: Map<string, AgentStats>, agent: string): { usd: number; runs: number } | undefined {
  const s = mergeStats([...(stats.get(agent)?.values() ?? [])]);
  if (s.runs < MIN_RUNS) return undefined;
  const v = quantile(s.hist.costMicros, 0.5);
  return v === undefined ? undefined : { usd: v / 1e6, runs: s.runs };
}

/** The agents that could take a task in place of its own: same capability (or every capability of the named one), params and scope accepted. */
function alternativesOf(task: TaskSpec, registry: AgentRegistry): string[] {
  const ref = task.agent;
  if (ref === undefined || task.role) return [];
  const current = agentsOfTask(task, registry);
  let pool;
  if (typeof ref === 'object' && 'capability' in ref) pool = registry.candidates(ref.capability);
  else if (current.length === 1 && current[0].manifest.capabilities.length > 0) {
    const need = current[0].manifest.capabilities;
    pool = registry.list().flatMap((m) => (need.every((c) => m.capabilities.includes(c)) ? [registry.get(m.id)!] : []));
  } else return [];
  return pool.filter((d) => refusal(d, task.params, task.scope) === undefined).map((d) => d.manifest.id);
}

/** Applies `f` to the job at `path` (task indexes into nested jobs) of `spec`, copying only what changes. */
function atJob(spec: JobSpec, path: number[], f: (job: JobSpec) => JobSpec): JobSpec {
  if (path.length === 0) return f(spec);
  const [i, ...rest] = path;
  const tasks = spec.tasks.slice();
  tasks[i] = { ...tasks[i], job: atJob(tasks[i].job!, rest, f) };
  return { ...spec, tasks };
}

/** Every single change that could lower the job's spend. */
function proposals(spec: JobSpec, registry: AgentRegistry, stats: Map<string, AgentStats>): Proposal[] {
  const out: Proposal[] = [];
  /** (from → to) agent swaps: the tasks they apply to, by job path. */
  const swaps = new Map<string, { from: string; to: string; why: string; tasks: { path: number[]; index: number }[] }>();
  const walk = (job: JobSpec, path: number[], label: string) => {
    // a vote keeps three voters (a majority can still form); fewer are never dropped
    if (job.pattern === 'vote' && job.tasks.length > 3) {
      out.push({
        spec: atJob(spec, path, (j) => ({ ...j, tasks: j.tasks.slice(0, -1) })),
        change: `${label}: ${job.tasks.length} → ${job.tasks.length - 1} voters (dropped ${job.tasks.at(-1)!.id})`,
      });
    }
    const quorum = job.aggregation?.quorum ?? (job.aggregation?.strategy === 'first_success' ? 1 : undefined);
    const width = job.maxParallel ?? job.tasks.length;
    if (job.pattern === 'fanout' && quorum !== undefined && width > quorum) {
      const lower = Math.max(quorum, Math.floor(width / 2));
      out.push({
        spec: atJob(spec, path, (j) => ({ ...j, maxParallel: lower })),
        change: `${label}: maxParallel ${job.maxParallel ?? `unset (${width})`} → ${lower}, so fewer tasks start before the quorum of ${quorum} is met`,
      });
    }
    job.tasks.forEach((t, index) => {
      if (t.job) return walk(t.job, [...path, index], `${label}.tasks[${index}] (${t.id})`);
      const current = agentsOfTask(t, registry);
      const from = current.length === 1 ? current[0].manifest.id : undefined;
      const fromCost = from ? p50Cost(stats, from) : undefined;
      for (const to of alternativesOf(t, registry)) {
        const toCost = p50Cost(stats, to);
        if (to === from || !toCost || (fromCost && toCost.usd >= fromCost.usd)) continue;
        const key = `${from ?? JSON.stringify(t.agent)}→${to}`;
        const why = `p50 $${toCost.usd.toFixed(4)} over ${toCost.runs} runs${fromCost ? ` against $${fromCost.usd.toFixed(4)} over ${fromCost.runs}` : ''}`;
        const swap = swaps.get(key) ?? { from: from ?? 'the capability', to, why, tasks: [] };
        swap.tasks.push({ path, index });
        swaps.set(key, swap);
      }
    });
  };
  walk(spec, [], 'job');
  for (const s of swaps.values()) {
    let next = spec;
    for (const { path, index } of s.tasks)
      next = atJob(next, path, (j) => ({ ...j, tasks: j.tasks.map((t, i) => (i === index ? { ...t, agent: s.to } : t)) }));
    const ids = s.tasks.slice(0, 5).map((t) => t.index);
    out.push({
      spec: next,
      change: `${s.tasks.length} task(s) (first at index ${ids.join(', ')}): agent ${s.from} → ${s.to}, the cheaper capable agent (${s.why})`,
    });
  }
  return out;
}

/** What admission decided, the spec to start and the forecast it rests on. */
export interface Admitted {
  spec: JobSpec;
  decision?: AdmissionDecision;
  forecast?: Estimate;
}

const pct = (p: number | null) => (p === null ? 'unknown' : `${(p * 100).toFixed(1)}%`);

/** The admission check of a submission (a job without `admission` passes untouched, with no forecast). */
export async function admit(forecaster: Forecaster, registry: AgentRegistry, tenant: string, spec: JobSpec): Promise<Admitted> {
  const a = spec.admission;
  if (!a) return { spec };
  const { mode, confidence } = a;
  // every agent's history (one query): re-planning may move tasks to any capable agent
  const stats = await forecaster.historyOfAgents(
    tenant,
    registry.list().map((m) => m.id),
  );
  const forecast = forecaster.estimateWith(spec, stats);
  const p = forecast.budgetSuffices;
  const decision = (d: AdmissionDecision['decision'], message: string, changes: string[] = [], prob = p): AdmissionDecision => ({
    mode,
    confidence,
    decision: d,
    budgetSuffices: prob,
    message,
    changes,
  });
  if (p === null)
    return {
      spec,
      forecast,
      decision: decision('admitted', `the forecast cannot tell whether the budget suffices: ${forecast.notes.join('; ')}`),
    };
  if (p >= confidence)
    return { spec, forecast, decision: decision('admitted', `the budget suffices with probability ${pct(p)} ≥ ${pct(confidence)}`) };
  const short = `the budget suffices with probability ${pct(p)}, below the ${pct(confidence)} asked`;
  if (mode === 'refuse') {
    const d = decision('refused', short);
    throw new HttpProblem(
      422,
      'Job cannot run',
      `admission control refused the job: ${short}`,
      [{ path: 'body.budget', message: short }],
      undefined,
      {
        forecast,
        admission: d,
      },
    );
  }
  if (mode === 'warn') return { spec, forecast, decision: decision('warned', `started anyway: ${short}`) };
  let current = spec;
  let best = forecast;
  const changes: string[] = [];
  while (changes.length < MAX_CHANGES && (best.budgetSuffices ?? 0) < confidence) {
    const scored = proposals(current, registry, stats).map((pr) => ({ pr, f: forecaster.estimateWith(pr.spec, stats) }));
    const top = scored.sort((x, y) => (y.f.budgetSuffices ?? 0) - (x.f.budgetSuffices ?? 0) || spendOf(x.f) - spendOf(y.f))[0];
    if (!top || ((top.f.budgetSuffices ?? 0) <= (best.budgetSuffices ?? 0) && spendOf(top.f) >= spendOf(best))) break;
    current = top.pr.spec;
    best = top.f;
    changes.push(top.pr.change);
  }
  const q = best.budgetSuffices;
  if (q !== null && q >= confidence)
    return {
      spec: current,
      forecast: best,
      decision: decision(
        'replanned',
        `re-planned with ${changes.length} change(s): the budget now suffices with probability ${pct(q)}`,
        changes,
        q,
      ),
    };
  const d = decision('refused', `${short}, and re-planning reached only ${pct(q)}`, changes, q);
  throw new HttpProblem(
    422,
    'Job cannot run',
    `admission control could not fit the job to its budget: ${d.message}${changes.length ? ` after ${changes.join('; ')}` : ' (nothing to change)'}`,
    [{ path: 'body.budget', message: d.message }],
    undefined,
    { forecast: best, admission: d },
  );
}

/** The job's p90 cost: the tie-break between changes of equal probability (the cheaper plan wins). */
function spendOf(f: Estimate): number {
  return f.job.predicted.costUsd.p90 ?? Infinity;
}
