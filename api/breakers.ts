/** Reads a remote agent's circuit breaker for the API: the memo of its entity workflow, no query round trip. */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { BreakerSettings, BreakerView } from '../schemas';
import { BREAKER_MEMO_KEY, breakerWorkflowId } from '../workflows/agent-breaker';
import { breakerView, type BreakerState } from '../workflows/breaker-state';

/** The agent's breaker now; no breaker workflow yet (the agent never failed) is a closed breaker with `settings`. */
export async function readBreaker(client: Client, agentId: string, settings: BreakerSettings): Promise<BreakerView> {
  const state = await client.workflow
    .getHandle(breakerWorkflowId(agentId))
    .describe()
    .then(
      (d) => d.memo?.[BREAKER_MEMO_KEY] as BreakerState | undefined,
      (err: unknown) => {
        if (err instanceof WorkflowNotFoundError) return undefined;
        throw err;
      },
    );
  return breakerView(state, settings, Date.now());
}
