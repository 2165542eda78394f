/**
 * A hedged step (TaskSpec.hedge; core/hedge.ts has the rules): the step runs as any other; still
 * running when its hedge is due (the agent's measured latency quantile), and when mayHedge lets it,
 * an identical step starts with a step key of its own: on the same agent with the same activity
 * options, or on `hedge.agent` with that agent's. Either way it goes through its agent's queue (a
 * limited provider's `<queue>-provider-<id>`) and gate: the provider's declared limits hold for
 * hedges by construction.
 *
 *   primary ──due──> prepare: a hedge? ──no (or the primary ended, a cut came)──> primary alone
 *                      │ yes
 *                      v
 *   primary ∥ hedge ──first ok wins──> the other cancelled, not awaited: booked at what it reported
 *                   │                  if it had ended, else at what the winner cost (the same request)
 *                   ├─ one fails ──> the other goes on; both fail: the primary's failure, the hedge's spend booked
 *                   └─ cancel signal | latency budget ──> both cut and awaited: what each reported is booked
 *
 * The winner is not held back for the loser's acknowledgement, which comes with its next heartbeat
 * (seconds): that wait would undo what the hedge saved.
 */
import {
  ActivityCancellationType,
  CancellationScope,
  condition,
  proxyActivities,
  proxyLocalActivities,
  sleep,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { AgentStepInput } from '../../contracts/step';
import type { Usage } from '../../schemas';
import { classify } from './classify';
import type { StepOutcome } from './step';

/** New runs of a task with `hedge` hedge its steps (the field is new, so no old run has it; the marker says so in the history). */
export const HEDGE_PATCH = 'hedged-steps';

/** The record's step latency of an agent (a local activity: its answer is in the history). */
export const { stepLatency } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 2 },
});

/** A step's activity options and input: the primary's, or its hedge's. */
export interface StepCall {
  options: ActivityOptions;
  input: AgentStepInput;
}

/** One hedged step: the step, when its hedge is due, and the hedge then. */
export interface HedgedStep extends StepCall {
  delayMs: number;
  /** At the due time: the hedge to start, or none (core/hedge.ts mayHedge on the clock and the spend so far). */
  prepare(): Promise<StepCall | undefined>;
  /** Seconds left of the latency budget (undefined: none). */
  latencyLeft?: number;
  cancelled(): boolean;
}

/** What a hedged step came to: the outcome the loop applies, and the answer it did not take. */
export interface HedgedResult {
  outcome: StepOutcome;
  /** A hedge started. */
  hedged: boolean;
  /** The hedge's answer was taken. */
  hedgeWon?: boolean;
  /** The hedge's agent (its input's agentId). */
  hedgeAgent?: string;
  /** The other step's spend, booked beside the outcome, and its attempts. */
  loser?: { usage?: Usage; attempts: number };
}

type Who = 'primary' | 'hedge';
/** A step that ended: ok or failed. */
interface Settled {
  who: Who;
  outcome: Extract<StepOutcome, { kind: 'ok' | 'failed' }>;
}
interface Running {
  who: Who;
  scope: CancellationScope;
  done: Promise<Settled>;
}
type Cut = 'cancel' | 'latency';

const usageOf = (o: Settled['outcome']): Usage | undefined => (o.kind === 'ok' ? o.out.usage : o.failure.usage);
const attemptsOf = (o: Settled['outcome']): number => (o.kind === 'ok' ? o.out.attempt : o.failure.attempts);
const isSettled = (e: Settled | Cut | 'due'): e is Settled => typeof e === 'object';

/** The hedge of a step on its own agent: the same call with a step key of its own, shown as the hedge in the UI. */
export function sameAgentHedge({ options, input }: StepCall): StepCall {
  const summary = typeof options.summary === 'string' ? { summary: `${options.summary} (hedge)` } : {};
  return { options: { ...options, ...summary }, input: { ...input, stepKey: `${input.stepKey}:hedge` } };
}

/** Runs one step with its hedge. */
export async function runHedged(h: HedgedStep): Promise<HedgedResult> {
  const maxAttempts = h.input.maxAttempts ?? 1;
  const start = (who: Who, input: AgentStepInput, options: ActivityOptions): Running => {
    const { agentStep } = proxyActivities<Activities>({
      ...options,
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    });
    const scope = new CancellationScope();
    const done = scope
      .run(() => agentStep(input))
      .then(
        (out): Settled => ({ who, outcome: { kind: 'ok', out } }),
        (err): Settled => ({ who, outcome: { kind: 'failed', failure: classify(err, maxAttempts) } }),
      );
    return { who, scope, done };
  };
  const primary = start('primary', h.input, h.options);
  const watchScope = new CancellationScope();
  const watch = watchScope
    .run(() =>
      h.latencyLeft === undefined
        ? condition(h.cancelled).then(() => true)
        : condition(h.cancelled, Math.max(1, Math.round(h.latencyLeft * 1000))),
    )
    .then(
      (signalled): Cut => (signalled ? 'cancel' : 'latency'),
      (): Cut => 'cancel',
    );
  const timerScope = new CancellationScope();
  const due = timerScope
    .run(() => sleep(h.delayMs))
    .then(
      () => 'due' as const,
      () => 'due' as const,
    );

  const first = await Promise.race([primary.done, watch, due]);
  if (first !== 'due') timerScope.cancel();
  if (isSettled(first)) {
    watchScope.cancel();
    return { outcome: first.outcome, hedged: false };
  }
  if (first !== 'due') return cut(first, [primary]);
  const call = await h.prepare();
  // no hedge when the primary ended or a cut came while prepare waited (`undefined` loses to either)
  const meanwhile = await Promise.race([primary.done, watch, Promise.resolve(undefined)]);
  if (!call || meanwhile !== undefined || h.cancelled()) {
    const next = meanwhile ?? (await Promise.race([primary.done, watch]));
    if (!isSettled(next)) return cut(next, [primary]);
    watchScope.cancel();
    return { outcome: next.outcome, hedged: false };
  }

  const hedge = start('hedge', call.input, call.options);
  let running = [primary, hedge];
  const failed: Settled[] = [];
  while (running.length > 0) {
    const e = await Promise.race([...running.map((r) => r.done), watch]);
    if (!isSettled(e)) return cut(e, running, failed[0]);
    running = running.filter((r) => r.who !== e.who);
    if (e.outcome.kind === 'failed') {
      failed.push(e);
      continue;
    }
    // the first valid answer wins: the other step is cancelled and left to acknowledge on its own
    watchScope.cancel();
    for (const r of running) r.scope.cancel();
    const other = failed[0];
    const loser = other
      ? { usage: usageOf(other.outcome), attempts: attemptsOf(other.outcome) }
      : { usage: e.outcome.out.usage, attempts: 1 };
    return { outcome: e.outcome, hedged: true, hedgeWon: e.who === 'hedge', hedgeAgent: call.input.agentId, loser };
  }
  // both failed: the primary's failure is the step's, the hedge's spend is booked beside it
  watchScope.cancel();
  const mine = failed.find((f) => f.who === 'primary')!;
  const theirs = failed.find((f) => f.who === 'hedge')!;
  return { outcome: mine.outcome, hedged: true, loser: { usage: usageOf(theirs.outcome), attempts: attemptsOf(theirs.outcome) } };

  /** The cancel signal or the latency budget cut the steps still running: each is awaited for what it spent (hostRules 2). */
  async function cut(kind: Cut, still: Running[], ended?: Settled): Promise<HedgedResult> {
    for (const r of still) r.scope.cancel();
    const settled = await Promise.all(still.map((r) => r.done));
    const all = ended ? [ended, ...settled] : settled;
    const mine = all.find((s) => s.who === 'primary');
    const theirs = all.find((s) => s.who === 'hedge');
    const usage = mine && usageOf(mine.outcome);
    const outcome: StepOutcome = usage ? { kind, usage } : { kind };
    if (!theirs) return { outcome, hedged: false };
    return { outcome, hedged: true, loser: { usage: usageOf(theirs.outcome), attempts: 1 } };
  }
}
