/**
 * The bootstrap protocol as the model sees it: the two protocol tools, the fixed role
 * prompt, and what a role step carries. Everything here depends on the role alone, never on
 * the task, so a role's first model request is byte-identical across task types (a provider's
 * prompt cache hits); the task arrives later, in the `delegation_bootstrap` tool result.
 */
import type { RoleStepContext } from '../contracts/role';

/** The protocol's first tool: its result is the dynamic task (JSON). */
export const BOOTSTRAP_TOOL = 'delegation_bootstrap';
/** The protocol's second tool: one required skill document per call. */
export const LOAD_SKILL_TOOL = 'load_skill';
/** The scope-local tool of a role task that carries its final output; offered once the task is known (its schema is the task's). */
export const STRUCTURED_OUTPUT_TOOL = 'structured_output';

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
