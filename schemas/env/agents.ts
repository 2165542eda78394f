/**
 * The agents: the agents file, the agents research subtasks and rubrics fall to, and which private addresses LLM agents' HTTP MCP servers may have.
 * Part of `ConfigSchema` (schemas/config.ts), under "Agents" in docs/reference/configuration.md.
 */
import { z } from 'zod';
import { bool, list } from './values';

/** The agents variables. */
export const AGENTS_ENV = {
  DELEGATE_AGENTS_FILE: z
    .string()
    .min(1)
    .optional()
    .describe('JSON file of HTTP and LLM agents, skills and roles (default: agents.json in the working directory when present)'),
  DELEGATE_RESEARCH_DEFAULT_AGENT: z
    .string()
    .min(1)
    .optional()
    .describe(
      'agent a research-contract subtask (POST /v1/subtasks, MCP, A2A) runs on when it names no agent, before any semantic route; unset: semantic routing by scope and question picks one, else an agent of capability "research" that takes it, and when none can the subtask gets a 422 naming what to configure',
    ),
  DELEGATE_JUDGE_AGENT: z
    .string()
    .min(1)
    .optional()
    .describe('agent that judges free-text stop conditions (rubrics), booked to the subtask; unset: rubrics never stop a subtask'),
  DELEGATE_MCP_ALLOW_LOOPBACK: bool
    .default(false)
    .describe("allow LLM agents' HTTP MCP servers on loopback, also over plain http (development only)"),
  DELEGATE_MCP_ALLOW_CIDRS: list.describe(
    'comma-separated CIDRs HTTP MCP servers may be reached in although private ("10.20.0.0/16"); metadata addresses stay refused',
  ),
  DELEGATE_MCP_ALLOW_HOSTS: list.describe('comma-separated host names of HTTP MCP servers whose private addresses may be reached'),
};
