/**
 * Temporal names, once: the task queues of tenants' lanes and of agent pools, shared by the
 * worker (which polls them), the API (which checks them) and the subtask workflow (which
 * schedules steps on them). Pure, no Node imports: workflow code imports it.
 *
 *   lane  delegate-agents-acme                 agents without a pool
 *   pool  delegate-agents-acme.pool-gpu        agents with "pool": "gpu"
 *   provider  delegate-provider-openai-main     agents on a provider with declared limits (every tenant's, fairness key = tenant)
 */

/** The activity task queue of an agent's steps: its pool's queue on the lane, or the lane itself when it has no pool. */
export function stepQueueFor(lane: string, pool?: string): string {
  return pool ? `${lane}.pool-${pool}` : lane;
}

/**
 * The activity task queue of a provider's steps: one per deployment, shared by every tenant, so the
 * server's rate limit on it is the provider's limit across every worker, job and tenant.
 */
export function providerQueueFor(taskQueue: string, provider: string): string {
  return `${taskQueue}-provider-${provider}`;
}

/** The activity task queue of a tenant's agent steps (its lane): `<queue>-agents-<tenant>`. */
export function agentQueueFor(taskQueue: string, tenant: string): string {
  return `${taskQueue}-agents-${tenant}`;
}

/** The memo key the state is published under. */
export const BREAKER_MEMO_KEY = 'breaker';

/**
 * The breaker workflow of an agent for one tenant: agents are deployment-wide, but a tenant can
 * make one fail at will (its input), so each tenant's failures count against its own circuit.
 * A step that names no tenant (a job started straight through Temporal without events) uses
 * the agent's shared `breaker/<agentId>`.
 */
export const breakerWorkflowId = (agentId: string, tenant?: string) => (tenant ? `breaker/${tenant}/${agentId}` : `breaker/${agentId}`);

/** The job workflow's type (`delegationJob`, its function's name): what the API starts and lists by, without importing workflow code. */
export const JOB_WORKFLOW = 'delegationJob';
