/**
 * An LLM agent's MCP tools for one step: which of its servers' tools the task's scope allows,
 * under which name the model sees each, and running the calls the model makes.
 *
 * Naming: a scope names an MCP tool `<server id>.<tool>` ("docs.lookup"). Server ids and HTTP
 * tool names have no dot, so a scope entry can never mean an HTTP tool and an MCP tool at
 * once. Model APIs allow only [A-Za-z0-9_-]{1,64} in function names, so the model sees
 * `<server id>__<tool>` with any other character as "_"; two offered tools that end up with
 * one model name (or with an HTTP or host tool's name) fail the step, naming both.
 *
 *   scope ∩ (server lists ∩ server's allow-list) ──> offered { modelName → server, tool }
 *   model calls modelName ──offered? run on the pooled connection : not here (caller denies)
 */
import type { McpServer } from '../../schemas';
import { AgentFatalError } from '../errors';
import type { McpPool } from './mcp-pool';

/** The scope name of tool `tool` of `server`. */
export const mcpScopeName = (server: string, tool: string) => `${server}.${tool}`;

/** The function name the model sees for a scope name (model APIs refuse dots and long names). */
export const mcpModelName = (server: string, tool: string) => `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);

/** A function the model is offered (OpenAI tool shape). */
export interface ModelToolDef {
  type: 'function';
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}

/** One step's MCP tools. */
export interface StepMcpTools {
  /** What the model is offered. */
  defs: ModelToolDef[];
  /** The scope name of an offered model name, or undefined when the step offers no such tool. */
  scopeName(modelName: string): string | undefined;
  /** The model name of an offered scope name (a role's approved call), or undefined when the step offers no such tool. */
  modelName(scopeName: string): string | undefined;
  /** Runs an offered tool (by its model name) and returns its text. */
  call(modelName: string, args: Record<string, unknown>, signal: AbortSignal): Promise<string>;
}

interface Offered {
  server: McpServer;
  tool: string;
  scopeName: string;
}

/** No MCP tools this step (the agent has no servers, or the scope names none of their tools). */
const NONE: StepMcpTools = {
  defs: [],
  scopeName: () => undefined,
  modelName: () => undefined,
  call: () => Promise.reject(new Error('no MCP tools offered')),
};

/**
 * Lists the servers the scope names (only those: a server the task cannot use is never
 * contacted) and returns the tools the scope allows; `taken` are the names the model is
 * already offered (HTTP and host tools).
 */
export async function mcpToolsForStep(
  servers: McpServer[],
  scope: readonly string[],
  pool: McpPool,
  taken: readonly string[],
  signal: AbortSignal,
): Promise<StepMcpTools> {
  const wanted = servers.filter((s) => scope.some((name) => name.startsWith(`${s.id}.`)));
  if (wanted.length === 0) return NONE;
  const listed = await Promise.all(wanted.map(async (server) => ({ server, tools: await pool.source(server).list(signal) })));
  const byModelName = new Map<string, Offered>();
  const owner = new Map<string, string>(taken.map((t) => [t, `tool "${t}"`]));
  const defs: ModelToolDef[] = [];
  for (const { server, tools } of listed)
    for (const t of tools) {
      const scopeName = mcpScopeName(server.id, t.name);
      if (!scope.includes(scopeName) || (server.tools && !server.tools.includes(t.name))) continue;
      const modelName = mcpModelName(server.id, t.name);
      const clash = owner.get(modelName);
      if (clash)
        throw new AgentFatalError(
          `MCP tool "${scopeName}" and ${clash} are both offered to the model as "${modelName}": rename one or narrow the scope`,
        );
      owner.set(modelName, `MCP tool "${scopeName}"`);
      byModelName.set(modelName, { server, tool: t.name, scopeName });
      defs.push({ type: 'function', function: { name: modelName, description: t.description, parameters: t.inputSchema } });
    }
  return {
    defs,
    scopeName: (modelName) => byModelName.get(modelName)?.scopeName,
    modelName: (scopeName) => [...byModelName].find(([, o]) => o.scopeName === scopeName)?.[0],
    call(modelName, args, callSignal) {
      const o = byModelName.get(modelName);
      if (!o) return Promise.reject(new Error(`no MCP tool offered as "${modelName}"`));
      return pool.source(o.server).call(o.tool, args, callSignal);
    },
  };
}
