/**
 * A hedged step's books, on the state (hedge.ts runs the step): the answer not taken is charged to
 * the ledger beside the step's own outcome, and counted as the hedges' extra spend, which
 * `maxExtraCost` bounds; whether a running step gets its hedge now, and on which agent. Pure.
 *
 *   HedgedResult ──bookHedge──> ledger += loser's usage · attempts += its attempts · hedges, hedgeCostUsd
 *   hedge.agent's answer taken ──adoptHedge──> the task goes on with that agent (as a fallback would)
 */
import { charge, remaining } from '../../core/budget-ledger';
import { addUsd } from '../../core/money';
import { mayHedge, type HedgeSpec, type HedgeVerdict, type StepLatency } from '../../core/hedge';
import type { RunManifest } from '../../core/routing';
import type { HedgedResult } from './hedge';
import { elapsedSeconds, type RunningState } from './state';
import { handOver } from './fallback';

/**
 * Whether the step that started at `startedAt` gets its hedge at `now`: one more step is expected
 * to cost what the last one did (before any, the record's mean step), against the hedges' extra
 * spend so far and what the budget has left.
 */
export function hedgeNow(
  s: RunningState,
  spec: HedgeSpec,
  measured: StepLatency | undefined,
  at: { startedAt: number; delayMs: number; now: number },
): HedgeVerdict {
  const left = remaining(s.ledger, elapsedSeconds(s, at.now));
  const tokens = measured?.stepTokens;
  return mayHedge({
    spec,
    ...at,
    extraCostUsd: s.hedgeCostUsd,
    step: { costUsd: s.hitl.lastCostUsd ?? measured?.stepCostUsd ?? 0, ...(tokens !== undefined ? { tokens } : {}) },
    left: { costUsd: left.costUsd, tokens: left.tokens },
  });
}

/** Books what a hedged step's other answer spent (nothing when no hedge started). */
export function bookHedge(s: RunningState, h: Pick<HedgedResult, 'hedged' | 'loser'>): void {
  if (!h.hedged) return;
  s.hedges += 1;
  if (!h.loser) return;
  s.attempts += h.loser.attempts;
  const u = h.loser.usage;
  if (!u) return;
  charge(s.ledger, u);
  s.hedgeCostUsd = addUsd(s.hedgeCostUsd, u.costUsd);
}

/**
 * The other agent a step is hedged on: `hedge.agent`, for a step its current agent starts afresh
 * (no agent state yet: another agent cannot go on with this one's conversation); undefined: the
 * same agent.
 */
export function hedgeAgentOf(s: RunningState, spec: HedgeSpec): string | undefined {
  return spec.agent !== undefined && spec.agent !== s.manifest.id && s.agentState === undefined ? spec.agent : undefined;
}

/** The hedge on `m` answered first: the task goes on with it, its steps counted from here (its outcome is applied next). */
export function adoptHedge(s: RunningState, m: RunManifest): void {
  s.notes.push(`hedge: ${m.id} answered step ${s.steps} before ${s.manifest.id}; the task goes on with it`);
  handOver(s, m, `hedge answered before ${s.manifest.id}`);
}
