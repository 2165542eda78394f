/**
 * The parent's latest model governs its session's jobs (protocol 3, model routing): a request
 * that names the parent's model has it kept per session, and each running root job of the
 * session takes it with the same update as POST /v1/jobs/:jobId/model, before the request is
 * answered. A job submitted in the session starts on it, whatever model its spec was written with.
 *
 *   request (session, model B) ──record.sessions.note──> changed? ──modelUpdate──> each running job of the session
 *   submit (session) ──record.sessions.modelOf──> the job's input.model (over spec.model)
 */
import { applyModelUpdate, type JobModelState } from '../../core/role-limits';
import type { ParentRequest } from '../../schemas';
import type { JobServiceDeps } from './handles';

/** The parent-model operations; `setModel` is the job service's own update. */
export function createParentModel(
  { record }: Pick<JobServiceDeps, 'record'>,
  setModel: (tenant: string, jobId: string, update: JobModelState) => Promise<JobModelState>,
) {
  return {
    /** Keeps what the request says of the parent's model (nothing when it names a session only); a change reaches the session's running jobs. */
    async noteParent(tenant: string, parent: ParentRequest): Promise<void> {
      if (!parent.model && !parent.maxOutputTokens) return;
      const said = {
        ...(parent.model ? { model: parent.model } : {}),
        ...(parent.maxOutputTokens ? { maxOutputTokens: parent.maxOutputTokens } : {}),
      };
      const { state, changed } = await record.sessions.note(tenant, parent.session, said);
      if (!changed) return;
      const jobs = await record.sessions.runningJobs(tenant, parent.session);
      // a job that finished meanwhile refuses the update (409): nothing is left to switch
      await Promise.all(jobs.map((jobId) => setModel(tenant, jobId, state).catch(() => undefined)));
    },
  };
}

/** The model a job submitted in `session` starts on: the session's over the spec's; undefined when the session named none. */
export async function startingModel(
  record: JobServiceDeps['record'],
  tenant: string,
  session: string,
  spec: JobModelState,
): Promise<JobModelState | undefined> {
  const kept = await record.sessions.modelOf(tenant, session);
  if (!kept) return undefined;
  const written = {
    ...(spec.model ? { model: spec.model } : {}),
    ...(spec.maxOutputTokens ? { maxOutputTokens: spec.maxOutputTokens } : {}),
  };
  return applyModelUpdate(written, kept);
}
