/**
 * Vote tally: pure functions from voters' results to ballots, a tally and a decision.
 *
 *   TaskResult ──data or data at vote.key──> ballot ──canonical key──> tally ──strategy──> winner | none
 *                                                          pending voters? could they still change it?
 *
 * Canonical comparison: a string ballot is trimmed, NFC-normalised and lower-cased; any
 * other value compares by canonical JSON (object keys sorted, recursively; strings inside
 * objects and arrays compare exactly). `1` and `"1"` are different ballots.
 *
 * Weights (strategy `weighted`): a ballot weighs its voter's confidence (0..1). The winner
 * holds more than `threshold` (default half) of the weight cast: one voter at 0.95 beats two
 * at 0.1 (0.95 of 1.15). Early, a ballot wins once it would hold that share even if every
 * pending voter cast a full 1 elsewhere; there is no winner once no ballot, old or new, could
 * reach it even with every pending voter's full 1. A tie at exactly the threshold has no winner.
 * Votes started before this rule (no `weighted-vote-share` patch) keep the old bar: more than
 * half the number of voters.
 */
import type { VoteOptions } from '../schemas/job';
import type { TaskResult, VoteOutcome } from '../schemas/result';

/** Guards float dust in weight sums (0.1 + 0.2). */
const EPSILON = 1e-9;

/** Voting strategy. */
export type VoteStrategy = VoteOptions['strategy'];

/** One counted ballot. */
export interface Ballot {
  /** The voter's task id. */
  voter: string;
  /** The canonical key ballots are compared by. */
  key: string;
  /** The ballot as the voter gave it. */
  value: unknown;
  /** The voter's confidence. */
  weight: number;
}

/** One line of the tally. */
export type TallyEntry = VoteOutcome['tally'][number];

/** A decision: `final` when no pending voter could change it. */
export interface VoteDecision {
  final: boolean;
  winner: TallyEntry | null;
  tally: TallyEntry[];
}

/** The value at an RFC 6901 JSON pointer (`""` is the whole document); undefined when absent. */
export function jsonPointer(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  if (!pointer.startsWith('/')) return undefined;
  let cur = doc;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) >= cur.length) return undefined;
      cur = cur[Number(token)];
    } else if (cur !== null && typeof cur === 'object' && Object.prototype.hasOwnProperty.call(cur, token)) {
      cur = (cur as Record<string, unknown>)[token];
    } else return undefined;
  }
  return cur;
}

/** Canonical JSON: object keys sorted at every level, no whitespace. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** The key a ballot is compared by: strings trimmed and case-folded, anything else canonical JSON. */
export function ballotKey(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value.trim().normalize('NFC').toLowerCase()) : canonicalJson(value);
}

/**
 * A voter's ballot, or null when it casts none: failed voters, and voters without a value
 * (no data, or nothing at `key`), do not count. A `partial` voter with a value counts.
 */
export function ballotOf(result: TaskResult, key?: string): Ballot | null {
  if (result.status === 'failure') return null;
  const value = key === undefined ? result.data : jsonPointer(result.data, key);
  if (value === undefined) return null;
  return { voter: result.id, key: ballotKey(value), value, weight: result.confidence };
}

/** Ballots grouped by key (value as the first ballot gave it): most votes first, then most weight, then first given. */
export function tally(ballots: Ballot[]): TallyEntry[] {
  const byKey = new Map<string, TallyEntry>();
  for (const b of ballots) {
    const e = byKey.get(b.key) ?? { ballot: b.value, key: b.key, count: 0, weight: 0 };
    e.count += 1;
    e.weight += b.weight;
    byKey.set(b.key, e);
  }
  return [...byKey.values()].sort((a, b) => b.count - a.count || b.weight - a.weight);
}

/**
 * The decision after the ballots so far, with `voters` in all and `pending` of them still
 * to answer (each pending voter could add one vote of weight 1 to any ballot).
 */
export function decide(
  ballots: Ballot[],
  strategy: VoteStrategy,
  voters: number,
  pending: number,
  opts: { shareOfCast?: boolean; threshold?: number } = {},
): VoteDecision {
  const entries = tally(ballots);
  if (strategy === 'weighted' && opts.shareOfCast) return decideByShare(entries, pending, opts.threshold ?? 0.5);
  if (strategy === 'unanimous') {
    if (entries.length > 1) return { final: true, winner: null, tally: entries };
    if (pending > 0) return { final: false, winner: null, tally: entries };
    return { final: true, winner: entries[0] ?? null, tally: entries };
  }
  const score = (e: TallyEntry) => (strategy === 'weighted' ? e.weight : e.count);
  const bar = voters / 2 + EPSILON;
  const winner = entries.find((e) => score(e) > bar) ?? null;
  if (winner) return { final: true, winner, tally: entries };
  const best = Math.max(0, ...entries.map(score));
  return { final: pending === 0 || best + pending <= bar, winner: null, tally: entries };
}

/**
 * The weighted decision by share of the weight cast: a winner holds more than `threshold` of
 * it, and is certain once it would even if each pending voter cast 1 for another ballot.
 */
export function decideByShare(entries: TallyEntry[], pending: number, threshold: number): VoteDecision {
  const cast = entries.reduce((n, e) => n + e.weight, 0);
  // the bar if every pending voter cast a full 1: the most the weight cast can still grow
  const bar = threshold * (cast + pending) + EPSILON;
  const winner = entries.find((e) => e.weight > 0 && e.weight > bar) ?? null;
  if (winner || pending === 0) return { final: true, winner, tally: entries };
  // could a ballot, one already cast or a new one, still pass with every pending voter behind it?
  const reachable = [0, ...entries.map((e) => e.weight)].some((w) => w + pending > bar);
  return { final: !reachable, winner: null, tally: entries };
}

/** The share of counted ballots that chose the winner (0 without a winner or ballots). */
export function agreement(decision: VoteDecision): number {
  const counted = decision.tally.reduce((n, e) => n + e.count, 0);
  return decision.winner && counted > 0 ? decision.winner.count / counted : 0;
}
