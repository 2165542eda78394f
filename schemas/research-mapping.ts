/**
 * The one mapping between the research-subtask contract and Delegate's own: contract input to
 * a TaskSpec (plus the job labels and priority it implies), and a TaskResult back to the
 * contract's output. No other module translates these fields.
 *
 *   ResearchSubtaskInput ──taskFieldsOf──> (TaskSpecSchema: research-plan.ts toTaskPlan) ──> { task: TaskSpec { research: { parentId, priority, outputFormat } }, labels: { contract, parent_id } }
 *   TaskResult + input ──toResearchOutput──> ResearchSubtaskOutput   (core/research-output.ts: the
 *       subtask workflow runs that half, so it is zod-free)
 */
import type { Budget } from './budget';
import { CONTRACT_AXES, type ContractAxis, type ResearchMarker, type ResearchSubtaskInput } from './research-contract';
import type { Evidence, ResearchOrigin } from './evidence';
import type { AgentRef } from './task-refs';

/** Job label every contract subtask carries, so the record can list them. */
export const CONTRACT_LABEL = { key: 'contract', value: 'research-subtask' } as const;
/** Job label that keeps the input's `parent_id` (searchable like any label). */
export const PARENT_ID_LABEL = 'parent_id';

/** The channel of a seed item that names none: the web when it has a url, the parent's context otherwise. */
export const seedSourceOf = (item: { source?: string; url?: string | null }): string =>
  item.source ?? (item.url != null ? 'web' : 'context');

/** The seed as Delegate evidence: ids `seed_1`, `seed_2`… (the contract's items carry none). */
export function seedEvidence(input: Pick<ResearchSubtaskInput, 'context_seed'>): Evidence[] {
  return input.context_seed.map((s, i) => ({
    id: `seed_${i + 1}`,
    source: seedSourceOf(s),
    snippet: s.snippet,
    ...(s.title != null ? { title: s.title } : {}),
    ...(s.url != null ? { url: s.url } : {}),
    ...(s.score != null ? { score: s.score } : {}),
  }));
}

/** The contract's budget as a Delegate Budget. */
export function toBudget(b: ResearchSubtaskInput['budget']): Budget {
  const out: Budget = {};
  for (const [key, axis] of Object.entries(CONTRACT_AXES) as [ContractAxis, (typeof CONTRACT_AXES)[ContractAxis]][]) {
    const v = b[key];
    if (v !== undefined) out[axis] = v;
  }
  return out;
}

/** The agent: the named one, or semantic routing over the scope and the question (the contract names none). */
function agentOf(input: ResearchSubtaskInput): AgentRef {
  if (input.agent !== undefined) return input.agent;
  const scope = input.scope ?? [];
  return scope.length > 0 ? { route: 'semantic', hint: `channels: ${scope.join(', ')}`.slice(0, 2000) } : { route: 'semantic' };
}

/**
 * A contract input as the fields of the TaskSpec Delegate runs (priority and output format in
 * its `research` marker), before TaskSpecSchema checks them and fills its defaults: the job's
 * schema pipes a research entry into it, and `toTaskPlan` (research-plan.ts) parses it. This
 * module takes no value from job.ts, whose tasks include research entries.
 */
export function taskFieldsOf(input: ResearchSubtaskInput): Record<string, unknown> {
  return {
    id: input.id,
    question: input.question,
    rationale: input.rationale,
    agent: agentOf(input),
    params: input.params,
    scope: input.scope,
    contextSeed: input.context_seed.length > 0 ? seedEvidence(input) : undefined,
    constraints: input.constraints,
    stopConditions: input.stop_conditions.length > 0 ? input.stop_conditions : undefined,
    budget: toBudget(input.budget),
    timeoutSeconds: input.timeout_seconds,
    // retry_limit counts retries; maxAttempts counts the first attempt too (the schema fills the rest of the policy)
    retry: input.retry_limit !== undefined ? { maxAttempts: input.retry_limit + 1 } : undefined,
    outputSchema: input.output_schema,
    research: {
      parentId: input.parent_id,
      priority: input.priority,
      ...(input.output_format ? { outputFormat: input.output_format } : {}),
    },
  };
}

/**
 * The labels a job of research-contract tasks carries: `contract`, and `parent_id` when its
 * tasks share one (a planner's fan-out does), so the record and the Temporal UI find it.
 */
export function researchJobLabels(tasks: readonly { research?: ResearchMarker }[]): Record<string, string> {
  const marked = tasks.flatMap((t) => (t.research ? [t.research] : []));
  if (marked.length === 0) return {};
  const labels: Record<string, string> = { [CONTRACT_LABEL.key]: CONTRACT_LABEL.value };
  const parents = new Set(marked.map((m) => m.parentId));
  const [only] = parents;
  if (parents.size === 1 && only != null) labels[PARENT_ID_LABEL] = only;
  return labels;
}

/** The origin of a contract input. */
export function originOfInput(input: Pick<ResearchSubtaskInput, 'id' | 'parent_id' | 'context_seed'>): ResearchOrigin {
  return { id: input.id, parentId: input.parent_id, seed: seedEvidence(input) };
}
