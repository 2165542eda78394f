/**
 * The words a model reads when it chooses a tool, on every connect of every harness: one or two
 * sentences saying when to use it, and how each tool behaves (its annotations). The long
 * reference (what comes back, an example, the full input schema) is a resource a model reads
 * when it needs it (tool-reference.ts).
 */
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { referenceUri } from './tool-reference';
import { listed } from './tool-schemas';

/** A description that ends by pointing at the tool's reference, for tools whose reference says much more. */
const more = (name: string, text: string) => `${text} Reference: ${referenceUri(name)}`;

/** The description of each tool, by name. */
export const TOOL_DOCS = {
  delegate_fanout: more(
    'delegate_fanout',
    'Run independent subtasks in parallel, one agent each, and merge the answers: for a question that splits into parts that do not depend on each other.',
  ),
  delegate_pipeline: more(
    'delegate_pipeline',
    'Run subtasks one after another, each stage seeing the earlier results: for work where each step needs the one before (gather, analyse, write).',
  ),
  delegate_vote: more(
    'delegate_vote',
    'Ask several agents the same question and keep the answer they agree on: for one answer that must be reliable (a label, a yes/no, a number).',
  ),
  job_status: "A job's state, progress and ledger, without waiting.",
  job_result: "A job's result, waiting up to waitSeconds: to collect a job a delegate_* call left running.",
  job_stop: 'Stop a job gracefully: its subtasks return what they have (partial). For when enough is known.',
  job_cancel: 'Cancel a job now, keeping finished subtasks. For when the job is no longer wanted.',
  job_add_budget: "Add to a running job's budget, or one subtask's (taskId): when it halts on its budget and the work is worth more.",
  list_agents: 'The agents you can delegate to: ids, capabilities, parameters. Read it before delegating.',
  job_replay: more(
    'job_replay',
    "Re-run a finished job's subtasks on another agent or model and compare: status, output equality, cost and latency side by side. To try a cheaper model on past work.",
  ),
  delegate_research_subtask: more(
    'delegate_research_subtask',
    'Run one subtask in the research-subtask contract (snake_case): the host enforces its budget and stop_conditions and returns summary, evidence and citations.',
  ),
  research_subtask_result: "A research subtask's output by the job_id delegate_research_subtask returned.",
  delegate_scout: more(
    'delegate_scout',
    'Ask a read-only code scout (read_file, grep inside scopePaths) about the code instead of reading the files yourself; returns a small report.',
  ),
  scout_report: "A scout's report by the id delegate_scout returned.",
  scout_prep: more(
    'scout_prep',
    'Prepare a read-only code scout your own sub-agent runs: its id, prompt and tools. Then send its report to scout_submit_report.',
  ),
  scout_submit_report: more(
    'scout_submit_report',
    "Validate and commit the report your sub-agent wrote for a scout_prep id; an invalid one comes back with each fault's path.",
  ),
  delegate_approvals: "The inbox of your jobs: approvals, subagents' questions and budget waits (pending ones by default).",
  delegate_decide: 'Decide one inbox item: decision (approve | reject) for an approval, answer for a question.',
} as const;

/** Reads and changes nothing. */
const READS: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Starts agents (and spends), which may reach outside (the web, services); a second call is a second job unless jobId repeats. */
const STARTS: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
/** Ends a job's work for good; a second call changes nothing more. */
const ENDS: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
/** Adds to Delegate's own state, within this deployment. */
const ADDS: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

/** How each tool behaves, for the harness that asks before it calls (MCP tool annotations). */
export const TOOL_HINTS: Record<keyof typeof TOOL_DOCS, ToolAnnotations> = {
  delegate_fanout: STARTS,
  delegate_pipeline: STARTS,
  delegate_vote: STARTS,
  job_status: READS,
  job_result: READS,
  job_stop: ENDS,
  job_cancel: ENDS,
  job_add_budget: ADDS,
  list_agents: READS,
  job_replay: STARTS,
  delegate_research_subtask: STARTS,
  research_subtask_result: READS,
  // the scout reads files under the scout root only
  delegate_scout: ADDS,
  scout_report: READS,
  scout_prep: ADDS,
  scout_submit_report: ADDS,
  delegate_approvals: READS,
  // a decision is final: a rejected approval fails its task
  delegate_decide: { ...ADDS, destructiveHint: true },
};

/** A role task starts an agent, as the pattern tools do. */
export const ROLE_HINTS = STARTS;

/** A tool's listing as the SDK takes it: its description and annotations, its input and output schemas as listed. */
export function listing<S extends z.ZodRawShape>(
  name: keyof typeof TOOL_DOCS,
  input: S | z.ZodObject<S, z.core.$ZodObjectConfig>,
  outputSchema: z.ZodObject,
) {
  return { description: TOOL_DOCS[name], annotations: TOOL_HINTS[name], inputSchema: listed(input), outputSchema };
}

/** A role's task types with the output kinds each allows: `code_review → review; risk_scan → report`. */
export const describeKinds = (outputKinds: Record<string, string[]>) =>
  Object.entries(outputKinds)
    .map(([type, kinds]) => `${type} → ${kinds.join(' | ')}`)
    .join('; ');

/** The description of a role's `delegate_<role>` tool in the listing: the role, its task types, where its reference is. */
export const roleToolSummary = (name: string, role: { id: string; agent: string; outputKinds: Record<string, string[]> }) =>
  more(
    name,
    `Hand one task to the "${role.id}" specialist (agent "${role.agent}"); task types and their output kinds: ${describeKinds(role.outputKinds)}.`,
  );

/** The reference of a role's `delegate_<role>` tool: what the role fixes, what the call gives, what comes back. */
export function roleToolDoc(role: {
  id: string;
  agent: string;
  tools: string[];
  maxDepth: number;
  outputKinds: Record<string, string[]>;
}): string {
  return (
    `Hand one task to the "${role.id}" specialist (played by agent "${role.agent}"). The role fixes the persona, the agent and its provider, ` +
    `the depth cap (${role.maxDepth}), the output schema and the tool allowlist (${role.tools.join(', ') || 'no tools'}); ` +
    'you give only the dynamic part: taskType, question, constraints (and completionCriteria, authority, subject for a review). ' +
    `Task types and the output kinds they allow: ${describeKinds(role.outputKinds)}. ` +
    'The host holds the task back until the child asks for it, makes it load its skills, and checks its output before it counts. ' +
    'The answer is the checked output ({ result: <kind> }, or a decision: decline / need_more_information, then status "partial"), ' +
    'what the host observed (role: bootstrapped, loadedSkills, outputKind, model, maxOutputTokens) and the spend. ' +
    'Waits up to waitSeconds (default 45); a job still running then is followed with job_result. A role task never waits for a human.' +
    `\nExample: {"taskType":"${Object.keys(role.outputKinds)[0]}","question":"…","constraints":["cite the lines"]}`
  );
}
