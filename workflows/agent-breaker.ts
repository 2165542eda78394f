/**
 * One circuit breaker per remote agent and tenant, shared by every worker and surviving
 * restarts: an entity workflow `breaker/<tenant>/<agentId>` fed by the workers' step outcomes.
 * One tenant's failures (its tasks' own input may provoke them) open its own circuit only. Its state lives in
 * its memo (`breaker`), so a reader's `describe()` sees it without a query round trip.
 *
 *   worker ──stepOutcome (signalWithStart)──> agentBreaker ──upsertMemo──> memo.breaker <──describe── workers, API
 *   worker ──acquireTrial (update, half-open)──┘        └── continue-as-new every ~eventsPerRun history events
 *
 * Cancelling it retires the breaker (the next failure starts a fresh, closed one).
 */
import { allHandlersFinished, condition, makeContinueAsNewFunc, setHandler, upsertMemo, workflowInfo } from '@temporalio/workflow';
import { acquireTrial, applyOutcome, initialBreaker, releaseTrial, type BreakerState } from '../core/breaker-state';
import { BREAKER_MEMO_KEY } from '../core/names';
import { acquireTrialUpdate, breakerStateQuery, releaseTrialSignal, stepOutcomeSignal } from '../contracts/messages';
import type { AgentBreakerInput } from '../contracts/breaker';

/** The breaker of one agent (for one tenant); runs until cancelled. The function name is the workflow type: do not rename. */
export async function agentBreaker(input: AgentBreakerInput): Promise<BreakerState> {
  let s = input.carry ?? initialBreaker(input.settings);
  const publish = () => upsertMemo({ [BREAKER_MEMO_KEY]: s });
  setHandler(stepOutcomeSignal, (o) => {
    s = applyOutcome(s, o, Date.now());
    publish();
  });
  setHandler(releaseTrialSignal, ({ holder }) => {
    s = releaseTrial(s, holder);
    publish();
  });
  setHandler(
    acquireTrialUpdate,
    (r) => {
      const { state, grant } = acquireTrial(s, r, Date.now());
      if (state !== s) {
        s = state;
        publish();
      }
      return grant;
    },
    {
      validator: (r) => {
        if (typeof r?.holder !== 'string' || r.holder.length === 0) throw new Error('acquireTrial: holder must be a non-empty string');
        if (!(Number.isFinite(r.leaseMs) && r.leaseMs > 0)) throw new Error('acquireTrial: leaseMs must be a positive number');
      },
    },
  );
  setHandler(breakerStateQuery, () => s);
  const limit = input.eventsPerRun ?? 500;
  await condition(() => workflowInfo().historyLength >= limit || workflowInfo().continueAsNewSuggested);
  await condition(allHandlersFinished);
  // the next run starts with the memo readers expect, not an empty one
  return makeContinueAsNewFunc<typeof agentBreaker>({ memo: { [BREAKER_MEMO_KEY]: s } })({ ...input, carry: s });
}
