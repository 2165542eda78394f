/**
 * One research-contract subtask as a job: submitted as a one-task job (the contract's labels,
 * its rationale as the objective), read back as the contract's output. The route and the MCP
 * server both call these, so the two cannot drift.
 *
 *   input ──toTaskPlan──> (no agent named: DELEGATE_RESEARCH_DEFAULT_AGENT, else a semantic route,
 *                          else an agent of capability "research", else 422 naming what to configure)
 *         ──> job { tasks: [task], labels } ──wait──> result.results[0].research
 */
import type { FastifyInstance } from 'fastify';
import { semanticText, type AgentRegistry } from '../../activities';
import { refusal } from '../../activities/agents/registry';
import type { JobResult, JobSpec, TaskSpec } from '../../schemas';
import type { ResearchSubtaskInput, ResearchSubtaskOutput } from '../../schemas/research-contract';
import { toTaskPlan } from '../../schemas/research-plan';
import type { Routes } from '../../core/routing';
import { HttpProblem } from '../errors';
import type { JobService } from '../job-service';

/** How a contract subtask that names no agent is routed. */
export interface ResearchRouting {
  /** The agent such a subtask runs on, before any route (DELEGATE_RESEARCH_DEFAULT_AGENT); unset: a semantic route picks one. */
  defaultAgent?: string;
  /** The deployment's agents: when no semantic route fits, one of capability RESEARCH_CAPABILITY takes the question. */
  registry?: AgentRegistry;
}

/** The routing an app's configuration gives. */
export const researchRoutingOf = (app: FastifyInstance): ResearchRouting => ({
  defaultAgent: app.config.DELEGATE_RESEARCH_DEFAULT_AGENT,
  registry: app.registry,
});

/** The capability of the agents a contract subtask that names none falls back to when no semantic route fits. */
export const RESEARCH_CAPABILITY = 'research';

/** Why a contract subtask that names no agent runs on the operator's default: its result's `routing.reason`. */
export const RESEARCH_DEFAULT_REASON = 'research default (DELEGATE_RESEARCH_DEFAULT_AGENT)';

/** What a 422 for an unrouted contract subtask tells its caller to do. */
export const NO_RESEARCH_AGENT_HINT =
  'name an `agent` (GET /v1/agents lists them), widen `scope`, or have the operator set DELEGATE_RESEARCH_DEFAULT_AGENT';

/** What an operator configures so that questions naming no agent run (the refusal's detail says it to the caller). */
export const CONFIGURE_RESEARCH_HINT = `the operator sets DELEGATE_RESEARCH_DEFAULT_AGENT, or gives an agent the capability "${RESEARCH_CAPABILITY}" in the agents file`;

/**
 * The task of a contract subtask that named no agent, and why its result says it ran where it
 * runs: the operator's default (no route then: the default is what the operator chose for such
 * questions); else its semantic route when one fits; else the agents of capability "research"
 * that take it. None of them: a 422 whose detail names what to configure. A semantic route under
 * embeddings is decided when the subtask starts (the API does not wait on the endpoint).
 */
function routeUnnamed(input: ResearchSubtaskInput, task: TaskSpec, routing: ResearchRouting): { task: TaskSpec; routes?: Routes } {
  const ref = task.agent;
  if (input.agent !== undefined || ref === undefined) return { task };
  if (routing.defaultAgent) return { task: { ...task, agent: routing.defaultAgent }, routes: { [task.id]: RESEARCH_DEFAULT_REASON } };
  const registry = routing.registry;
  if (!registry || registry.semantic.method !== 'bm25' || typeof ref !== 'object' || !('route' in ref)) return { task };
  const semantic = registry.semantic.routeLexical(semanticText(ref, task.question), registry.takes(task));
  if (semantic.id !== undefined) return { task };
  const capable = registry.candidates(RESEARCH_CAPABILITY).filter((d) => refusal(d, task.params, task.scope) === undefined);
  if (capable.length > 0) return { task: { ...task, agent: { capability: RESEARCH_CAPABILITY } } };
  throw new HttpProblem(422, 'No agent for the question', `no agent of this deployment can take the question: ${CONFIGURE_RESEARCH_HINT}`, [
    {
      path: 'body.agent',
      message: `${semantic.reason}, and no agent of capability "${RESEARCH_CAPABILITY}" takes it; ${NO_RESEARCH_AGENT_HINT}`,
    },
  ]);
}

/** The contract output of a finished research-subtask job, or a 404 when the job is not one. */
export function outputOf(jobId: string, result: JobResult): ResearchSubtaskOutput {
  const out = result.results[0]?.research;
  if (result.results.length !== 1 || !out)
    throw new HttpProblem(404, 'Not found', `job "${jobId}" is not a research subtask: read it at /v1/jobs/${jobId}/result`);
  return out;
}

/** A submitted research subtask: its job, and its output when it finished within the wait. */
export interface ResearchRun {
  jobId: string;
  created: boolean;
  output?: ResearchSubtaskOutput;
}

/** TaskSpec fields and the contract's names for them. */
const CONTRACT_FIELD: Record<string, string> = {
  outputSchema: 'output_schema',
  contextSeed: 'context_seed',
  stopConditions: 'stop_conditions',
  timeoutSeconds: 'timeout_seconds',
  retry: 'retry_limit',
  fallback: 'agent',
};

/**
 * A submission's 422 in the contract's own terms: the one task's fields are the body's
 * (`body.tasks[0].outputSchema` is `body.output_schema`); an agent the caller did not name says
 * how to name one, or that the configured default is wrong.
 */
function inContractTerms(err: unknown, input: ResearchSubtaskInput, task: TaskSpec): unknown {
  if (!(err instanceof HttpProblem) || err.status !== 422 || !err.errors) return err;
  const defaulted = input.agent === undefined && typeof task.agent === 'string';
  const errors = err.errors.map((e) => {
    const m = /^body\.tasks\[0\](?:\.([A-Za-z]+))?(.*)$/.exec(e.path);
    if (!m) return e;
    const field = m[1] === undefined ? '' : `.${CONTRACT_FIELD[m[1]] ?? m[1]}`;
    const path = m[1] === 'fallback' ? 'body.agent' : `body${field}${m[2]}`;
    if (path !== 'body.agent' || input.agent !== undefined) return { path, message: e.message };
    const message = defaulted ? `DELEGATE_RESEARCH_DEFAULT_AGENT: ${e.message}` : `${e.message}; ${NO_RESEARCH_AGENT_HINT}`;
    return { path, message };
  });
  return new HttpProblem(err.status, err.title, err.detail, errors, err.headers);
}

/** Submits one contract subtask as a one-task job (idempotent on the key), routed as `routing` says; 422s in the contract's terms. */
export async function submitResearchSubtask(
  svc: JobService,
  routing: ResearchRouting,
  tenant: string,
  input: ResearchSubtaskInput,
  idempotencyKey?: string,
  extra: Pick<JobSpec, 'labels' | 'callbackUrl' | 'callbackFormat' | 'callbackToken'> = {},
) {
  const plan = toTaskPlan(input);
  const { task, routes } = routeUnnamed(input, plan.task, routing);
  return svc
    .submit(
      tenant,
      {
        pattern: 'fanout',
        tasks: [task],
        ...extra,
        labels: { ...plan.labels, ...extra.labels },
        ...(input.rationale ? { objective: input.rationale } : {}),
      },
      idempotencyKey,
      routes ? { routes } : {},
    )
    .catch((err: unknown) => {
      throw inContractTerms(err, input, task);
    });
}

/** Submits one contract subtask (idempotent on the key), routed as `routing` says (`researchRoutingOf`), and waits up to `waitSeconds` for its output. */
export async function runResearchSubtask(
  svc: JobService,
  routing: ResearchRouting,
  tenant: string,
  input: ResearchSubtaskInput,
  waitSeconds: number,
  idempotencyKey?: string,
): Promise<ResearchRun> {
  const sub = await submitResearchSubtask(svc, routing, tenant, input, idempotencyKey);
  const result = await svc.result(tenant, sub.jobId, waitSeconds);
  return { jobId: sub.jobId, created: sub.created, ...(result ? { output: outputOf(sub.jobId, result) } : {}) };
}

/** A contract subtask's output, waiting up to `waitSeconds`; while it runs, its contract id. */
export async function readResearchSubtask(
  svc: JobService,
  tenant: string,
  jobId: string,
  waitSeconds: number,
): Promise<{ output: ResearchSubtaskOutput } | { id: string }> {
  const result = await svc.result(tenant, jobId, waitSeconds);
  if (result) return { output: outputOf(jobId, result) };
  const view = await svc.view(tenant, jobId, { self: '', result: '', temporalUi: '' });
  return { id: view.subtasks?.[0]?.id ?? '' };
}
