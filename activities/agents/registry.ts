import type { AgentManifest, AgentRef } from '../../schemas';
import { echoAgent } from './echo';
import { profileOf } from './lexical-ranker';
import { noScoutRoot, type ScoutRootFor } from '../scout/scout-root';
import { createScoutAgent } from './scout';
import { createSemanticRouter, semanticText, type Eligible, type SemanticRouter, type SemanticRouterOptions } from './semantic-router';
import { simAgent } from './sim';
import type { AgentDefinition } from './types';
import type { RoleCatalog } from '../roles';
import { newestFirst, parseAgentRef, pickVersion, pinnedId, type Versioned } from './versions';

/** What a route must satisfy of a task: an agent that refuses its params, or would use tools outside its scope, is never picked. */
export interface TaskFit {
  params?: Record<string, unknown>;
  scope?: string[];
}

/** The agents a worker can run, looked up by id, capability or a semantic hint. */
export interface AgentRegistry {
  /** The agent a reference names: `x` (its newest version not deprecated), `x@^2` (the newest 2.x), `x@2.1.0` (exactly). */
  get(ref: string): AgentDefinition | undefined;
  /** Every agent and version, by id, newest version first; each under its id as the agents file declares it. */
  list(): AgentManifest[];
  /** The versions the agents file declares for an id (empty: no such id). */
  versionsOf(id: string): Versioned[];
  /** The agent a task's reference points at, or undefined when none matches (semantic references: by BM25, among the agents that take `task`). */
  resolve(ref: AgentRef, question: string, task?: TaskFit): AgentDefinition | undefined;
  /** As `resolve`, with how the agent was chosen when routing chose it (`semantic: bm25 0.82 ≥ 0.30`). */
  resolveWithReason(ref: AgentRef, question: string, task?: TaskFit): { def: AgentDefinition; reason?: string } | undefined;
  /** Which agents a route may pick for a task with these params and scope (see `refusal`). */
  takes(task: TaskFit): Eligible;
  /** Semantic routing over these agents (embeddings when configured, else BM25). */
  readonly semantic: SemanticRouter;
  /** The specialist roles and skills of the agents file (absent: none configured). */
  roles?: RoleCatalog;
  /** Every agent that declares the capability, in id order (capability routing picks among them by load). */
  candidates(capability: string): AgentDefinition[];
}

/** Options of `createAgentRegistry`. */
export interface AgentRegistryOptions {
  /** How semantic references are routed. @default BM25, threshold 0.3 */
  semantic?: SemanticRouterOptions;
}

/**
 * The agents of each id, newest version first; an id with several versions has each under the id a
 * run names it by (`x@2.3.0`), so that the workers run the version routing chose.
 */
function byVersion(defs: AgentDefinition[]): Map<string, AgentDefinition[]> {
  const grouped = new Map<string, AgentDefinition[]>();
  for (const d of defs) grouped.set(d.manifest.id, [...(grouped.get(d.manifest.id) ?? []), d]);
  for (const [id, list] of grouped) {
    const versions = new Set(list.map((d) => d.manifest.version));
    if (versions.size < list.length) throw new Error(`duplicate agent id "${id}"${list.length > 1 ? ' (one version twice)' : ''}`);
    const pinned = list.length > 1 ? list.map((d) => ({ ...d, manifest: { ...d.manifest, id: pinnedId(id, d.manifest.version) } })) : list;
    grouped.set(
      id,
      newestFirst(pinned.map((d) => ({ d, version: d.manifest.version }))).map((e) => e.d),
    );
  }
  return grouped;
}

/** Builds a registry over the given agents (an id twice only with different versions). */
export function createAgentRegistry(defs: AgentDefinition[], opts: AgentRegistryOptions = {}): AgentRegistry {
  const versions = byVersion(defs);
  const entries = (list: AgentDefinition[]) => list.map((d) => ({ d, version: d.manifest.version, deprecated: d.manifest.deprecated }));
  const get = (ref: string): AgentDefinition | undefined => {
    const { id, range } = parseAgentRef(ref);
    const list = versions.get(id);
    return list && pickVersion(entries(list), range)?.d;
  };
  // routing by capability or meaning sees one version of each id: the one its bare id names
  const sorted = [...versions.keys()].sort((a, b) => a.localeCompare(b)).map((id) => get(id)!);
  const semantic = createSemanticRouter(
    sorted.map((d) => profileOf(d.manifest, d.toolDescriptions)),
    opts.semantic,
  );
  const takes = ({ params, scope }: TaskFit): Eligible => {
    return (id) => {
      const def = get(id);
      return def !== undefined && refusal(def, params, scope) === undefined;
    };
  };
  const routeSemantic = (ref: Extract<AgentRef, { route: 'semantic' }>, question: string, task: TaskFit) => {
    const routed = semantic.routeLexical(semanticText(ref, question), takes(task));
    const def = routed.id === undefined ? undefined : get(routed.id);
    return def && { def, reason: routed.reason };
  };
  const candidates = (capability: string) => sorted.filter((d) => d.manifest.capabilities.includes(capability));
  const resolve: AgentRegistry['resolve'] = (ref, question, task = {}) => {
    if (typeof ref === 'string') return get(ref);
    if ('capability' in ref) return candidates(ref.capability)[0];
    return routeSemantic(ref, question, task)?.def;
  };
  return {
    get,
    list: () =>
      [...versions.keys()].sort((a, b) => a.localeCompare(b)).flatMap((id) => versions.get(id)!.map((d) => ({ ...d.manifest, id }))),
    versionsOf: (id) => (versions.get(id) ?? []).map((d) => ({ version: d.manifest.version, deprecated: d.manifest.deprecated })),
    candidates,
    resolve,
    resolveWithReason(ref, question, task = {}) {
      if (typeof ref !== 'string' && 'route' in ref) return routeSemantic(ref, question, task);
      const def = resolve(ref, question, task);
      return def && { def };
    },
    takes,
    semantic,
  };
}

/** The builtin agents every worker hosts; the offline scout reads under the tenant's root of `scoutRoots` (scout-root.ts, from the configuration). */
export function builtinAgentsFor(scoutRoots: ScoutRootFor): AgentDefinition[] {
  return [echoAgent, simAgent as unknown as AgentDefinition, createScoutAgent({ rootFor: scoutRoots }) as unknown as AgentDefinition];
}

/** The builtin agents with no scout root (the scout refuses): a registry that runs no scout, as the API's, tests' and benches'. */
export const builtinAgents: AgentDefinition[] = builtinAgentsFor(noScoutRoot);

/** Why `def` cannot take a task with these params and scope: it refuses the params, or would use tools outside the scope (undefined: it can). */
export function refusal(
  def: AgentDefinition,
  params: Record<string, unknown> | undefined,
  scope: string[] | undefined,
): string | undefined {
  const parsed = def.params.safeParse(params ?? {});
  if (!parsed.success)
    return `agent "${def.manifest.id}" does not take the task's params: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`;
  const denied = (def.toolsFor?.(parsed.data) ?? []).filter((t) => !(scope ?? []).includes(t));
  if (denied.length > 0) return `agent "${def.manifest.id}" would use tools outside the scope: ${denied.join(', ')}`;
  return undefined;
}
