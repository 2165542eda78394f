/**
 * The identical-subtask cache's pure rules: which tasks it covers, what makes two subtasks
 * identical (the key's parts), and the result a hit is served as. The parts are hashed where
 * Node's crypto is (activities/result-cache.ts: the lookup activity, the API's forecast), never
 * in a workflow.
 *
 *   job ──cacheKeyParts(task, manifest, model, context)──> lookup activity: sha256(canonicalJson({ tenant, ...parts }))
 *   hit ──servedResult(stored, task, from, latencyMs)──> the task's result: $0, `cached: true`, `cachedFrom`
 */
import type { Evidence } from '../schemas/evidence';
import type { Pattern, TaskSpec } from '../schemas/job';
import type { TaskResult } from '../schemas/result';
import type { ResultCache } from '../schemas/result-cache';
import { originOfTask } from './research-output';
import { emptyMetrics } from './task-results';

/** What two subtasks must share for one's success to be served to the other (the tenant is added by the hasher). */
export interface CacheKeyParts {
  /** `id@version` of the agent the task runs on. */
  agent: string;
  question: string;
  params: Record<string, unknown> | null;
  /** The context the agent is handed: the task's context seed (a pipeline's included) and a pipeline's previous stage (contracts/step.ts PreviousStage, only hashed here: core/ sits below the contracts). */
  context: { seed: Evidence[]; previous: unknown };
  outputSchema: unknown;
  /** The job's model and output cap when the task starts (llm agents run on them). */
  model: { model: string | null; maxOutputTokens: number | null };
  /** What the agent may do: its tool scope and constraints. */
  scope: string[];
  constraints: string[];
  /** The agent is handed these too; absent when the task has none (keys of tasks without them are as before). */
  rationale?: string;
  stopConditions?: string[];
}

/**
 * The cache settings a task runs with: its own, else its job's; none for a nested job or a role task
 * (its agent is chosen at run time), nor for a vote's voters (identical voters are its sample).
 */
export function cacheOf(task: TaskSpec, job: { cache?: ResultCache; pattern?: Pattern }): ResultCache | undefined {
  if (task.job || task.role || job.pattern === 'vote') return undefined;
  return task.cache ?? job.cache;
}

/** The key's parts of a task on its agent (`id@version`), under the job's model, with the context it is handed. */
export function cacheKeyParts(
  task: TaskSpec,
  agent: { id: string; version: string },
  model: { model?: string; maxOutputTokens?: number },
  context: { contextSeed?: Evidence[]; previous?: unknown } = {},
): CacheKeyParts {
  return {
    agent: `${agent.id}@${agent.version}`,
    question: task.question,
    params: task.params ?? null,
    context: { seed: [...(task.contextSeed ?? []), ...(context.contextSeed ?? [])], previous: context.previous ?? null },
    outputSchema: task.outputSchema ?? null,
    model: { model: model.model ?? null, maxOutputTokens: model.maxOutputTokens ?? null },
    scope: task.scope ?? [],
    constraints: task.constraints ?? [],
    ...(task.rationale !== undefined ? { rationale: task.rationale } : {}),
    ...(task.stopConditions !== undefined ? { stopConditions: task.stopConditions } : {}),
  };
}

/**
 * A recorded success served to `task`: its content, its own id, nothing spent, and where it came
 * from. A research task's output is the stored one's with this task's id and parent_id and the
 * served metrics (nothing spent).
 */
export function servedResult(
  stored: TaskResult,
  task: Pick<TaskSpec, 'id' | 'contextSeed' | 'research'>,
  from: string,
  latencyMs: number,
): TaskResult {
  const { traceId: _t, research, ...rest } = stored;
  const metrics = { ...emptyMetrics(), latencyMs, cached: true as const, cachedFrom: from };
  const served: TaskResult = { ...rest, id: task.id, metrics };
  if (research && task.research) {
    const origin = originOfTask(task);
    served.research = {
      ...research,
      id: origin.id,
      metrics: { latency_ms: latencyMs, cost_usd: 0, tool_calls: 0, channels_hit: [] },
      delegate: { ...research.delegate, parent_id: origin.parentId, tokens: 0 },
    };
  }
  return served;
}
