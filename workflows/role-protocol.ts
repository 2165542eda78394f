/**
 * The bootstrap protocol's rules, as the host enforces them (pure: unit-tested without a
 * server). The host keeps the dynamic task until the child asks for it.
 *
 *   delegation_bootstrap (first, exactly once) ──> load_skill × every required skill ──> role tools · final output
 *   anything else, or out of order ──> a tool error, recorded in protocolErrors
 */
import type { PreviousStage } from '../contracts/step';
import type { PendingToolCall, ProtocolState } from '../contracts/role';
import type { Role, TaskSpec } from '../schemas';
import type { OutputKind } from '../schemas/role-output';

/** The protocol tools' names (as in activities/role-protocol-tools.ts, kept free of its imports here). */
export const BOOTSTRAP = 'delegation_bootstrap';
/** See BOOTSTRAP. */
export const LOAD_SKILL = 'load_skill';
/** The hard limit of findings a report carries: MAX_FINDINGS of schemas/role-output.ts (a unit test checks they agree). */
export const HOST_MAX_FINDINGS = 4;

/** The host's verdict on one tool call. */
export type CallVerdict =
  | { kind: 'bootstrap' }
  | { kind: 'skill'; skill: string }
  | { kind: 'run' }
  | { kind: 'error'; message: string }
  | { kind: 'denied'; message: string };

/** The rules one child is held to: its role's required skills and tools. */
export interface ProtocolRules {
  requiredSkills: readonly string[];
  tools: readonly string[];
}

/** A fresh protocol state. */
export function newProtocolState(): ProtocolState {
  return { bootstrapped: false, loaded: [], errors: [] };
}

/** Required skills not loaded yet. */
export function missingSkills(state: ProtocolState, rules: ProtocolRules): string[] {
  return rules.requiredSkills.filter((s) => !state.loaded.includes(s));
}

/** The skill id a `load_skill` call names (`{skill}`, or `{id}`), if any. */
function skillOf(call: PendingToolCall): string | undefined {
  try {
    const args = JSON.parse(call.arguments || '{}') as { skill?: unknown; id?: unknown };
    const s = args.skill ?? args.id;
    return typeof s === 'string' ? s : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Judges one call in order and updates the state: a bootstrap or a skill load in its place
 * is answered by the host, an allowed role tool after both stages runs, a tool outside the
 * role is denied, and anything out of order is a recorded tool error.
 */
export function judgeCall(state: ProtocolState, call: PendingToolCall, rules: ProtocolRules): CallVerdict {
  const error = (message: string): CallVerdict => {
    state.errors.push(`${call.name}: ${message}`);
    return { kind: 'error', message };
  };
  if (call.name === BOOTSTRAP) {
    if (state.bootstrapped) return error(`${BOOTSTRAP} was already called; it is answered exactly once`);
    state.bootstrapped = true;
    return { kind: 'bootstrap' };
  }
  if (call.name === LOAD_SKILL) {
    if (!state.bootstrapped) return error(`call ${BOOTSTRAP} first`);
    const skill = skillOf(call);
    if (skill === undefined) return error('name the skill: {"skill": "<id>"}');
    if (!rules.requiredSkills.includes(skill))
      return error(`"${skill}" is not a skill of this task (required: ${rules.requiredSkills.join(', ') || 'none'})`);
    if (!state.loaded.includes(skill)) state.loaded.push(skill);
    return { kind: 'skill', skill };
  }
  if (!rules.tools.includes(call.name)) {
    state.errors.push(`${call.name}: not a tool of this role`);
    return { kind: 'denied', message: `tool "${call.name}" is not in the role's allowlist` };
  }
  if (!state.bootstrapped) return error(`the first tool call must be ${BOOTSTRAP}`);
  const missing = missingSkills(state, rules);
  if (missing.length) return error(`load every required skill first: ${LOAD_SKILL} ${missing.join(', ')}`);
  return { kind: 'run' };
}

/** Why a final output comes too early (recorded), or null when both protocol stages are done. */
export function judgeFinal(state: ProtocolState, rules: ProtocolRules): string | null {
  let message: string | null = null;
  if (!state.bootstrapped) message = `the final output came before ${BOOTSTRAP}`;
  else if (missingSkills(state, rules).length)
    message = `the final output came before ${LOAD_SKILL} of ${missingSkills(state, rules).join(', ')}`;
  if (message) state.errors.push(`final output: ${message}`);
  return message;
}

/** The dynamic task the host holds back until `delegation_bootstrap`: the task, then the host's constraints last. */
export interface RoleTask {
  role: string;
  taskType: string;
  question: string;
  rationale?: string;
  subject?: string;
  constraints: string[];
  completionCriteria: string[];
  allowedOutputKinds: OutputKind[];
  authority: string;
  requiredSkills: string[];
  /** Evidence the parent already holds: build on it, do not fetch it again. */
  contextSeed?: { id: string; snippet: string; url?: string }[];
  /** In a pipeline: the previous stage's result. */
  previous?: { id: string; summary: string; data?: unknown };
  output: string;
  hostConstraints: string[];
}

/** How each completed kind is written (the exact limits are the host's; see schemas/role-output.ts). */
const KIND_SHAPES: Record<OutputKind, string> = {
  report: '{"kind":"report","summary":"…","findings":[{"title":"…","detail":"…","evidence":"…"}]}',
  review: '{"kind":"review","subject":"<the task\'s subject>","verdict":"approve|request_changes|comment","summary":"…","findings":[…]}',
  answer: '{"kind":"answer","text":"…"}',
  draft: '{"kind":"draft","title":"…","body":"…"}',
};

/** The task's allowed completed kinds (its role's outputKinds for its task type). */
export function allowedKinds(task: TaskSpec, role: Role): OutputKind[] {
  return role.outputKinds[task.taskType ?? ''] ?? [];
}

/** Builds the dynamic task a bootstrap answers with. */
export function dynamicTask(task: TaskSpec, role: Role, previous?: PreviousStage): RoleTask {
  const kinds = allowedKinds(task, role);
  return {
    role: role.id,
    taskType: task.taskType ?? '',
    question: task.question,
    ...(task.rationale ? { rationale: task.rationale } : {}),
    ...(task.subject ? { subject: task.subject } : {}),
    constraints: task.constraints ?? [],
    completionCriteria: task.completionCriteria ?? [],
    allowedOutputKinds: kinds,
    authority: task.authority ?? 'advise only: report back, change nothing',
    requiredSkills: role.requiredSkills,
    ...(task.contextSeed?.length
      ? { contextSeed: task.contextSeed.map((e) => ({ id: e.id, snippet: e.snippet, ...(e.url ? { url: e.url } : {}) })) }
      : {}),
    ...(previous
      ? { previous: { id: previous.id, summary: previous.summary, ...(previous.data !== undefined ? { data: previous.data } : {}) } }
      : {}),
    output: `JSON only: {"result": ${kinds.map((k) => KIND_SHAPES[k]).join(' | ')}} or {"result": {"decision": "decline" | "need_more_information", "reason": "…"}}`,
    hostConstraints: [
      'answer within your output-token cap',
      ...(task.subject ? [`a review names the subject "${task.subject}"`] : []),
      `reports and reviews carry at most ${HOST_MAX_FINDINGS} findings`,
    ],
  };
}
