/** Which agent pools a worker hosts, and with how many concurrent steps: DELEGATE_POOLS checked against the agents. */
import { DEFAULT_POOL_SLOTS, type AgentManifest, type PoolSlots } from '../schemas';

/** The pools the agents declare, sorted. */
export function declaredPools(agents: Pick<AgentManifest, 'pool'>[]): string[] {
  return [...new Set(agents.flatMap((a) => (a.pool ? [a.pool] : [])))].sort();
}

/**
 * The pools a worker hosts: those DELEGATE_POOLS lists, or (unset) every pool the agents
 * declare with DEFAULT_POOL_SLOTS each. A listed pool no agent declares is an error naming
 * it: a typo would otherwise leave the real pool without a worker, its steps waiting forever.
 */
export function hostedPools(configured: PoolSlots | undefined, agents: AgentManifest[]): PoolSlots {
  const declared = declaredPools(agents);
  if (configured === undefined) return Object.fromEntries(declared.map((p) => [p, DEFAULT_POOL_SLOTS]));
  for (const pool of Object.keys(configured)) {
    if (!declared.includes(pool)) {
      throw new Error(
        `DELEGATE_POOLS: pool "${pool}" is not declared by any agent (pools of the agents: ${declared.join(', ') || 'none'})`,
      );
    }
  }
  return { ...configured };
}
