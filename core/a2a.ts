/** What a job started over A2A keeps for the protocol: its context id label and its push settings (pure, zod-free). */
import type { JobSpec } from '../schemas/job';

/** The label a job started over A2A keeps its `contextId` in (absent: the context is the job id). */
export const A2A_CONTEXT_LABEL = 'a2a.context';

/** The A2A context of a job: its label, else the job id. */
export const a2aContextOf = (jobId: string, labels: Record<string, string> | undefined): string => labels?.[A2A_CONTEXT_LABEL] ?? jobId;

/** The A2A part of a job's completion webhook (`WebhookInput.a2a`): set when the spec asks for an A2A push. */
export function a2aPushOf(
  spec: Pick<JobSpec, 'jobId' | 'labels' | 'callbackFormat' | 'callbackToken'>,
): { contextId: string; token?: string } | undefined {
  if (spec.callbackFormat !== 'a2a') return undefined;
  return { contextId: a2aContextOf(spec.jobId ?? '', spec.labels), ...(spec.callbackToken ? { token: spec.callbackToken } : {}) };
}
