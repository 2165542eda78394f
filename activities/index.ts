import { existsSync } from 'node:fs';
import { createAgentActivities, type AgentActivityDeps } from './step';
import { createArchiveActivities, type ArchiveDeps } from './archive';
import { createInboxActivities } from './inbox';
import { createResultCacheActivities } from './result-cache';
import { createJudgeActivities } from './judge';
import { createHedgeActivities } from './hedge-stats';
import { createScoutActivities } from './scout/commit';
import { noScoutRoot, type ScoutRootFor } from './scout/scout-root';
import { loadAgentsFile } from './agents/kinds';
import type { McpPool } from './agents/mcp-pool';
import { builtinAgentsFor, createAgentRegistry, type AgentRegistry } from './agents/registry';
import type { SemanticRouterOptions } from './agents/semantic-router';
import { createWebhookActivities, type WebhookDeps } from './webhook';
import { createRoleActivities, loadRoleCatalog } from './roles';

export type { StepObserver } from '../telemetry/metrics';
export { createLoadRouter, describeWithClient, type LoadRouter } from './load-router';
export { createAdaptiveRouter, type AdaptiveRouter } from './adaptive-router';
export type { JudgeInput, JudgeOutput } from './judge';
export type { SettleInboxInput } from './inbox';
export { loadRoleCatalog, type RoleCatalog, type LoadedSkill } from './roles';
export { createCircuitBreaker, type CircuitBreaker, type CircuitState } from './circuit-breaker';
export type { ArchiveDeps, ArchiveJobInput, PruneInput } from './archive';
export type { WebhookInput, WebhookDeps } from './webhook';
export {
  legacyWebhookSecretFor,
  signatureHeaders,
  signLegacyWebhook,
  webhookIdFor,
  webhookSecretFor,
  WebhookErrorType,
  WebhookSignature,
} from './webhook';
export { checkCallbackUrl, isBlockedAddress, mcpPolicyFromConfig, netPolicyFromConfig, type NetPolicy } from './net-policy';
export type { Resolver, ResolvedAddress } from './guarded-post';
export { redact, redactUrl } from './redact';
export { builtinAgents, builtinAgentsFor, createAgentRegistry, type AgentRegistry } from './agents/registry';
export { noScoutRoot, scoutRootsOf, type ScoutRootFor } from './scout/scout-root';
export { createHttpAgent } from './agents/http';
export { loadAgentsFile } from './agents/kinds';
export { createMcpPool, type McpPool, type McpPoolOptions } from './agents/mcp-pool';
export {
  createSemanticRouter,
  semanticOptionsFromConfig,
  semanticText,
  type SemanticRoute,
  type SemanticRouter,
  type SemanticRouterOptions,
} from './agents/semantic-router';

/**
 * The builtin agents plus the agents of `agentsFile` (default `agents.json` when it exists), semantic
 * references routed as `semantic` says; LLM agents reach their MCP servers through `mcpPool`.
 */
export function loadRegistry(
  agentsFile?: string,
  semantic?: SemanticRouterOptions,
  mcpPool?: McpPool,
  scoutRoots: ScoutRootFor = noScoutRoot,
): AgentRegistry {
  const file = agentsFile ?? (existsSync('agents.json') ? 'agents.json' : undefined);
  const loaded = file ? loadAgentsFile(file, process.env, { mcpPool, scoutRootFor: scoutRoots }) : [];
  const registry = createAgentRegistry([...builtinAgentsFor(scoutRoots), ...loaded], { semantic });
  // roles name agents and tools of the registry: checked once it is built
  return file ? Object.assign(registry, { roles: loadRoleCatalog(file, registry) }) : registry;
}

/** Everything the worker registers as activities. */
export function createActivities(
  deps: AgentActivityDeps & { webhook?: WebhookDeps; archive: ArchiveDeps; judgeAgent?: string; scoutRoots?: ScoutRootFor },
) {
  return {
    ...createAgentActivities(deps),
    ...createJudgeActivities(deps),
    ...createHedgeActivities(deps.archive.record),
    ...createRoleActivities(deps),
    ...createWebhookActivities(deps.webhook ?? {}),
    ...createArchiveActivities(deps.archive),
    ...createInboxActivities(deps.archive.record),
    ...createResultCacheActivities(deps.archive.record),
    ...createScoutActivities({
      scouts: deps.archive.record.scouts,
      events: deps.archive.record.events,
      rootFor: deps.scoutRoots ?? noScoutRoot,
    }),
  };
}

/** The activity interface workflows proxy (types only). */
export type Activities = ReturnType<typeof createActivities>;
