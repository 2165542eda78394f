/**
 * Specialist roles at the worker and the API: the roles and skills of the agents file,
 * checked against the registry at start (errors name the role or skill and the field),
 * and the two activities a role subtask's host calls: `resolveRole` and `loadSkills`.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { AgentsFileSchema, type AgentManifest, type Role } from '../schemas';
import { ErrorType } from '../core/errors';
import type { AgentRegistry } from './agents/registry';
import { fatal } from './errors';

/** A skill as the host serves it. */
export interface LoadedSkill {
  id: string;
  title: string;
  text: string;
}

/** The roles and skills of one agents file. */
export interface RoleCatalog {
  role(id: string): Role | undefined;
  skill(id: string): LoadedSkill | undefined;
  list(): Role[];
}

/** Tools the llm executor runs itself on params.paths: not offered to roles (their sandbox needs the task's paths). */
const HOST_ONLY_TOOLS = new Set(['read_file', 'grep']);

/** Whether `tool` names a tool of one of the agent's MCP servers (`<server>.<tool>`, within the server's allow-list if it has one). */
function mcpToolOf(
  agents: { id: string; kind?: string; mcpServers?: { id: string; tools?: string[] }[] }[],
  agentId: string,
  tool: string,
): boolean {
  const dot = tool.indexOf('.');
  if (dot < 0) return false;
  const server = agents.find((a) => a.id === agentId)?.mcpServers?.find((m) => m.id === tool.slice(0, dot));
  return server !== undefined && (server.tools === undefined || server.tools.includes(tool.slice(dot + 1)));
}

/**
 * Builds the catalog of `file`'s roles and skills, checked against `registry`: every error
 * names the role (or skill) and the field. Skill paths are read relative to the file.
 */
export function loadRoleCatalog(file: string, registry: Pick<AgentRegistry, 'get'>): RoleCatalog {
  const parsed = AgentsFileSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  const errors: string[] = [];
  const skills = new Map<string, LoadedSkill>();
  for (const s of parsed.skills) {
    if (skills.has(s.id)) errors.push(`skill "${s.id}": id: duplicate skill id`);
    let text = s.text;
    if (s.path !== undefined) {
      try {
        text = readFileSync(resolve(dirname(file), s.path), 'utf8');
      } catch (err) {
        errors.push(`skill "${s.id}": path: cannot read ${s.path} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
      }
    }
    skills.set(s.id, { id: s.id, title: s.title, text: text ?? '' });
  }
  const roles = new Map<string, Role>();
  for (const r of parsed.roles) {
    const at = (field: string, message: string) => errors.push(`role "${r.id}": ${field}: ${message}`);
    if (roles.has(r.id)) at('id', 'duplicate role id');
    roles.set(r.id, r);
    const agent = registry.get(r.agent)?.manifest;
    if (!agent) at('agent', `unknown agent "${r.agent}"`);
    else if (agent.kind !== 'llm') at('agent', `agent "${r.agent}" is a ${agent.kind} agent; a role is played by an llm agent`);
    r.requiredSkills.forEach((id, i) => skills.has(id) || at(`requiredSkills[${i}]`, `unknown skill "${id}"`));
    r.tools.forEach((t, i) => {
      if (t === 'delegation_bootstrap' || t === 'load_skill' || t === 'structured_output')
        at(`tools[${i}]`, `"${t}" is a protocol tool the host always offers`);
      else if (HOST_ONLY_TOOLS.has(t)) at(`tools[${i}]`, `"${t}" is a host tool that roles cannot use yet`);
      else if (agent && !agent.tools.includes(t) && !mcpToolOf(parsed.agents, r.agent, t))
        at(`tools[${i}]`, `unknown tool "${t}": agent "${r.agent}" has ${agent.tools.length ? agent.tools.join(', ') : 'no tools'}`);
    });
  }
  if (errors.length) throw new Error(`invalid roles in agents file ${file}:\n  ${errors.join('\n  ')}`);
  const sorted = [...roles.values()].sort((a, b) => a.id.localeCompare(b.id));
  return { role: (id) => roles.get(id), skill: (id) => skills.get(id), list: () => sorted };
}

/** Largest skill text one `load_skill` answer carries (characters). */
export const MAX_SKILL_CHARS = 20_000;

/** Creates the activities a role subtask's host calls. */
export function createRoleActivities({ registry }: { registry: AgentRegistry }) {
  return {
    /** The role a task names, with the manifest of the agent that plays it; NoAgent when either is missing. */
    async resolveRole({ role }: { role: string }): Promise<{ role: Role; manifest: AgentManifest }> {
      const r = registry.roles?.role(role);
      if (!r) throw fatal(ErrorType.NoAgent, `no role "${role}"`);
      const def = registry.get(r.agent);
      if (!def) throw fatal(ErrorType.NoAgent, `role "${role}": no agent "${r.agent}"`);
      return { role: r, manifest: def.manifest };
    },

    /** The texts of skills, for `load_skill` answers (an unknown id comes back without text). */
    async loadSkills({ ids }: { ids: string[] }): Promise<{ id: string; title?: string; text?: string }[]> {
      return ids.map((id) => {
        const s = registry.roles?.skill(id);
        return s ? { id, title: s.title, text: s.text.slice(0, MAX_SKILL_CHARS) } : { id };
      });
    },
  };
}
