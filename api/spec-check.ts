/** Checks a schema-valid JobSpec against what this deployment can run: agents, params, depth. */
import type { AgentRegistry } from '../activities';
import { backtrackingPatterns } from '../activities/output-schema';
import { schemaThreads } from '../activities/schema-thread';
import { semanticText } from '../activities';
import type { AgentRef, JobSpec } from '../schemas';
import { refGraphErrors } from '../schemas/output-schema-refs';
import { DEFAULT_STEP_CEILING_SECONDS } from '../core/engine-limits';
import { capabilityKey, routeKey, runManifest, type Routes, type RunManifest } from '../core/routing';
import { checkStepPolicy } from '../core/step-policy';
import { formatPath, type FieldError } from './errors';
import { checkRoleTask } from './role-check';
import { checkFallbacks } from './fallbacks';
import { refusal } from '../activities/agents/registry';
import { parseAgentRef, versionList } from '../activities/agents/versions';

/** Distinct outputSchemas one request may make the API compile, in JSON bytes: compiling costs CPU. */
export const MAX_OUTPUT_SCHEMA_BYTES_PER_REQUEST = 1024 * 1024;
/** Distinct outputSchemas one request may make the API compile. */
export const MAX_OUTPUT_SCHEMAS_PER_REQUEST = 32;
/** Longest the compile checks of one request may wait and run, in ms (each compile is bounded by the schema threads too). */
export const OUTPUT_SCHEMA_CHECK_MS = 20_000;

/**
 * Why an outputSchema cannot be used, as messages: its `$ref` graph (checked here, linear),
 * then whether it compiles (in a schema thread, off the event loop, at most `size - 1` threads
 * per tenant), then its backtracking patterns.
 */
async function outputSchemaErrors(schema: Record<string, unknown>, owner: string, signal: AbortSignal): Promise<string[]> {
  const refs = refGraphErrors(schema);
  if (refs.length > 0) return refs;
  const compiled = await schemaThreads.compile(schema, { owner, signal });
  if (signal.aborted && !compiled.ok)
    return [
      `compiling this request's outputSchemas took longer than ${OUTPUT_SCHEMA_CHECK_MS / 1000} s; submit fewer or smaller distinct schemas`,
    ];
  if (!compiled.ok) return [compiled.error];
  return backtrackingPatterns(schema);
}

/**
 * Every outputSchema of the spec (at every level of nesting) that cannot be used, at its field
 * path, within the per-request caps (distinct schemas, their bytes, the time to check them);
 * `tenant` owns the compiles. A schema repeated across tasks is checked once.
 */
export async function checkOutputSchemas(spec: JobSpec, tenant = 'unknown'): Promise<FieldError[]> {
  // in task order: a schema's errors are placeholders until its compile answers
  const errors: (FieldError | Promise<FieldError[]>)[] = [];
  const schemaChecks = new Map<string, Promise<string[]>>();
  let schemaBytes = 0;
  const signal = AbortSignal.timeout(OUTPUT_SCHEMA_CHECK_MS);
  const walk = (job: JobSpec, path: (string | number)[]) => {
    job.tasks.forEach((task, i) => {
      const at = [...path, 'tasks', i];
      if (task.outputSchema) checkOne(task.outputSchema, formatPath([...at, 'outputSchema']));
      if (task.job) walk(task.job, [...at, 'job']);
    });
  };
  const checkOne = (schema: Record<string, unknown>, field: string) => {
    const json = JSON.stringify(schema);
    let check = schemaChecks.get(json);
    if (!check && schemaChecks.size >= MAX_OUTPUT_SCHEMAS_PER_REQUEST) {
      errors.push({
        path: field,
        message: `more than ${MAX_OUTPUT_SCHEMAS_PER_REQUEST} distinct outputSchemas in one request; reuse one schema across tasks`,
      });
    } else if (!check && schemaBytes + json.length > MAX_OUTPUT_SCHEMA_BYTES_PER_REQUEST) {
      errors.push({
        path: field,
        message: `distinct outputSchemas in one request pass ${MAX_OUTPUT_SCHEMA_BYTES_PER_REQUEST} bytes; reuse one schema across tasks`,
      });
    } else {
      if (!check) {
        schemaBytes += json.length;
        schemaChecks.set(json, (check = outputSchemaErrors(schema, tenant, signal)));
      }
      errors.push(check.then((messages) => messages.map((message) => ({ path: field, message }))));
    }
  };
  walk(spec, []);
  return (await Promise.all(errors.map((e) => (e instanceof Promise ? e : [e])))).flat();
}

/** Every reason the spec cannot run here but its outputSchemas (`checkOutputSchemas`), as field paths (empty = runnable). */
export function checkRunnable(
  spec: JobSpec,
  registry: AgentRegistry,
  maxDepth: number,
  stepCeilingSeconds = DEFAULT_STEP_CEILING_SECONDS,
): FieldError[] {
  const errors: FieldError[] = [];
  // `approvalAt`: the path of the approval policy a task of this job inherits (its own, else an enclosing job's)
  const walk = (job: JobSpec, path: (string | number)[], depth: number, inherited?: (string | number)[]) => {
    const approvalAt = job.approval ? [...path, 'approval'] : inherited;
    job.tasks.forEach((task, i) => {
      const at = [...path, 'tasks', i];
      if (task.job) {
        if (depth + 1 > maxDepth) {
          errors.push({
            path: formatPath([...at, 'job']),
            message: `nested job at depth ${depth + 1} exceeds the cap of ${maxDepth} levels`,
          });
        } else walk(task.job, [...at, 'job'], depth + 1, approvalAt);
        return;
      }
      errors.push(...checkRoleTask(task, at, depth, registry, approvalAt));
      if (task.agent === undefined) return;
      errors.push(...checkFallbacks(task, at, registry));
      if (routedLater(task.agent, registry)) return;
      // a capability routes among its agents that take the params and the scope: check against one of those
      const def =
        (typeof task.agent === 'object' && 'capability' in task.agent
          ? registry.candidates(task.agent.capability).find((d) => refusal(d, task.params, task.scope) === undefined)
          : undefined) ?? registry.resolve(task.agent, task.question, task);
      if (!def) {
        const what =
          typeof task.agent === 'string'
            ? unknownAgent(task.agent, registry)
            : `no agent matches ${JSON.stringify(task.agent)}${semanticMiss(task, registry)}`;
        errors.push({ path: formatPath([...at, 'agent']), message: `${what}; GET /v1/agents lists them` });
        return;
      }
      const overCeiling = checkStepPolicy(task, stepCeilingSeconds, {
        timeoutSeconds: def.manifest.limits.timeoutSeconds,
        retry: def.manifest.retry,
      });
      if (overCeiling) errors.push({ path: formatPath([...at, 'retry']), message: overCeiling });
      const parsed = def.params.safeParse(task.params ?? {});
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          errors.push({ path: formatPath([...at, 'params', ...issue.path]), message: `${issue.message} (agent "${def.manifest.id}")` });
        }
      }
      const tools = def.toolsFor?.(parsed.success ? parsed.data : {}) ?? [];
      const denied = parsed.success ? tools.filter((t) => !(task.scope ?? []).includes(t)) : [];
      if (denied.length > 0) {
        errors.push({
          path: formatPath([...at, 'scope']),
          message: `agent "${def.manifest.id}" would use tools outside the scope: ${denied.join(', ')}`,
        });
      }
    });
  };
  walk(spec, [], 0);
  return errors;
}

/**
 * The spec with every agent reference (id, semantic route) resolved to an agent id, the
 * manifests of those agents, and why routing chose the agent of each task it routed (`routes`,
 * by task key: the subtask's `routing.reason`): the job hands each subtask its manifest, so no
 * subtask spends an activity on finding its agent. A semantic route picks only among the agents
 * that take the task's params and scope. A capability keeps its reference: with one agent, its
 * manifest is handed over under `capability:<name>`; with several, the subtask routes it by load
 * when it starts. (A capability routed by load takes its other agents as fallbacks then, when the
 * task names none.) Call after `checkRunnable` found nothing.
 */
export function resolveAgents(
  spec: JobSpec,
  registry: AgentRegistry,
): { spec: JobSpec; agents: Record<string, RunManifest>; routes: Routes } {
  const agents: Record<string, RunManifest> = {};
  const routes: Routes = {};
  const walk = (job: JobSpec, path: string[]): JobSpec => ({
    ...job,
    tasks: job.tasks.map((task) => {
      if (task.job) return { ...task, job: walk(task.job, [...path, task.id]) };
      if (typeof task.agent === 'object' && 'capability' in task.agent) {
        // one agent: handed over now; several: left to the subtask, which routes by load when it starts
        const candidates = registry.candidates(task.agent.capability);
        if (candidates.length === 1) agents[capabilityKey(task.agent.capability)] = runManifest(candidates[0].manifest);
        return task;
      }
      const found =
        task.agent === undefined || routedLater(task.agent, registry)
          ? undefined
          : registry.resolveWithReason(task.agent, task.question, task);
      if (!found) return task;
      const { def, reason } = found;
      agents[def.manifest.id] = runManifest(def.manifest);
      if (reason !== undefined) routes[routeKey([...path, task.id])] = reason;
      return { ...task, agent: def.manifest.id };
    }),
  });
  return { spec: walk(spec, []), agents, routes };
}

/**
 * A semantic reference under embeddings is left to the subtask's `resolveAgent` activity:
 * the API does not wait on the embeddings endpoint, and its params are checked there.
 */
function routedLater(ref: AgentRef, registry: AgentRegistry): boolean {
  return typeof ref !== 'string' && 'route' in ref && registry.semantic.method === 'embeddings';
}

/** Why a named agent is not found: no such id, or (`x@^9`) none of its versions matches, listing them. */
function unknownAgent(ref: string, registry: AgentRegistry): string {
  const { id, range } = parseAgentRef(ref);
  const versions = registry.versionsOf(id);
  if (range === undefined || versions.length === 0) return `unknown agent "${ref}"`;
  return `agent "${id}" has no version matching "${range}"; its versions: ${versionList(versions)}`;
}

/** Why semantic routing found no agent (`: semantic: bm25: best x at 0.21 < 0.30`), empty for other references. */
function semanticMiss(task: JobSpec['tasks'][number], registry: AgentRegistry): string {
  const ref = task.agent;
  if (ref === undefined || typeof ref === 'string' || !('route' in ref)) return '';
  return `: ${registry.semantic.routeLexical(semanticText(ref, task.question), registry.takes(task)).reason}`;
}
