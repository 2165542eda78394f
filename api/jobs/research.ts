/**
 * One research-contract subtask as a job: submitted as a one-task job (the contract's labels,
 * its rationale as the objective), read back as the contract's output. The route and the MCP
 * server both call these, so the two cannot drift.
 *
 *   input ──toTaskPlan──> job { tasks: [task], labels } ──wait──> result.results[0].research
 */
import type { JobResult } from '../../schemas';
import type { ResearchSubtaskInput, ResearchSubtaskOutput } from '../../schemas/research-contract';
import { toTaskPlan } from '../../schemas/research-mapping';
import { HttpProblem } from '../errors';
import type { JobService } from '../job-service';

/** The contract output of a finished research-subtask job, or a 404 when the job is not one. */
export function outputOf(jobId: string, result: JobResult): ResearchSubtaskOutput {
  const out = result.results[0]?.research;
  if (result.results.length !== 1 || !out) throw new HttpProblem(404, 'Not found', `job "${jobId}" is not a research subtask: read it at /v1/jobs/${jobId}/result`);
  return out;
}

/** A submitted research subtask: its job, and its output when it finished within the wait. */
export interface ResearchRun {
  jobId: string;
  created: boolean;
  output?: ResearchSubtaskOutput;
}

/** Submits one contract subtask (idempotent on the key) and waits up to `waitSeconds` for its output. */
export async function runResearchSubtask(svc: JobService, tenant: string, input: ResearchSubtaskInput, waitSeconds: number, idempotencyKey?: string): Promise<ResearchRun> {
  const plan = toTaskPlan(input);
  const sub = await svc.submit(tenant, {
    pattern: 'fanout',
    tasks: [plan.task],
    labels: plan.labels,
    ...(input.rationale ? { objective: input.rationale } : {}),
  }, idempotencyKey);
  const result = await svc.result(tenant, sub.jobId, waitSeconds);
  return { jobId: sub.jobId, created: sub.created, ...(result ? { output: outputOf(sub.jobId, result) } : {}) };
}

/** A contract subtask's output, waiting up to `waitSeconds`; while it runs, its contract id. */
export async function readResearchSubtask(svc: JobService, tenant: string, jobId: string, waitSeconds: number): Promise<{ output: ResearchSubtaskOutput } | { id: string }> {
  const result = await svc.result(tenant, jobId, waitSeconds);
  if (result) return { output: outputOf(jobId, result) };
  const view = await svc.view(tenant, jobId, { self: '', result: '', temporalUi: '' });
  return { id: view.subtasks?.[0]?.id ?? '' };
}
