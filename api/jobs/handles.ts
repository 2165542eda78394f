/**
 * What every job operation shares: the workflow id of a tenant's job, its handle, its
 * Temporal UI link, and its description (a 404 when there is no such job).
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { AgentRegistry } from '../../activities';
import type { RecordStore } from '../../record';
import type { Config, JobView } from '../../schemas';
import type { delegationJob } from '../../workflows/delegation-job';
import type { TenantDirectory } from '../../config/tenants';
import { HttpProblem } from '../errors';

/** What the job service needs. */
export interface JobServiceDeps {
  client: Client;
  config: Config;
  registry: AgentRegistry;
  tenants: TenantDirectory;
  /** The durable record of finished jobs: read once Temporal has deleted them. */
  record: RecordStore;
}

const STATE: Record<string, JobView['state']> = {
  RUNNING: 'running',
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed_out',
  CONTINUED_AS_NEW: 'continued_as_new',
};

/** A job's state from Temporal's execution status name (unknown names read as running). */
export function stateOf(statusName: string): JobView['state'] {
  return STATE[statusName] ?? 'running';
}

/** A root job's handle and description, by tenant and job id. */
export function createJobHandles({ client, config, record }: Pick<JobServiceDeps, 'client' | 'config' | 'record'>) {
  const workflowIdOf = (tenant: string, jobId: string) => `job/${tenant}/${jobId}`;
  const handleOf = (tenant: string, jobId: string): WorkflowHandle<typeof delegationJob> =>
    client.workflow.getHandle<typeof delegationJob>(workflowIdOf(tenant, jobId));
  const uiLink = (workflowId: string) =>
    `${config.TEMPORAL_UI_URL}/namespaces/${encodeURIComponent(config.TEMPORAL_NAMESPACE)}/workflows/${encodeURIComponent(workflowId)}`;

  /** The job's Temporal description; 404 when there is no such job. */
  async function describe(tenant: string, jobId: string) {
    try {
      return await handleOf(tenant, jobId).describe();
    } catch (err) {
      if ((err as Error).name === 'WorkflowNotFoundError') throw new HttpProblem(404, 'Not found', `no job "${jobId}"`);
      throw err;
    }
  }

  /** The handle of a job that still runs; 409 when it has finished. */
  async function requireRunning(tenant: string, jobId: string): Promise<WorkflowHandle<typeof delegationJob>> {
    // a job in the record has finished, whether Temporal still has its workflow or not
    if (await record.specHashOf(tenant, jobId)) throw new HttpProblem(409, 'Conflict', `job "${jobId}" has already finished (completed)`);
    const d = await describe(tenant, jobId);
    if (d.status.name !== 'RUNNING')
      throw new HttpProblem(409, 'Conflict', `job "${jobId}" has already finished (${STATE[d.status.name] ?? d.status.name})`);
    return handleOf(tenant, jobId);
  }

  /** 404 unless the tenant has this job, in the record or in Temporal. */
  async function requireJob(tenant: string, jobId: string): Promise<void> {
    if (!(await record.specHashOf(tenant, jobId))) await describe(tenant, jobId);
  }

  /** Whether the job's workflow has closed (or is gone): nothing more will be written for it. */
  async function isOver(tenant: string, jobId: string): Promise<boolean> {
    return handleOf(tenant, jobId)
      .describe()
      .then(
        (d) => d.status.name !== 'RUNNING',
        () => true,
      );
  }

  return { workflowIdOf, handleOf, uiLink, describe, requireRunning, requireJob, isOver };
}

/** The shared job lookups. */
export type JobHandles = ReturnType<typeof createJobHandles>;
