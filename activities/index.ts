import { createAgentActivities, type AgentActivityDeps } from './agent-step';
import { createWebhookActivities, type WebhookDeps } from './webhook';

export type { AgentStepInput, AgentStepOutput, ResolveAgentInput } from './agent-step';
export type { PreviousStage } from './agents/types';
export type { WebhookInput } from './webhook';
export { signWebhook } from './webhook';
export { builtinAgents, createAgentRegistry, type AgentRegistry } from './agents/registry';

/** Everything the worker registers as activities. */
export function createActivities(deps: AgentActivityDeps & { webhook?: WebhookDeps }) {
  return {
    ...createAgentActivities(deps),
    ...createWebhookActivities(deps.webhook ?? {}),
  };
}

/** The activity interface workflows proxy (types only). */
export type Activities = ReturnType<typeof createActivities>;
