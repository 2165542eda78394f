/**
 * The llm executor's role mode: a role child's conversation starts from the fixed role
 * prompt, is offered the protocol tools and the role's tools, hands every tool call to the
 * host (the subtask workflow, which enforces the protocol's order), runs only the calls the
 * host approved, and has its final answer checked against the task's output kinds.
 *
 *   step n:   model ──tool_calls (MCP ones by scope name)──> state.pendingToolCalls ──> host answers / approves
 *   step n+1: answers (approved role tools run here: HTTP, or MCP in the task's scope) ──> model ──> … ──> {"result": …} checked
 *
 * A role's MCP tools are those of its allowlist (`<server>.<tool>`, as a plain agent's scope
 * names them): a role task's scope is its role's tools. The host judges each call by its scope name.
 */
import type { LlmAgentConfig } from '../../schemas';
import { ErrorType } from '../../core/errors';
import { z } from 'zod';
import { checkRoleOutput, roleOutputSchema, unwrapEnvelope, type OutputKind } from '../../schemas/role-output';
import { fatal } from '../errors';
import { BOOTSTRAP_TOOL, PROTOCOL_TOOL_DEFS, ROLE_START_MESSAGE, rolePrompt, STRUCTURED_OUTPUT_TOOL } from '../role-protocol-tools';
import type { PendingToolCall, RoleStepContext } from '../../contracts/role';
import type { ToolDef } from './llm-provider';
import { postJson } from './remote';

/** A chat message of the conversation (the subset the executor writes). */
export interface RoleChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** The opening of every conversation of a role: the same bytes whatever the task. */
export function roleStartMessages(role: RoleStepContext): RoleChatMessage[] {
  return [
    { role: 'system', content: rolePrompt(role) },
    { role: 'user', content: ROLE_START_MESSAGE },
  ];
}

/**
 * The tools offered to a role child: the protocol tools, then the role's HTTP tools in the role's
 * order, then its MCP tools (`mcp`: those of the step), and, once the host has answered
 * `delegation_bootstrap` (`bootstrapped`), the task's `structured_output` last: the first
 * request stays the same bytes for every task type.
 */
export function roleToolDefs(cfg: LlmAgentConfig, role: RoleStepContext, mcp: ToolDef[] = [], bootstrapped = false): ToolDef[] {
  const own = role.tools.flatMap((name) => cfg.tools.filter((t) => t.name === name));
  return [
    ...PROTOCOL_TOOL_DEFS,
    ...own.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })),
    ...mcp,
    ...(bootstrapped ? [structuredOutputDef(role.allowedKinds)] : []),
  ];
}

/** The task's `structured_output` tool: its input schema is the task's `{ result }` (its allowed kinds and the decision branch, with their limits). */
export function structuredOutputDef(kinds: readonly OutputKind[]): ToolDef {
  const { $schema: _schema, ...parameters } = z.toJSONSchema(roleOutputSchema(kinds), { io: 'input' }) as Record<string, unknown>;
  return {
    type: 'function',
    function: {
      name: STRUCTURED_OUTPUT_TOOL,
      description: `Your final answer, once: {"result": one of ${kinds.join(', ') || 'no completed kind'}, or a decision (decline, need_more_information) with its reason}. The host checks it before it counts.`,
      parameters,
    },
  };
}

/** Whether the host has answered the child's `delegation_bootstrap` in this conversation (not with an error). */
export function hasTask(messages: RoleChatMessage[]): boolean {
  const ids = new Set(messages.flatMap((m) => (m.tool_calls ?? []).filter((c) => c.function.name === BOOTSTRAP_TOOL).map((c) => c.id)));
  return messages.some((m) => m.role === 'tool' && ids.has(m.tool_call_id ?? '') && !m.content?.startsWith('error'));
}

/**
 * The final output a turn gives through `structured_output`, unwrapped from its transport
 * envelope (the tool's arguments; a `result` sent as JSON text is parsed), or undefined when the
 * turn did not call it. Every call of the turn gets its tool message, so the conversation stays
 * valid if the host re-prompts.
 */
export function structuredOutputOf(calls: PendingToolCall[], messages: RoleChatMessage[]): unknown {
  const call = calls.find((c) => c.name === STRUCTURED_OUTPUT_TOOL);
  if (!call) return undefined;
  for (const c of calls)
    messages.push({
      role: 'tool',
      tool_call_id: c.id,
      content: c === call ? 'received: the host checks it' : `error: not run: the turn ended with ${STRUCTURED_OUTPUT_TOOL}`,
    });
  let args: unknown;
  try {
    args = JSON.parse(unwrapEnvelope(call.arguments || '{}'));
  } catch {
    return call.arguments;
  }
  const result = (args as { result?: unknown } | null)?.result;
  if (typeof result !== 'string') return args;
  try {
    return { ...(args as object), result: JSON.parse(unwrapEnvelope(result)) };
  } catch {
    return args;
  }
}

/** The scope a role's MCP tools are offered from: its allowlist, which is a role task's scope (the API refuses a scope of its own on one, api/role-check.ts). */
export function roleMcpScope(role: RoleStepContext): string[] {
  return role.tools;
}

/** Runs a role tool the agent's HTTP tools do not have (an MCP tool, by its scope name), or undefined when it offers none by that name. */
export type OtherRoleTool = (name: string, args: unknown, signal: AbortSignal) => Promise<string> | undefined;

/**
 * Appends the answers to the previous step's pending calls (the tool messages must follow
 * the assistant message that made the calls); approved role tools run here (HTTP tools, else
 * `other`: the step's MCP tools). Returns the names of the tools run.
 */
export async function applyHostAnswers(
  cfg: LlmAgentConfig,
  role: RoleStepContext,
  pending: PendingToolCall[],
  messages: RoleChatMessage[],
  signal: AbortSignal,
  other?: OtherRoleTool,
): Promise<string[]> {
  const ran: string[] = [];
  for (const call of pending) {
    const answer = role.answers?.find((a) => a.id === call.id);
    let text = 'error: the host gave no answer to this call';
    if (answer && 'content' in answer) text = answer.content;
    else if (answer) {
      let args: unknown;
      try {
        args = JSON.parse(call.arguments || '{}');
      } catch {
        args = { raw: call.arguments };
      }
      const allowed = role.tools.includes(call.name);
      const tool = allowed ? cfg.tools.find((t) => t.name === call.name) : undefined;
      const running = tool
        ? postJson(tool.url, args, {}, signal, `tool ${tool.name} of agent ${cfg.id}`).then((r) => r.text)
        : allowed
          ? other?.(call.name, args, signal)
          : undefined;
      if (!running) throw fatal(ErrorType.ToolDenied, `tool "${call.name}" is not a tool of role "${role.id}" in this task's scope`);
      text = await running;
      ran.push(call.name);
    }
    messages.push({ role: 'tool', tool_call_id: call.id, content: text.slice(0, 20_000) });
  }
  return ran;
}

/** The host's check of a role child's final answer: the parsed `{result}`, or an InvalidOutput failure (one re-prompt follows). */
export function checkedRoleAnswer(
  content: unknown,
  role: RoleStepContext,
  attempt: number,
  usage: { tokens: number; costUsd: number; toolCalls: number },
) {
  const checked = checkRoleOutput(content, { allowedKinds: role.allowedKinds, subject: role.subject });
  if (!checked.ok) throw fatal(ErrorType.InvalidOutput, checked.error, attempt, { usage });
  const r = checked.output.result as Record<string, unknown>;
  const summary = String(r.summary ?? r.text ?? r.body ?? r.reason ?? '').slice(0, 500);
  return { data: checked.output, summary };
}
