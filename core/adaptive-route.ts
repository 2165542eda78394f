/**
 * Adaptive capability routing: picks among a capability's agents by their measured quality
 * (success rate, cost, latency from the record), weighted as the task asks, by Thompson
 * sampling. Pure: the caller hands in the history and the random source.
 *
 *   per agent: success θ ~ Beta(1 + successes + ½ partials, 1 + failures + ½ partials)
 *              cost, latency: the history's mean, shrunk toward the pool's and jittered by ±σ/√(n+1)
 *   utility  = w.success · θ − w.cost · cost / max cost − w.latency · latency / max latency  ──> highest wins
 *
 * Why Thompson sampling and not UCB: the record learns only when a job is archived, so a
 * fan-out of 100 tasks is routed on the same history. UCB is deterministic and would send
 * all 100 to one agent; a posterior draw per task spreads them over the agents in proportion
 * to their chance of being best, which explores a new agent without a tuned constant and
 * still sends nearly everything to a clearly better one.
 */
import { meanOf, type TaskStats } from './forecast-sketch';

/** How a task weighs the three measures. */
export interface RouteWeights {
  /** @default 1 */
  success?: number;
  /** @default 0.5 */
  cost?: number;
  /** @default 0.25 */
  latency?: number;
}

/** Default weights: success matters most, then cost, then latency. */
export const DEFAULT_ROUTE_WEIGHTS: Required<RouteWeights> = { success: 1, cost: 0.5, latency: 0.25 };

/** One agent that may take the task, and its history (absent: none yet). */
export interface AdaptiveCandidate {
  agent: string;
  stats?: TaskStats;
}

/** One candidate's draw. */
export interface AdaptiveScore {
  agent: string;
  runs: number;
  successRate: number | null;
  meanCostUsd: number | null;
  meanLatencySeconds: number | null;
  /** The draw's success, cost and latency, and the utility they make. */
  theta: number;
  utility: number;
}

/** A Gamma(k, 1) draw for k ≥ 1 (Marsaglia–Tsang), from uniform draws. */
function gamma(k: number, rnd: () => number): number {
  const d = k - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal(rnd);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = rnd();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

/** A standard normal draw (Box–Muller). */
function normal(rnd: () => number): number {
  const u = Math.max(rnd(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rnd());
}

/** A Beta(a, b) draw, a, b ≥ 1. */
export function betaDraw(a: number, b: number, rnd: () => number): number {
  const x = gamma(a, rnd);
  return x / (x + gamma(b, rnd));
}

/** Prior weight (in runs) of the pool's mean in an agent's cost and latency estimate. */
const SHRINK_RUNS = 2;
/** Relative spread of the cost and latency draw of an agent with no runs. */
const SPREAD = 0.5;

/** Scores every candidate with one posterior draw each; the first of the result is the pick. */
export function scoreAdaptive(candidates: AdaptiveCandidate[], weights: RouteWeights, rnd: () => number): AdaptiveScore[] {
  const w = { ...DEFAULT_ROUTE_WEIGHTS, ...weights };
  const measured = candidates.map((c) => {
    const s = c.stats;
    const runs = s?.runs ?? 0;
    return {
      agent: c.agent,
      runs,
      s,
      cost: runs > 0 ? meanOf(s!.hist.costMicros) / 1e6 : null,
      latency: runs > 0 ? meanOf(s!.hist.latencyMs) / 1e3 : null,
    };
  });
  const poolMean = (k: 'cost' | 'latency') => {
    const known = measured.filter((m) => m[k] !== null);
    return known.length ? known.reduce((a, m) => a + m[k]!, 0) / known.length : 0;
  };
  const pool = { cost: poolMean('cost'), latency: poolMean('latency') };
  const drawn = measured.map((m) => {
    const s = m.s;
    const half = (s?.partial ?? 0) / 2;
    const theta = betaDraw(1 + (s?.success ?? 0) + half, 1 + (s?.failure ?? 0) + half, rnd);
    const jitter = () => Math.exp((SPREAD / Math.sqrt(m.runs + 1)) * normal(rnd));
    const est = (k: 'cost' | 'latency') => (((m[k] ?? 0) * m.runs + pool[k] * SHRINK_RUNS) / (m.runs + SHRINK_RUNS)) * jitter();
    return { m, theta, cost: est('cost'), latency: est('latency') };
  });
  const maxCost = Math.max(...drawn.map((d) => d.cost), 1e-12);
  const maxLatency = Math.max(...drawn.map((d) => d.latency), 1e-12);
  return drawn
    .map((d): AdaptiveScore => ({
      agent: d.m.agent,
      runs: d.m.runs,
      successRate: d.m.runs > 0 ? d.m.s!.success / d.m.runs : null,
      meanCostUsd: d.m.cost,
      meanLatencySeconds: d.m.latency,
      theta: d.theta,
      utility: w.success * d.theta - w.cost * (d.cost / maxCost) - w.latency * (d.latency / maxLatency),
    }))
    .sort((a, b) => b.utility - a.utility || a.agent.localeCompare(b.agent));
}

const fmt = (v: number | null, unit: string, digits: number) =>
  v === null ? `no ${unit}` : `${unit === '$' ? '$' : ''}${v.toFixed(digits)}${unit === 's' ? ' s' : ''}`;

/** One candidate as a reason shows it. */
function describe(s: AdaptiveScore): string {
  if (s.runs === 0) return `${s.agent} untried (draw ${s.utility.toFixed(2)})`;
  return `${s.agent} ${s.utility.toFixed(2)} (success ${((s.successRate ?? 0) * 100).toFixed(0)}% of ${s.runs}, ${fmt(s.meanCostUsd, '$', 4)}, ${fmt(s.meanLatencySeconds, 's', 2)})`;
}

/** Picks one agent; the reason names its draw, its history and what it beat. */
export function pickAdaptive(
  candidates: AdaptiveCandidate[],
  weights: RouteWeights,
  rnd: () => number,
): { agent: string; reason: string; scores: AdaptiveScore[] } {
  if (candidates.length === 0) throw new Error('pickAdaptive: no candidates');
  const scores = scoreAdaptive(candidates, weights, rnd);
  const w = { ...DEFAULT_ROUTE_WEIGHTS, ...weights };
  const [pick, ...rest] = scores;
  const reason = [
    `adaptive (Thompson sampling; weights success ${w.success}, cost ${w.cost}, latency ${w.latency}): ${describe(pick)}`,
    ...(rest.length ? [`over ${rest.map(describe).join(', ')}`] : []),
  ].join('; ');
  return { agent: pick.agent, reason, scores };
}
