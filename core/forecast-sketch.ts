/**
 * The record's task statistics as fixed logarithmic histograms (DDSketch's bins with a fixed
 * γ): one bin count per (metric, bin). Fixed bins merge by addition, so a day's bucket is
 * kept by additive upserts on either store (no read-modify-write, no lost update between two
 * PostgreSQL archives), and a sliding window is the sum of its days' buckets. A quantile read
 * from the bins is within ±(γ−1)/(γ+1) ≈ 8.6% of the true value, whatever the distribution;
 * a t-digest or a reservoir would need its whole state read, merged and written back.
 *
 *   value v ──binOf──> bin b (v ≤ γ^(b−1)) ──count++──> histogram ──quantile(q)──> representative of the bin
 * Pure.
 */

/** What the record counts of each finished subtask; `outcome` bins are 0 success, 1 partial, 2 failure. */
export const STAT_METRICS = ['costMicros', 'tokens', 'toolCalls', 'steps', 'latencyMs', 'outcome'] as const;
/** One metric of the task statistics. */
export type StatMetric = (typeof STAT_METRICS)[number];
/** The metrics kept as value histograms (all but `outcome`). */
export const VALUE_METRICS = STAT_METRICS.filter((m) => m !== 'outcome') as Exclude<StatMetric, 'outcome'>[];
/** A value metric. */
export type ValueMetric = (typeof VALUE_METRICS)[number];

/** Growth of one bin over the last: 2^(1/4), so a bin's representative is within 8.6% of any value in it. */
export const GAMMA = 2 ** 0.25;
const LOG_GAMMA = Math.log(GAMMA);

/** Outcome bins. */
export const OUTCOME_BIN = { success: 0, partial: 1, failure: 2 } as const;

/** Counts per bin. */
export type Histogram = Map<number, number>;

/** The bin of a value: 0 holds values under 0.5 (zero), 1 holds (0.5, 1], bin b ≥ 2 holds (γ^(b−2), γ^(b−1)]. */
export function binOf(v: number): number {
  if (!(v >= 0.5)) return 0;
  if (v <= 1) return 1;
  // the epsilon keeps exact powers of γ in their own bin despite float error
  return 1 + Math.ceil(Math.log(v) / LOG_GAMMA - 1e-9);
}

/** The value a bin stands for: the point of least relative error to both its edges. */
export function binValue(b: number): number {
  if (b <= 0) return 0;
  if (b === 1) return 1;
  return (2 * GAMMA ** (b - 1)) / (1 + GAMMA);
}

/** One task's stats over a window: runs and outcomes, and a histogram per value metric. */
export interface TaskStats {
  runs: number;
  success: number;
  partial: number;
  failure: number;
  hist: Record<ValueMetric, Histogram>;
}

/** Stats with nothing in them. */
export function emptyStats(): TaskStats {
  return {
    runs: 0,
    success: 0,
    partial: 0,
    failure: 0,
    hist: Object.fromEntries(VALUE_METRICS.map((m) => [m, new Map()])) as Record<ValueMetric, Histogram>,
  };
}

/** Adds `n` runs at bin `bin` of `metric` (outcome bins count runs). */
export function addBin(s: TaskStats, metric: StatMetric, bin: number, n: number): void {
  if (metric === 'outcome') {
    s.runs += n;
    if (bin === OUTCOME_BIN.success) s.success += n;
    else if (bin === OUTCOME_BIN.partial) s.partial += n;
    else s.failure += n;
    return;
  }
  const h = s.hist[metric];
  h.set(bin, (h.get(bin) ?? 0) + n);
}

/** The sum of stats (an agent's over several patterns, a capability's over its agents). */
export function mergeStats(list: TaskStats[]): TaskStats {
  const out = emptyStats();
  for (const s of list) {
    out.runs += s.runs;
    out.success += s.success;
    out.partial += s.partial;
    out.failure += s.failure;
    for (const m of VALUE_METRICS) for (const [b, n] of s.hist[m]) addBin(out, m, b, n);
  }
  return out;
}

/** One finished subtask as the stats count it. */
export interface StatSample {
  status: 'success' | 'partial' | 'failure';
  values: Record<ValueMetric, number>;
}

/** The (metric, bin) counts one subtask adds. */
export function binsOf(sample: StatSample): { metric: StatMetric; bin: number }[] {
  return [
    ...VALUE_METRICS.map((metric) => ({ metric, bin: binOf(sample.values[metric]) })),
    { metric: 'outcome' as const, bin: OUTCOME_BIN[sample.status] },
  ];
}

/** The q-quantile (0..1) of a histogram, nearest rank; undefined when it is empty. */
export function quantile(h: Histogram, q: number): number | undefined {
  let total = 0;
  for (const n of h.values()) total += n;
  if (total === 0) return undefined;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const b of [...h.keys()].sort((a, c) => a - c)) {
    seen += h.get(b)!;
    if (seen >= rank) return binValue(b);
  }
  return undefined;
}

/** The mean of a histogram from its bins' representatives (0 when empty). */
export function meanOf(h: Histogram): number {
  let total = 0;
  let sum = 0;
  for (const [b, n] of h) {
    total += n;
    sum += n * binValue(b);
  }
  return total === 0 ? 0 : sum / total;
}

/** A sampler of a histogram: `draw(u)` for u in [0, 1) is the representative of the bin u falls in. */
export function samplerOf(h: Histogram): (u: number) => number {
  const bins = [...h.keys()].sort((a, c) => a - c);
  const cum: number[] = [];
  let total = 0;
  for (const b of bins) cum.push((total += h.get(b)!));
  if (total === 0) return () => Number.NaN;
  return (u) => {
    const target = u * total;
    let lo = 0;
    let hi = cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cum[mid] > target) hi = mid;
      else lo = mid + 1;
    }
    return binValue(bins[lo]);
  };
}
