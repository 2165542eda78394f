/**
 * The bootstrap protocol as the model sees it: the two protocol tools, the fixed role
 * prompt, and what a role step carries. Everything here depends on the role alone, never on
 * the task, so a role's first model request is byte-identical across task types (a provider's
 * prompt cache hits); the task arrives later, in the `delegation_bootstrap` tool result.
 */
import type { OutputKind } from '../schemas/role-output';

/** The protocol's first tool: its result is the dynamic task (JSON). */
export const BOOTSTRAP_TOOL = 'delegation_bootstrap';
/** The protocol's second tool: one required skill document per call. */
export const LOAD_SKILL_TOOL = 'load_skill';
/** The scope-local tool of a role task that carries its final output; offered once the task is known (its schema is the task's). */
export const STRUCTURED_OUTPUT_TOOL = 'structured_output';

/** A tool call the role child made that the host answers (or approves) between steps. */
export interface PendingToolCall {
  id: string;
  name: string;
  /** The model's arguments, as it sent them (JSON text). */
  arguments: string;
}

/** The host's answer to one pending call: a text (protocol result or tool error), or leave to run a role tool. */
export type ToolAnswer = { id: string; content: string } | { id: string; run: true };

/** What a role step carries besides the task: the stable role policy, the output rules and the host's answers. */
export interface RoleStepContext {
  id: string;
  persona: string;
  /** The role's tool allowlist, in the role's order (offered after the two protocol tools). */
  tools: string[];
  /** The task's allowed completed kinds (checked on the final output; never in the prompt). */
  allowedKinds: OutputKind[];
  /** A review task's subject: the review must name it. */
  subject?: string;
  /** Answers to the previous step's pending tool calls. */
  answers?: ToolAnswer[];
}

/** The two protocol tools, in a fixed order, as chat-completions tool definitions. */
export const PROTOCOL_TOOL_DEFS = [
  {
    type: 'function',
    function: {
      name: BOOTSTRAP_TOOL,
      description:
        'Returns your task as JSON: type, question, constraints, completion criteria, allowed output kinds, authority and required skills. Call it first, exactly once.',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
    },
  },
  {
    type: 'function',
    function: {
      name: LOAD_SKILL_TOOL,
      description:
        'Returns the text of one skill the task requires. Load every required skill before any other tool and before your final answer.',
      parameters: {
        type: 'object',
        properties: { skill: { type: 'string', description: 'the skill id' } },
        required: ['skill'],
        additionalProperties: false,
      },
    },
  },
] as const;

/** The fixed system prompt of a role: its persona, then the protocol (no task in it). */
export function rolePrompt(role: Pick<RoleStepContext, 'id' | 'persona' | 'tools'>): string {
  return [
    role.persona,
    `You work as the "${role.id}" specialist of a coordinator. The host enforces this protocol:`,
    `1. Call ${BOOTSTRAP_TOOL} first, exactly once. Its result is your task (JSON).`,
    `2. Call ${LOAD_SKILL_TOOL} for every skill in the task's requiredSkills, before any other tool and before your final answer.`,
    `3. Then work on the task${role.tools.length ? ` with your tools (${role.tools.join(', ')})` : ''}.`,
    `4. Give your final answer by calling ${STRUCTURED_OUTPUT_TOOL} (offered once you have your task; its schema is the task's), or as JSON only: {"result": <one of the task's allowedOutputKinds>} or {"result": {"decision": "decline" | "need_more_information", "reason": "..."}}.`,
    'Any other order is answered with a tool error.',
  ].join('\n');
}

/** The fixed first user message of every role child. */
export const ROLE_START_MESSAGE = `Begin: call ${BOOTSTRAP_TOOL}.`;
