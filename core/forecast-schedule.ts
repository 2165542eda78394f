/**
 * The forecast's schedules (core/forecast.ts): its seeded generator, and when tasks run on a
 * job's `maxParallel` slots, whole or cut at a quorum. Pure.
 *
 *   durations, slots ──schedule──> start times ──makespan──> the job's duration
 *                                              ──quorumCut──> each task's share of its spend, the duration
 */

/** mulberry32: a small, fast, seeded generator in [0, 1). */
export function seededRng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Start times of `durations` run in order on `slots` parallel slots (greedy list scheduling: each takes the slot free first). */
export function schedule(durations: number[], slots: number): number[] {
  if (slots >= durations.length) return durations.map(() => 0);
  const heap = new Array<number>(slots).fill(0);
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let s = i;
      if (l < slots && heap[l] < heap[s]) s = l;
      if (r < slots && heap[r] < heap[s]) s = r;
      if (s === i) return;
      [heap[i], heap[s]] = [heap[s], heap[i]];
      i = s;
    }
  };
  return durations.map((d) => {
    const start = heap[0];
    heap[0] += d;
    down(0);
    return start;
  });
}

/** The finish time of `durations` run in order on `slots` parallel slots. */
export function makespan(durations: number[], slots: number): number {
  const starts = schedule(durations, slots);
  return durations.reduce((m, d, i) => Math.max(m, starts[i] + d), 0);
}

/**
 * A fan-out that stops at its `quorum`-th success: when that happens (T), the share of each
 * task's spend until T, and T; without the quorum reached, everything and the makespan.
 */
export function quorumCut(durations: number[], successes: boolean[], slots: number, quorum: number): { share: number[]; duration: number } {
  const starts = schedule(durations, slots);
  const ends = durations.map((d, i) => starts[i] + d);
  const won = ends.filter((_, i) => successes[i]).sort((a, b) => a - b);
  if (won.length < quorum) return { share: durations.map(() => 1), duration: ends.reduce((m, e) => Math.max(m, e), 0) };
  const t = won[quorum - 1];
  const share = durations.map((d, i) =>
    starts[i] >= t && d > 0 ? 0 : d === 0 ? (starts[i] <= t ? 1 : 0) : Math.min(1, (t - starts[i]) / d),
  );
  return { share, duration: t };
}
