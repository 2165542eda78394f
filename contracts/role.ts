/**
 * A role subtask's protocol as it crosses into the step and into the next run: what a role
 * step carries besides the task (`AgentStepInput.role`), the child's pending calls and the
 * host's answers, and the protocol state a run carries on (continue-as-new).
 */
import type { Role } from '../schemas';
import type { OutputKind } from '../schemas/role-output';

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

/** What the host has observed of one child's protocol. */
export interface ProtocolState {
  bootstrapped: boolean;
  /** Required skills the child loaded successfully, in the order it loaded them. */
  loaded: string[];
  /** Every call answered with a tool error (and every premature final output). */
  errors: string[];
}

/** What a role subtask carries into its next run (continue-as-new). */
export interface RoleHostCarry {
  role: Role;
  protocol: ProtocolState;
  answers?: ToolAnswer[];
  finalReprompted: boolean;
}
