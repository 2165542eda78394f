/** The only `workflowsPath`: every workflow type the worker registers, by name. */
export { delegationJob } from './delegation-job';
export { subtask } from './subtask';
export { webhookDelivery } from './webhook-delivery';
export { pruneArchive } from './prune-archive';
export { agentBreaker } from './agent-breaker';
