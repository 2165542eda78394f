import type { AgentManifest, AgentRef } from '../../schemas';
import { echoAgent } from './echo';
import { scoutRoot } from '../scout/sandbox';
import { createScoutAgent } from './scout';
import { simAgent } from './sim';
import type { AgentDefinition } from './types';

/** The agents a worker can run, looked up by id, capability or a semantic hint. */
export interface AgentRegistry {
  get(id: string): AgentDefinition | undefined;
  list(): AgentManifest[];
  /** The agent a task's reference points at, or undefined when none matches. */
  resolve(ref: AgentRef, question: string): AgentDefinition | undefined;
}

const words = (s: string) => new Set(s.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 2));

/** Word-overlap score between a hint and an agent's description and capabilities. */
export function routingScore(text: string, m: AgentManifest): number {
  const want = words(text);
  const have = words(`${m.id} ${m.description} ${m.capabilities.join(' ')}`);
  let score = 0;
  for (const w of want) if (have.has(w)) score++;
  return score;
}

/** Builds a registry over the given agents (ids must be unique). */
export function createAgentRegistry(defs: AgentDefinition[]): AgentRegistry {
  const byId = new Map<string, AgentDefinition>();
  for (const d of defs) {
    if (byId.has(d.manifest.id)) throw new Error(`duplicate agent id "${d.manifest.id}"`);
    byId.set(d.manifest.id, d);
  }
  const sorted = [...byId.values()].sort((a, b) => a.manifest.id.localeCompare(b.manifest.id));
  return {
    get: (id) => byId.get(id),
    list: () => sorted.map((d) => d.manifest),
    resolve(ref, question) {
      if (typeof ref === 'string') return byId.get(ref);
      if ('capability' in ref) return sorted.find((d) => d.manifest.capabilities.includes(ref.capability));
      let best: AgentDefinition | undefined;
      let bestScore = 0;
      for (const d of sorted) {
        const s = routingScore(`${ref.hint ?? ''} ${question}`, d.manifest);
        if (s > bestScore) [best, bestScore] = [d, s];
      }
      return best;
    },
  };
}

/** The builtin agents every worker hosts; the offline scout reads under `DELEGATE_SCOUT_ROOT` (default: the working directory). */
export const builtinAgents: AgentDefinition[] = [
  echoAgent,
  simAgent as unknown as AgentDefinition,
  createScoutAgent({ root: scoutRoot() }) as unknown as AgentDefinition,
];
