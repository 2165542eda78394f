/**
 * Where an agent's steps run: the one naming rule of pool task queues, shared by the worker
 * (which polls them) and the subtask workflow (which schedules steps on them). Pure, no Node
 * imports: workflow code imports it.
 *
 *   lane  delegate-agents-acme                 agents without a pool
 *   pool  delegate-agents-acme.pool-gpu        agents with "pool": "gpu"
 */

/** The activity task queue of an agent's steps: its pool's queue on the lane, or the lane itself when it has no pool. */
export function stepQueueFor(lane: string, pool?: string): string {
  return pool ? `${lane}.pool-${pool}` : lane;
}
