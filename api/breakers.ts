/**
 * Reads a remote agent's circuit breaker for the API: the memo of its entity workflow, no query
 * round trip. Circuits are per agent and tenant, so a caller sees its own tenant's circuit:
 * another tenant's failures neither open it nor show in it.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { BreakerSettings, BreakerView } from '../schemas';
import { BREAKER_MEMO_KEY, breakerWorkflowId } from '../core/names';
import { breakerView, type BreakerState } from '../core/breaker-state';

/** The agent's breaker for `tenant` now; no breaker workflow yet (the tenant's steps never failed there) is a closed breaker with `settings`. */
export async function readBreaker(client: Client, agentId: string, settings: BreakerSettings, tenant: string): Promise<BreakerView> {
  const state = await client.workflow
    .getHandle(breakerWorkflowId(agentId, tenant))
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
