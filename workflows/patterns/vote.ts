/**
 * Vote: the voters run in parallel (at most `maxParallel` at once); each answer is a
 * ballot, tallied canonically. As soon as no voter still to answer could change the
 * outcome, the running voters are cancelled (their unspent allocation is booked as saved)
 * and the ones not started are recorded as `cancelled`.
 *
 *            ┌─> voter 1 ─┐
 *   job ─────┼─> voter 2 ─┼──> tally (majority | weighted | unanimous) ──> winner | no winner (failure)
 *            └─> voter n ─┘    decided before the last ballot? cancel the rest
 *
 * The tally is frozen at the decision: a cancelled voter that still answers is kept in
 * `results` but does not vote. Ballots are tallied in task order, whatever order they
 * arrived in, so the winner is reported as the first voter in the spec gave it. The rules for ballots and weights are in `vote-tally.ts`.
 */
import { CancellationScope, condition, log, patched, proxySinks, workflowInfo } from '@temporalio/workflow';
import { DEFAULT_MAX_PARALLEL, type JobRuntime } from '../job/runtime';
import type { PatternOutcome } from './outcome';
import { agreement, ballotOf, decide, type Ballot, type VoteDecision } from '../../core/vote-tally';
import type { DelegateMetricsSinks } from '../../contracts/sinks';

/** The patch id of the share-of-cast rule of weighted votes: do not change. */
export const WEIGHTED_SHARE_PATCH = 'weighted-vote-share';

/**
 * Waits without throwing on a Temporal cancel of the job: the job then cancels every
 * child (so each wait below ends), and the vote is tallied over what finished.
 */
const waitFor = (fn: () => boolean) => CancellationScope.nonCancellable(() => condition(fn));

/** Runs the voters of a vote job and decides, early when it can. */
export async function runVote(rt: JobRuntime): Promise<PatternOutcome> {
  const { spec } = rt;
  const strategy = spec.vote?.strategy ?? 'majority';
  // weighted votes started before the share-of-cast rule keep the old bar (half the voters)
  const rule = { shareOfCast: strategy === 'weighted' && patched(WEIGHTED_SHARE_PATCH), threshold: spec.vote?.threshold };
  const maxParallel = spec.maxParallel ?? DEFAULT_MAX_PARALLEL;
  const voters = spec.tasks.length;
  const order = new Map(spec.tasks.map((t, i) => [t.id, i]));
  const ballots: Ballot[] = [];
  const counted = new Set<string>();
  let early: VoteDecision | undefined;
  const inFlight: Promise<unknown>[] = [];

  // a wait only when there is no room: each awaited condition costs the workflow thread promises
  const room = () => rt.children.inFlightCount() < maxParallel || rt.halted || early !== undefined;
  for (const task of spec.tasks) {
    if (!room()) await waitFor(room);
    if (rt.halted || early) break;
    inFlight.push(
      rt.runTask(task, {}, (r) => {
        if (early) return;
        counted.add(r.id);
        const ballot = ballotOf(r, spec.vote?.key);
        if (ballot) {
          ballots.push(ballot);
          ballots.sort((a, b) => order.get(a.voter)! - order.get(b.voter)!);
        }
        const pending = voters - counted.size;
        const d = decide(ballots, strategy, voters, pending, rule);
        if (d.final && pending > 0) early = d;
      }),
    );
  }
  // Wait for the last ballot or an early decision; then cancel every voter still in flight
  // (the runtime also reaches one whose child was being started at the moment of the decision).
  await waitFor(() => early !== undefined || rt.children.inFlightCount() === 0);
  if (early) rt.children.cancelInFlight();
  await Promise.all(inFlight);
  if (early) rt.recordNotRun('cancelled', 'not started: the vote was decided');

  const decision = early ?? decide(ballots, strategy, voters, 0, rule);
  const cancelled = rt.records.results().filter((r) => !counted.has(r.id) && r.failureReason === 'cancelled').length;
  proxySinks<DelegateMetricsSinks>().delegateMetrics.voteDecided({ tenant: rt.tenant, early: early !== undefined, cancelled });
  if (early) log.info('vote decided early', { winner: decision.winner?.ballot ?? null, cancelled, ballots: counted.size });
  rt.events.emit('vote.decided', `vote:${workflowInfo().workflowId}`, {
    winner: decision.winner?.ballot ?? null,
    agreement: agreement(decision),
    decidedEarly: early !== undefined,
    cancelled,
    ballots: counted.size,
  });
  return {
    status: decision.winner ? 'success' : 'failure',
    output: decision.winner?.ballot ?? null,
    vote: {
      winner: decision.winner?.ballot ?? null,
      tally: decision.tally,
      agreement: agreement(decision),
      decidedEarly: early !== undefined,
      cancelled,
    },
  };
}
