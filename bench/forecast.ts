/**
 * Foresight from the record, over 1,000 simulated jobs with agents of known cost and quality,
 * in one run. A pure simulation of the record's statistics (the same bins, core/forecast-sketch.ts),
 * the estimator (core/forecast.ts, through api/forecast.ts's plan) and the routers (adaptive,
 * BM25 over the agents' manifests, load with equal queues): no server, no Temporal, so the
 * figures measure the estimator and the router, not the engine.
 *
 *   calibration pass: each job's tasks name agents at random; forecast from the history so far,
 *                     then the job "runs" (true distributions); how often actual ≤ p90, and how
 *                     the predicted P(budget suffices) compares with how often it did
 *   routing passes:   the same jobs with { capability } tasks, routed adaptive | bm25 | load; each
 *                     learns only from its own outcomes; regret against always the best agent
 *
 * `npx tsx bench/forecast.ts` (BENCH_JOBS to change the 1,000).
 */
import { createAgentRegistry, createLoadRouter } from '../activities';
import { createSimAgent } from '../activities/agents/sim';
import type { AgentStats } from '../record';
import type { JobSpec, Pattern, TaskSpec } from '../schemas';
import { addBin, binsOf, emptyStats, mergeStats } from '../core/forecast-sketch';
import { DEFAULT_ROUTE_WEIGHTS, pickAdaptive } from '../core/adaptive-route';
import { forecastPlan } from '../core/forecast';
import { makespan, seededRng } from '../core/forecast-schedule';
import { planOf } from '../api/forecast';
import { report, round } from './lib';

const JOBS = Number(process.env.BENCH_JOBS ?? 1000);
const CAPABILITY = 'summarize';

/** The agents, their truth: log-normal cost and latency (median, spread), and quality. */
const TRUTH = {
  'sim-quick': {
    costUsd: 0.02,
    latencyS: 2,
    sigma: 0.5,
    success: 0.85,
    description: 'Summarizes documents quickly: short summaries of any text.',
  },
  'sim-cheap': { costUsd: 0.006, latencyS: 1.5, sigma: 0.6, success: 0.55, description: 'Cheap summaries of short texts and notes.' },
  'sim-careful': {
    costUsd: 0.05,
    latencyS: 6,
    sigma: 0.4,
    success: 0.97,
    description: 'Careful, thorough summaries of long reports, papers and contracts.',
  },
} as const;
type AgentId = keyof typeof TRUTH;
const AGENTS = Object.keys(TRUTH) as AgentId[];
const QUESTIONS = [
  'Summarize this quarterly report for the board',
  'Give a short summary of these meeting notes',
  'Summarize the contract and its termination clauses',
  'Summarize the paper on retrieval augmented generation',
  'Quick summary of a product review',
];

const registry = createAgentRegistry(
  AGENTS.map((id) => createSimAgent({ id, capabilities: [CAPABILITY], description: TRUTH[id].description }) as never),
);
const rnd = seededRng(2026);
const lognormal = (median: number, sigma: number) =>
  median * Math.exp(sigma * Math.sqrt(-2 * Math.log(Math.max(rnd(), 1e-12))) * Math.cos(2 * Math.PI * rnd()));

/** One task's run: what it spent, how long, how it ended. */
function runTask(agent: AgentId) {
  const t = TRUTH[agent];
  return { costUsd: lognormal(t.costUsd, t.sigma), latencyS: lognormal(t.latencyS, t.sigma), ok: rnd() < t.success };
}

/** The in-memory record of one pass: exactly the bins the record's task_stats keep. */
function memoryRecord() {
  const stats = new Map<string, AgentStats>();
  return {
    stats,
    add(agent: string, pattern: Pattern, r: ReturnType<typeof runTask>) {
      let byPattern = stats.get(agent);
      if (!byPattern) stats.set(agent, (byPattern = new Map()));
      let s = byPattern.get(pattern);
      if (!s) byPattern.set(pattern, (s = emptyStats()));
      const values = { costMicros: Math.round(r.costUsd * 1e6), tokens: 0, toolCalls: 0, steps: 1, latencyMs: r.latencyS * 1000 };
      for (const { metric, bin } of binsOf({ status: r.ok ? 'success' : 'failure', values })) addBin(s, metric, bin, 1);
    },
  };
}

/** The jobs, the same for every pass: pattern, width, questions, budget factor. */
const jobs = Array.from({ length: JOBS }, (_, j) => {
  const pattern = (['fanout', 'pipeline', 'vote'] as const)[j % 3];
  const n =
    pattern === 'fanout' ? 2 + Math.floor(rnd() * 7) : pattern === 'pipeline' ? 2 + Math.floor(rnd() * 3) : 3 + Math.floor(rnd() * 3);
  return {
    pattern,
    questions: Array.from({ length: n }, () => QUESTIONS[Math.floor(rnd() * QUESTIONS.length)]),
    named: Array.from({ length: n }, () => AGENTS[Math.floor(rnd() * AGENTS.length)]),
    budgetFactor: 0.6 + rnd() * 1.2,
  };
});

/** Cost and duration of a job from its tasks' runs, as the patterns compose them. */
function compose(pattern: Pattern, runs: ReturnType<typeof runTask>[]) {
  const cost = runs.reduce((a, r) => a + r.costUsd, 0);
  const durations = runs.map((r) => r.latencyS);
  return { cost, duration: pattern === 'pipeline' ? durations.reduce((a, d) => a + d, 0) : makespan(durations, durations.length) };
}

// ---- calibration pass -------------------------------------------------------------------
const cal = memoryRecord();
let scored = 0;
let costUnderP90 = 0;
let durationUnderP90 = 0;
let costUnderP50 = 0;
const reliability = Array.from({ length: 5 }, () => ({ predicted: 0, held: 0, jobs: 0 }));
let brier = 0;
const WARMUP = 30;
for (const [j, job] of jobs.entries()) {
  const meanCost = job.named.reduce((a, id) => a + TRUTH[id].costUsd * Math.exp(TRUTH[id].sigma ** 2 / 2), 0);
  const budget = { costUsd: Math.round(meanCost * job.budgetFactor * 1e6) / 1e6 };
  const spec: JobSpec = {
    pattern: job.pattern,
    budget,
    tasks: job.named.map((agent, k): TaskSpec => ({ id: `t${k}`, question: job.questions[k], agent })),
  } as JobSpec;
  const f = j >= WARMUP ? forecastPlan(planOf(spec, registry, cal.stats, 30), { seed: j }) : undefined;
  const runs = job.named.map((agent) => runTask(agent));
  const actual = compose(job.pattern, runs);
  if (f && f.job.history && f.budgetSuffices !== null) {
    scored++;
    const p = f.job.predicted;
    if (actual.cost <= p.costUsd.p90!) costUnderP90++;
    if (actual.cost <= p.costUsd.p50!) costUnderP50++;
    if (actual.duration <= p.latencySeconds.p90!) durationUnderP90++;
    const held = actual.cost <= budget.costUsd ? 1 : 0;
    brier += (f.budgetSuffices - held) ** 2;
    const bin = reliability[Math.min(4, Math.floor(f.budgetSuffices * 5))];
    bin.jobs++;
    bin.predicted += f.budgetSuffices;
    bin.held += held;
  }
  job.named.forEach((agent, k) => cal.add(agent, job.pattern, runs[k]));
}

// ---- routing passes ---------------------------------------------------------------------
const w = DEFAULT_ROUTE_WEIGHTS;
const meanOf = (id: AgentId) => ({
  cost: TRUTH[id].costUsd * Math.exp(TRUTH[id].sigma ** 2 / 2),
  latency: TRUTH[id].latencyS * Math.exp(TRUTH[id].sigma ** 2 / 2),
});
const maxCost = Math.max(...AGENTS.map((a) => meanOf(a).cost));
const maxLatency = Math.max(...AGENTS.map((a) => meanOf(a).latency));
/** The expected utility of one task on an agent, by the same weights adaptive routing uses. */
const utility = (id: AgentId) =>
  w.success * TRUTH[id].success - w.cost * (meanOf(id).cost / maxCost) - w.latency * (meanOf(id).latency / maxLatency);
const best = AGENTS.reduce((a, b) => (utility(b) > utility(a) ? b : a));

type Policy = 'adaptive' | 'bm25' | 'load' | 'best';
const loadRouter = createLoadRouter({
  describe: async () => ({ backlog: 0, pollersLastPolled: [Date.now()], addRate: 0, dispatchRate: 0 }),
  slotsOf: () => 10,
});

async function routingPass(policy: Policy) {
  const rec = memoryRecord();
  const routeRnd = seededRng(7);
  let tasks = 0;
  let successes = 0;
  let cost = 0;
  let regret = 0;
  const regretByDecile = Array.from({ length: 10 }, () => 0);
  const picks = new Map<string, number>();
  for (const [j, job] of jobs.entries()) {
    const chosen: AgentId[] = [];
    for (const q of job.questions) {
      let agent: AgentId;
      if (policy === 'best') agent = best;
      else if (policy === 'adaptive') {
        const candidates = AGENTS.map((a) => {
          const s = rec.stats.get(a);
          return s ? { agent: a, stats: mergeStats([...s.values()]) } : { agent: a };
        });
        agent = pickAdaptive(candidates, {}, routeRnd).agent as AgentId;
      } else if (policy === 'bm25') agent = (registry.semantic.routeLexical(q).id as AgentId | undefined) ?? AGENTS[0];
      else
        agent = (await loadRouter.route({ capability: CAPABILITY, lane: 'lane', candidates: AGENTS.map((a) => ({ agent: a })) }))
          .agent as AgentId;
      chosen.push(agent);
    }
    // the whole job is routed before any of its results is known (the record learns at archive)
    const runs = chosen.map((a) => runTask(a));
    chosen.forEach((a, k) => {
      tasks++;
      picks.set(a, (picks.get(a) ?? 0) + 1);
      if (runs[k].ok) successes++;
      cost += runs[k].costUsd;
      const r = utility(best) - utility(a);
      regret += r;
      regretByDecile[Math.floor((j * 10) / jobs.length)] += r;
      rec.add(a, job.pattern, runs[k]);
    });
  }
  return { policy, tasks, successRate: successes / tasks, cost, regret, regretByDecile, picks: Object.fromEntries(picks) };
}

const started = Date.now();
const passes: Awaited<ReturnType<typeof routingPass>>[] = [];
for (const p of ['best', 'adaptive', 'bm25', 'load'] as const) passes.push(await routingPass(p));
const byPolicy = Object.fromEntries(passes.map((p) => [p.policy, p]));
const meanUtility = (p: (typeof passes)[number]) => utility(best) - p.regret / p.tasks;

const rows: (string | number)[][] = [
  ['calibration: jobs scored (history on every task, after a warm-up of 30)', scored],
  ['calibration: actual cost ≤ p90 (target 90%)', `${round((100 * costUnderP90) / scored)}%`],
  ['calibration: actual cost ≤ p50 (target 50%)', `${round((100 * costUnderP50) / scored)}%`],
  ['calibration: actual duration ≤ p90 (target 90%)', `${round((100 * durationUnderP90) / scored)}%`],
  ['calibration: Brier score of P(budget suffices) (0 best, 0.25 a coin)', round(brier / scored, 3)],
  ...reliability
    .filter((b) => b.jobs > 0)
    .map((b, i) => [
      `  P(budget) bin ${i}: predicted → held (${b.jobs} jobs)`,
      `${round((100 * b.predicted) / b.jobs)}% → ${round((100 * b.held) / b.jobs)}%`,
    ]),
  [`routing: always-best agent (${best}) utility per task`, round(utility(best), 3)],
  ...passes
    .filter((p) => p.policy !== 'best')
    .map((p) => [
      `routing: ${p.policy}: regret per task (total ${round(p.regret, 1)} over ${p.tasks} tasks)`,
      round(p.regret / p.tasks, 4),
    ]),
  [
    'routing: adaptive regret per task, first 10% of jobs → last 10%',
    `${round(byPolicy.adaptive.regretByDecile[0] / (byPolicy.adaptive.tasks / 10), 4)} → ${round(byPolicy.adaptive.regretByDecile[9] / (byPolicy.adaptive.tasks / 10), 4)}`,
  ],
  ['routing: adaptive gain in utility per task over bm25', round(meanUtility(byPolicy.adaptive) - meanUtility(byPolicy.bm25), 4)],
  ['routing: adaptive gain in utility per task over load', round(meanUtility(byPolicy.adaptive) - meanUtility(byPolicy.load), 4)],
  ...passes.map((p) => [
    `routing: ${p.policy}: success rate, cost per task, picks`,
    `${round(100 * p.successRate)}%, $${round(p.cost / p.tasks, 4)}, ${JSON.stringify(p.picks)}`,
  ]),
];
report(
  'forecast',
  `Forecast and adaptive routing over ${JOBS} simulated jobs (pure simulation, ${Date.now() - started} ms of routing)`,
  ['figure', 'value'],
  rows,
  {
    jobs: JOBS,
    truth: TRUTH,
    best,
    calibration: { scored, costUnderP90, costUnderP50, durationUnderP90, brier: brier / scored, reliability },
    routing: passes,
  },
);
