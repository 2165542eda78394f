import { createAgentActivities, type AgentActivityDeps } from './agent-step';

export type { AgentStepInput, AgentStepOutput, ResolveAgentInput } from './agent-step';
export type { PreviousStage } from './agents/types';
export { builtinAgents, createAgentRegistry, type AgentRegistry } from './agents/registry';

/** Everything the worker registers as activities. */
export function createActivities(deps: AgentActivityDeps) {
  return {
    ...createAgentActivities(deps),
  };
}

/** The activity interface workflows proxy (types only). */
export type Activities = ReturnType<typeof createActivities>;
