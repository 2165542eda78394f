/**
 * Capability routing by load: ranks the agents that declare a capability by what Temporal
 * reports of their task queues, best first. Pure; the router (load-router.ts) reads the stats.
 *
 *   candidate queue ──> tier ──> pressure = backlog / (slots × pollers) ──> ranked
 *     tier 0  a poller polled within LIVE_POLLER_MS: it has a free slot (a worker polls only then)
 *     tier 1  pollers, none lately: every slot busy
 *     tier 2  no poller at all: nobody hosts the queue (or its stats could not be read)
 *   equal tier, pressure and live pollers = a tie, broken round-robin by the router
 */

/** A poller that polled this recently has a free slot: a long poll lasts about a minute. */
export const LIVE_POLLER_MS = 70_000;

/** What the router knows of one candidate's queue. */
export interface CandidateLoad {
  /** The agent id. */
  agent: string;
  /** How the reason names the queue: `pool gpu`, or `lane` for an agent without a pool. */
  label: string;
  /** Tasks waiting in the queue (Temporal's approximateBacklogCount). */
  backlog: number;
  /** Pollers Temporal lists for the queue (one per worker process). */
  pollers: number;
  /** Of those, the ones that polled within LIVE_POLLER_MS. */
  livePollers: number;
  /** Concurrent steps one worker runs from this queue (this worker's configuration; the pool default otherwise). */
  slots: number;
  /** Set when the queue's stats could not be read: ranked last, named in the reason. */
  unknown?: string;
}

/** A candidate with its rank keys. */
export interface ScoredCandidate extends CandidateLoad {
  tier: 0 | 1 | 2;
  /** Backlog per slot of the workers polling: lower is better. */
  pressure: number;
}

/** The tier and pressure of one candidate. */
export function scoreLoad(c: CandidateLoad): ScoredCandidate {
  const tier = c.unknown !== undefined || c.pollers === 0 ? 2 : c.livePollers > 0 ? 0 : 1;
  const capacity = Math.max(1, c.slots) * Math.max(1, c.pollers);
  return { ...c, tier, pressure: c.backlog / capacity };
}

/** Negative when `a` should be chosen before `b`; 0 for a tie. */
export function compareLoad(a: ScoredCandidate, b: ScoredCandidate): number {
  return a.tier - b.tier || a.pressure - b.pressure || b.livePollers - a.livePollers;
}

/** The candidates best first, and the ones tied for best (in agent-id order, for round-robin). */
export function rankLoads(loads: CandidateLoad[]): { ranked: ScoredCandidate[]; tied: ScoredCandidate[] } {
  const ranked = loads.map(scoreLoad).sort((a, b) => compareLoad(a, b) || a.agent.localeCompare(b.agent));
  const tied = ranked.filter((c) => compareLoad(c, ranked[0]) === 0);
  return { ranked, tied };
}

/** One queue as a reason shows it. */
export function describeLoad(c: ScoredCandidate, full: boolean): string {
  if (c.unknown !== undefined) return `${c.label} stats unavailable (${c.unknown})`;
  const pollers =
    c.pollers === 0
      ? 'no poller'
      : full
        ? `${c.pollers} poller${c.pollers === 1 ? '' : 's'}${c.tier === 1 ? ', all busy' : ''}`
        : c.tier === 1
          ? 'all busy'
          : '';
  return [`${c.label} backlog ${c.backlog}`, pollers].filter(Boolean).join(', ');
}

/**
 * Picks one candidate: the best, or among tied best the `turn`-th (round-robin). The reason
 * names the pick's figures and what it beat, e.g.
 * `load: pool gpu backlog 0, 2 pollers; cheaper than pool cpu backlog 12`.
 */
export function pickByLoad(loads: CandidateLoad[], turn: number): { agent: string; reason: string; tied: number } {
  if (loads.length === 0) throw new Error('pickByLoad: no candidates');
  const { ranked, tied } = rankLoads(loads);
  const pick = tied[turn % tied.length];
  const others = (list: ScoredCandidate[]) => [
    ...new Set(list.filter((c) => c.agent !== pick.agent && c.label !== pick.label).map((c) => describeLoad(c, false))),
  ];
  const tiedWith = others(tied);
  const beaten = others(ranked.filter((c) => !tied.includes(c)));
  const parts = [`load: ${describeLoad(pick, true)}`];
  if (tied.length > 1)
    parts.push(
      tiedWith.length > 0
        ? `tied with ${tiedWith.join(', ')}: round-robin`
        : `tied with ${tied.length - 1} other agent${tied.length === 2 ? '' : 's'} on the same queue: round-robin`,
    );
  if (beaten.length > 0) parts.push(`cheaper than ${beaten.join(', ')}`);
  return { agent: pick.agent, reason: parts.join('; '), tied: tied.length };
}
