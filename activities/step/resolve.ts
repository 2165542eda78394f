/**
 * Agent resolution: which agent a task's reference names, and whether it takes the task's
 * params. A name is looked up; a capability with several agents goes to the least loaded (or,
 * with `routing: 'adaptive'`, the best measured); a semantic reference is ranked by the
 * registry's router among the agents that take the params and scope.
 *
 *   "x" ──registry──> agent        { capability } ──fit──> only one? : load | measured quality ──> agent + fallbacks
 *   { route: "semantic" } ──semantic router (embeddings | BM25) among those that fit──> agent
 */
import { Context, log } from '@temporalio/activity';
import type { AgentRef } from '../../schemas';
import type { ResolveAgentInput, ResolvedAgent } from '../../contracts/step';
import { ErrorType } from '../../core/errors';
import { MAX_FALLBACKS } from '../../schemas/job';
import { DEFAULT_POOL_SLOTS } from '../../schemas/pools';
import { refusal, type AgentRegistry, type TaskFit } from '../agents/registry';
import type { AgentDefinition } from '../agents/types';
import { semanticText } from '../agents/semantic-router';
import { fatal } from '../errors';
import { createLoadRouter, describeWithClient, type LoadRouter } from '../load-router';
import type { AdaptiveRouter } from '../adaptive-router';
import { redact } from '../redact';

/** A load router reading queues through the running activity's Temporal client (the worker's). */
export function defaultRouter(): LoadRouter {
  return createLoadRouter({ describe: (queue) => describeWithClient(Context.current().client)(queue), slotsOf: () => DEFAULT_POOL_SLOTS });
}

/** The tenant of a subtask's workflow id (`job/<tenant>/<jobId>/<taskId>`); undefined for one started otherwise. */
export function tenantOf(workflowId: string): string | undefined {
  const m = /^job\/([^/]+)\//.exec(workflowId);
  return m?.[1];
}

/** The task's params as agent `agentId` (its definition `def`) reads them, its defaults applied; InvalidInput otherwise. */
export function validateParams(agentId: string, def: AgentDefinition, params: unknown): Record<string, unknown> {
  const parsed = def.params.safeParse(params ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `params.${i.path.join('.')}: ${i.message}`).join('; ');
    throw fatal(ErrorType.InvalidInput, `invalid params for agent "${agentId}": ${issues}`);
  }
  return parsed.data;
}

/** What resolution reads: the agents, and the routers that pick among a capability's. */
export interface ResolveDeps {
  registry: AgentRegistry;
  router: LoadRouter;
  adaptive?: AdaptiveRouter;
}

/** The `resolveAgent` activity over these agents and routers. */
export function createResolver({ registry, router, adaptive }: ResolveDeps) {
  /**
   * A semantic reference by the registry's router (embeddings when configured), among the agents
   * that take the task's params and scope; NoAgent, with the router's reason, below its threshold.
   */
  async function routeSemantic(ref: Extract<AgentRef, { route: 'semantic' }>, question: string, task: TaskFit) {
    const routed = await registry.semantic.route(semanticText(ref, question), registry.takes(task));
    if (routed.fallback) log.warn('semantic routing: the embeddings endpoint failed, BM25 decided', { error: redact(routed.fallback) });
    if (routed.id === undefined) throw fatal(ErrorType.NoAgent, `no agent matches ${JSON.stringify(ref)}: ${routed.reason}`);
    log.info('semantic routing', { agentId: routed.id, reason: routed.reason });
    return { def: registry.get(routed.id), reason: routed.reason };
  }

  /** A capability's agent: the only one, or among those that accept the params the least loaded. */
  async function routeCapability(
    ref: Extract<AgentRef, { capability: string }>,
    params: Record<string, unknown> | undefined,
    scope: string[] | undefined,
    lane?: string,
  ): Promise<ResolvedAgent> {
    const { capability } = ref;
    const all = registry.candidates(capability);
    if (all.length === 0) throw fatal(ErrorType.NoAgent, `no agent matches ${JSON.stringify({ capability })}`);
    const fit = all.filter((d) => refusal(d, params, scope) === undefined);
    // none takes the task: the first one's complaint says why
    if (fit.length === 0)
      throw fatal(ErrorType.InvalidInput, refusal(all[0], params, scope) ?? `no agent of capability ${capability} takes the task`);
    const only = (why: string): ResolvedAgent => ({ manifest: fit[0].manifest, routing: { agent: fit[0].manifest.id, reason: why } });
    if (all.length === 1) return only(`only agent with capability ${capability}`);
    if (fit.length === 1) return only(`only agent with capability ${capability} that takes the task`);
    const candidates = fit.map((d) => ({ agent: d.manifest.id, ...(d.manifest.pool ? { pool: d.manifest.pool } : {}) }));
    const byQuality = ref.routing === 'adaptive' && adaptive;
    const decision = byQuality
      ? await adaptive.route({
          tenant: tenantOf(Context.current().info.workflowExecution?.workflowId ?? ''),
          candidates,
          weights: ref.weights ?? {},
        })
      : await router.route({ capability, lane: lane ?? Context.current().info.taskQueue, candidates });
    log.info(`capability routed by ${byQuality ? 'measured quality' : 'load'}`, {
      capability,
      agentId: decision.agent,
      reason: decision.reason,
    });
    const fallbacks = fit
      .map((d) => d.manifest.id)
      .filter((id) => id !== decision.agent)
      .slice(0, MAX_FALLBACKS);
    return { manifest: registry.get(decision.agent)!.manifest, routing: decision, fallbacks };
  }

  return {
    /** Finds the agent a task names (a capability's by load, a semantic reference by ranking) and checks its params; NoAgent / InvalidInput otherwise. */
    async resolveAgent({ agent, question, params, scope, lane }: ResolveAgentInput): Promise<ResolvedAgent> {
      if (typeof agent === 'object' && 'capability' in agent) return routeCapability(agent, params, scope, lane);
      const { def, reason } =
        typeof agent !== 'string' && 'route' in agent
          ? await routeSemantic(agent, question, { params, scope })
          : { def: registry.resolve(agent, question), reason: 'named' };
      if (!def) throw fatal(ErrorType.NoAgent, `no agent matches ${JSON.stringify(agent)}`);
      validateParams(def.manifest.id, def, params);
      return { manifest: def.manifest, routing: { agent: def.manifest.id, reason } };
    },
  };
}
