/**
 * The agents file and the agent kinds it declares. Each kind is one entry of AGENT_KINDS, built
 * by its own module (http.ts, llm.ts, a2a.ts); the builtin agents every worker hosts are the
 * registry's (registry.ts). A new kind is one entry here, its module, and its config in
 * schemas/agent.ts (the file's `kind` union, which types this table: a kind without an entry
 * does not compile).
 *
 *   agents.json ──AgentsFileSchema──> each agent ──AGENT_KINDS[kind](config, { env, llm })──> AgentDefinition
 *                                                   └ its account's provider limits (the file's `providers`)
 */
import { readFileSync } from 'node:fs';
import { AgentsFileSchema, unusedProviders, type AgentConfig } from '../../schemas';
import { netPolicyFromEnv } from '../net-policy';
import { createA2aAgent } from './a2a';
import { createHttpAgent } from './http';
import { createLlmAgent, type LlmAgentOptions } from './llm';
import type { AgentDefinition } from './types';
import { versionIssues } from './versions';

/** What every kind is built with: the environment its secrets expand from, and the LLM agents' options (the worker's MCP pool). */
export interface AgentKindContext {
  env: NodeJS.ProcessEnv;
  llm: LlmAgentOptions;
}

/** Builds one agent of a kind from its entry in the agents file. */
export type AgentKind<C extends AgentConfig> = (config: C, ctx: AgentKindContext) => AgentDefinition;

/** The agents file's kinds, by `kind`. */
export const AGENT_KINDS: { readonly [K in AgentConfig['kind']]: AgentKind<Extract<AgentConfig, { kind: K }>> } = {
  http: (a, { env }) => createHttpAgent(a, env),
  llm: (a, { env, llm }) => createLlmAgent(a, env, llm),
  a2a: (a, { env }) => createA2aAgent(a, { policy: netPolicyFromEnv(env) }, env),
};

/** Reads the agents of a JSON file (`{ "agents": [...] }`); throws naming the bad field. `llm` options go to every LLM agent (the worker's MCP pool). */
export function loadAgentsFile(
  path: string,
  env: NodeJS.ProcessEnv = process.env,
  llm: LlmAgentOptions = {},
  onWarning: (line: string) => void = (line) => console.warn(line),
): AgentDefinition[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read agents file ${path}: ${(err as Error).message}`);
  }
  const parsed = AgentsFileSchema.safeParse(raw);
  const issues = parsed.success
    ? versionIssues(parsed.data.agents).map((i) => ({ path: ['agents', i.index, 'version'], message: i.message }))
    : parsed.error.issues;
  if (!parsed.success || issues.length > 0) {
    const lines = issues.map((i) => `  ${fieldName(raw, i.path)}: ${i.message}`);
    throw new Error(`invalid agents file ${path}:\n${lines.join('\n')}`);
  }
  const { providers, agents } = parsed.data;
  for (const id of unusedProviders(providers, agents))
    onWarning(`agents file ${path}: provider "${id}" is named by no agent; its limits pace nothing`);
  const limitsOf = new Map(providers.map((p) => [p.id, p.limits]));
  return agents.map((a) => {
    const def = (AGENT_KINDS[a.kind] as AgentKind<AgentConfig>)(a, { env, llm });
    // a providers entry's limits are the file's, not the agent's own
    const shared = a.account !== undefined ? limitsOf.get(a.account) : undefined;
    return shared && def.service
      ? { ...def, manifest: { ...def.manifest, provider: a.account }, service: { ...def.service, limits: shared } }
      : def;
  });
}

/** A field's path as a reader finds it: `agents[3] ("writer").limits.requestsPerMinute`. */
function fieldName(raw: unknown, path: PropertyKey[]): string {
  const [list, index, ...rest] = path;
  const entry = (raw as Record<string, unknown[]> | undefined)?.[String(list)]?.[index as number] as { id?: unknown } | undefined;
  if (typeof index !== 'number') return path.map(String).join('.');
  const id = typeof entry?.id === 'string' ? ` ("${entry.id.slice(0, 64)}")` : '';
  return [`${String(list)}[${index}]${id}`, ...rest.map(String)].join('.');
}
