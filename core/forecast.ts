/**
 * The forecast of a job before it runs: each task's spend and duration from its agent's
 * history (histogram quantiles, exact to the bins), the job's by Monte Carlo over the plan
 * (seeded, so one spec always gets one answer), and how likely every budget in it holds.
 *
 *   task ──history──> quantiles per axis          (no history: the agent's manifest limits, and it says so)
 *   job  ──N samples: draw every task, compose──> quantiles, P(budget suffices)
 *          fanout, vote: spend sums; duration the makespan of the tasks on `maxParallel` slots (all at once by default)
 *          root: no shorter than its steps on a provider with a declared rate take to go out at that rate
 *          fanout with a quorum: stops at the quorum-th success; tasks not started by then spend nothing,
 *                        running ones their share so far (so a lower maxParallel wastes less)
 *          pipeline:     spend sums; duration sums
 *          nested job:   one more node, composed the same way (its own budget checked too)
 *          ladder:       a task starting after the tasks settled before it spent the threshold's share of the
 *                        budget draws from the cheaper agent its job's ladder would start it on
 * Axes are drawn independently (the record keeps marginal histograms), so the probability over
 * several capped axes is a little conservative. Pure; the plan's types in forecast-plan.ts.
 */
import { quantile, samplerOf } from './forecast-sketch';
import { DEFAULT_HEDGE_AFTER_P, type HedgeSpec } from './hedge';
import {
  AXIS_INDEX,
  BUDGET_KEYS,
  countTasks,
  FORECAST_AXES,
  fits,
  hasHistory,
  shiftedAt,
  SOURCE,
  taskQuantiles,
  type Forecast,
  type ForecastAxis,
  type ForecastOptions,
  type JobPlan,
  type NodeForecast,
  type PlanNode,
  type Quantiles,
  type TaskPlan,
} from './forecast-plan';
import { makespan, quorumCut, seededRng } from './forecast-schedule';

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** Forecasts a plan: every task from its history, the jobs by `samples` seeded draws. */
export function forecastPlan(root: JobPlan, opts: ForecastOptions = {}): Forecast {
  const tasks = countTasks(root);
  const samples = opts.samples ?? Math.max(200, Math.min(1000, Math.floor(2_000_000 / Math.max(1, tasks))));
  const rng = seededRng(opts.seed ?? 1);
  const width = FORECAST_AXES.length;
  /** Per job node (by object): its samples, one vector each; per node with a budget: samples where it held. */
  const jobSamples = new Map<JobPlan, Float64Array>();
  const held = new Map<PlanNode, number>();
  const samplers = new Map<TaskPlan, ((u: number) => number)[]>();
  const samplerOfTask = (t: TaskPlan) => {
    let s = samplers.get(t);
    if (!s) {
      s = FORECAST_AXES.map((axis) => {
        if (!hasHistory(t)) {
          const v = t.limits[axis] ?? Number.NaN;
          return () => v;
        }
        const { metric, scale } = SOURCE[axis];
        const draw = samplerOf(t.stats!.hist[metric]);
        return (u: number) => draw(u) * scale;
      });
      samplers.set(t, s);
    }
    return s;
  };
  const rootHeld = { n: 0 };
  const byAxisHeld: Record<string, number> = {};

  /** Per provider, the steps this draw sends it (the root's duration is at least their dispatch at its rate). */
  const paced = new Map<string, { steps: number; perSecond: number }>();
  /** One draw of a node into `out`; whether every budget inside it held, and whether it succeeded. */
  function draw(node: PlanNode, out: Float64Array, at: number): { ok: boolean; success: boolean } {
    if (node.kind === 'task') {
      const s = samplerOfTask(node);
      let uLatency = 0;
      for (let i = 0; i < width; i++) {
        const u = rng();
        if (i === AXIS_INDEX.latencySeconds) uLatency = u;
        out[i] = s[i](u);
      }
      if (node.hedge && hasHistory(node)) addHedges(node, node.hedge, out, s, uLatency);
      if (node.selfShift && node.budget && hasHistory(node.selfShift.to)) shiftSteps(node, out);
      if (node.provider) {
        const p = paced.get(node.provider.id) ?? { steps: 0, perSecond: node.provider.stepsPerSecond };
        p.steps += Number.isNaN(out[AXIS_INDEX.steps]) ? 1 : out[AXIS_INDEX.steps];
        paced.set(node.provider.id, p);
      }
      const st = node.stats;
      const success = !st || st.runs === 0 || rng() < st.success / st.runs;
      const ok = fits(out, node.budget);
      if (node.budget && ok) held.set(node, (held.get(node) ?? 0) + 1);
      return { ok, success };
    }
    let ok = true;
    const vectors = node.children.map(() => new Float64Array(width));
    const successes: boolean[] = [];
    // a ladder: what the children settled before each one's start spent (on maxParallel slots, in order)
    const settled = node.downshiftAt !== undefined ? { sum: new Float64Array(width), upTo: -1 } : undefined;
    const slotsNow = node.maxParallel ?? node.children.length;
    node.children.forEach((c, i) => {
      if (settled) while (settled.upTo < i - slotsNow) vectors[++settled.upTo].forEach((v, k) => (settled.sum[k] += v));
      const r = draw((settled && shiftedAt(node, c, settled.sum)) || c, vectors[i], at);
      if (!r.ok) ok = false;
      successes.push(r.success);
    });
    const lat = AXIS_INDEX.latencySeconds;
    const durations = vectors.map((v) => v[lat]);
    const slots = node.maxParallel ?? durations.length;
    let share: number[] | undefined;
    let duration: number;
    if (node.pattern === 'pipeline') duration = durations.reduce((a, d) => a + d, 0);
    else if (node.pattern === 'fanout' && node.quorum !== undefined) {
      const cut = quorumCut(durations, successes, slots, node.quorum);
      share = cut.share;
      duration = cut.duration;
    } else duration = makespan(durations, slots);
    // a declared provider rate: the whole job cannot end before its steps on the provider went out
    if (node === root) for (const p of paced.values()) duration = Math.max(duration, p.steps / p.perSecond);
    const acc = new Float64Array(width);
    vectors.forEach((v, k) => {
      for (let i = 0; i < width; i++) if (i !== lat) acc[i] += v[i] * (share ? share[k] : 1);
    });
    acc[lat] = duration;
    out.set(acc, 0);
    let store = jobSamples.get(node);
    if (!store) jobSamples.set(node, (store = new Float64Array(samples * width)));
    store.set(acc, at * width);
    const own = fits(acc, node.budget);
    if (node.budget && own) held.set(node, (held.get(node) ?? 0) + 1);
    const wins = successes.filter(Boolean).length;
    return { ok: ok && own, success: node.pattern === 'pipeline' ? wins === successes.length : wins > 0 };
  }

  /**
   * A drawn run of a hedged task, its latency drawn at `uLatency` of its distribution: past the
   * afterP quantile its steps hedge (as the subtask reads them: the task's latency over its steps),
   * each costing one more step (as many as maxExtraCost pays) and ending at the earlier of itself
   * and the delay (the quantile's step) plus another draw of a step.
   */
  function addHedges(node: TaskPlan, spec: HedgeSpec, out: Float64Array, s: ((u: number) => number)[], uLatency: number): void {
    const afterP = spec.afterP ?? DEFAULT_HEDGE_AFTER_P;
    if (uLatency <= afterP) return;
    const steps = Math.max(1, out[AXIS_INDEX.steps]);
    const stepCost = out[AXIS_INDEX.costUsd] / steps;
    const n = Math.max(1, Math.round(steps));
    const hedges = stepCost > 0 ? Math.min(n, Math.floor((spec.maxExtraCost + 1e-12) / stepCost)) : n;
    if (hedges <= 0) return;
    const lat = AXIS_INDEX.latencySeconds;
    const step = out[lat] / steps;
    const { metric, scale } = SOURCE.latencySeconds;
    const delay = (quantile(node.stats!.hist[metric], afterP) ?? Number.NaN) * scale;
    const hedged = Math.min(step, (delay + s[lat](rng())) / steps);
    if (!Number.isNaN(hedged)) out[lat] -= hedges * (step - hedged);
    out[AXIS_INDEX.costUsd] += hedges * stepCost;
    out[AXIS_INDEX.tokens] += (hedges * out[AXIS_INDEX.tokens]) / steps;
  }

  /** A drawn run of a task with its own ladder: its steps after the one that passed the threshold of its budget at the cheaper agent's figures per step. */
  function shiftSteps(node: TaskPlan, out: Float64Array): void {
    const { at, to } = node.selfShift!;
    const n = Math.max(1, Math.round(out[AXIS_INDEX.steps]));
    let k = n;
    for (const axis of ['costUsd', 'tokens', 'toolCalls'] as const) {
      const cap = node.budget![axis];
      const per = out[AXIS_INDEX[axis]] / n;
      if (cap !== undefined && per > 0) k = Math.min(k, Math.max(1, Math.ceil((at * cap) / per)));
    }
    if (k >= n) return;
    const s = samplerOfTask(to);
    const v = FORECAST_AXES.map((_, i) => s[i](rng()));
    const vSteps = Math.max(1, v[AXIS_INDEX.steps]);
    for (let i = 0; i < width; i++) if (i !== AXIS_INDEX.steps) out[i] = (out[i] / n) * k + ((n - k) * v[i]) / vSteps;
  }

  const scratch = new Float64Array(width);
  for (let k = 0; k < samples; k++) {
    paced.clear();
    if (draw(root, scratch, k).ok) rootHeld.n++;
    for (const axis of BUDGET_KEYS) {
      const cap = root.budget?.[axis];
      if (cap !== undefined && scratch[AXIS_INDEX[axis]] <= cap * (1 + 1e-9)) byAxisHeld[axis] = (byAxisHeld[axis] ?? 0) + 1;
    }
  }

  const notes: string[] = [];
  /** The axes some task leaves unknown (no history, no limit), with the first such tasks. */
  const unknownAxes = new Map<ForecastAxis, string[]>();
  const walk = (n: PlanNode) => {
    if (n.kind === 'job') return n.children.forEach(walk);
    if (hasHistory(n)) return;
    for (const axis of FORECAST_AXES)
      if (n.limits[axis] === undefined) unknownAxes.set(axis, [...(unknownAxes.get(axis) ?? []), n.id].slice(0, 5));
  };
  walk(root);

  const budgetedAxes = new Set<ForecastAxis>();
  const collectBudgets = (n: PlanNode) => {
    for (const k of BUDGET_KEYS) if (n.budget?.[k] !== undefined) budgetedAxes.add(k);
    if (n.kind === 'job') n.children.forEach(collectBudgets);
  };
  collectBudgets(root);
  const blind = [...budgetedAxes].filter((a) => unknownAxes.has(a));
  for (const a of blind)
    notes.push(`${a} is capped but tasks ${unknownAxes.get(a)!.join(', ')} have no history and no limit on it: the chance cannot be told`);
  if (budgetedAxes.size === 0) notes.push('no budget in the job: nothing can run short');
  const hedged: string[] = [];
  const findHedged = (n: PlanNode) => (n.kind === 'job' ? n.children.forEach(findHedged) : n.hedge && hedged.push(n.id));
  findHedged(root);
  if (hedged.length > 0)
    notes.push(
      `task(s) ${hedged.slice(0, 5).join(', ')}${hedged.length > 5 ? ` and ${hedged.length - 5} more` : ''} hedge their steps: each step past its latency quantile costs one more, up to maxExtraCost, and ends sooner; the spend and the latency count both`,
    );
  const providers = new Map<string, { tasks: number; perSecond: number }>();
  const countPaced = (n: PlanNode) => {
    if (n.kind === 'job') return n.children.forEach(countPaced);
    if (!n.provider) return;
    const p = providers.get(n.provider.id) ?? { tasks: 0, perSecond: n.provider.stepsPerSecond };
    providers.set(n.provider.id, { ...p, tasks: p.tasks + 1 });
  };
  countPaced(root);
  for (const [id, p] of providers)
    notes.push(
      `provider ${id} takes ${round3(p.perSecond)} steps/s: the job's ${p.tasks} task(s) on it need at least ${round3(p.tasks / p.perSecond)} s (one step each)`,
    );

  const nodeForecast = (n: PlanNode): NodeForecast => {
    const budgetSuffices =
      n.budget === undefined
        ? undefined
        : BUDGET_KEYS.some((k) => n.budget![k] !== undefined && unknownAxes.has(k))
          ? null
          : (held.get(n) ?? 0) / samples;
    if (n.kind === 'task') {
      const st = n.stats;
      return {
        id: n.id,
        kind: 'task',
        agent: n.agent,
        runs: st?.runs ?? 0,
        // a cached task's figures are known, not fallen back on
        history: hasHistory(n) || n.cachedFrom !== undefined,
        basis: n.basis,
        ...(n.cachedFrom !== undefined ? { cachedFrom: n.cachedFrom } : {}),
        ...(st && st.runs > 0 ? { successRate: st.success / st.runs } : {}),
        predicted: taskQuantiles(n),
        ...(budgetSuffices !== undefined ? { budgetSuffices } : {}),
      };
    }
    const children = n.children.map(nodeForecast);
    const store = jobSamples.get(n)!;
    const predicted = {} as Record<ForecastAxis, Quantiles>;
    FORECAST_AXES.forEach((axis, i) => {
      const col = Float64Array.from({ length: samples }, (_, k) => store[k * width + i]);
      if (col.some((v) => Number.isNaN(v))) return void (predicted[axis] = { p50: null, p90: null });
      col.sort();
      const at = (q: number) => col[Math.min(samples - 1, Math.max(0, Math.ceil(q * samples) - 1))];
      predicted[axis] = { p50: at(0.5), p90: at(0.9) };
    });
    const withHistory = children.filter((c) => c.runs > 0);
    // served from the cache, a task rests on no runs: the job's fewest are its other tasks'
    const ran = children.filter((c) => c.cachedFrom === undefined);
    return {
      id: n.id,
      kind: 'job',
      runs: ran.length ? ran.reduce((m, c) => Math.min(m, c.runs), Infinity) : 0,
      history: children.every((c) => c.history),
      basis: `${n.pattern} of ${n.children.length}: ${withHistory.length} with history`,
      predicted,
      ...(budgetSuffices !== undefined ? { budgetSuffices } : {}),
      children,
    };
  };

  const byAxis: Forecast['byAxis'] = {};
  for (const axis of BUDGET_KEYS)
    if (root.budget?.[axis] !== undefined) byAxis[axis] = unknownAxes.has(axis) ? null : (byAxisHeld[axis] ?? 0) / samples;
  return {
    job: nodeForecast(root),
    budgetSuffices: blind.length > 0 ? null : rootHeld.n / samples,
    byAxis,
    notes,
    samples,
  };
}
