/**
 * Caps on the event streams a tenant holds open (SSE, A2A, MCP progress), per API process: one
 * tenant's thousand streams must not slow every other tenant down. Checked when a stream opens,
 * before anything is sent, so the refusal is a plain 429 with Retry-After.
 *
 *   open(tenant, job) ──tenant at its cap? job at its cap? ──> 429 + Retry-After
 *                     └─> counted ──> release() (the stream ended, or its client went away)
 */
import { HttpProblem } from '../errors';

/** How many streams may be open at once. */
export interface StreamCapsOptions {
  /** Per tenant (DELEGATE_QUOTA_OPEN_STREAMS). */
  perTenant: number;
  /** Per job of a tenant (DELEGATE_QUOTA_OPEN_STREAMS_PER_JOB). */
  perJob: number;
}

/** How long a refused stream should wait before trying again: streams end as their jobs do or their clients leave. */
const RETRY_AFTER_SECONDS = 5;

/** Counts open streams; `open` throws 429 past a cap. */
export function createStreamCaps({ perTenant, perJob }: StreamCapsOptions) {
  const tenants = new Map<string, number>();
  const jobs = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, n: number) => {
    const v = (m.get(k) ?? 0) + n;
    if (v > 0) m.set(k, v);
    else m.delete(k);
  };
  const refuse = (detail: string) =>
    new HttpProblem(429, 'Too many open streams', detail, undefined, { 'retry-after': String(RETRY_AFTER_SECONDS) });

  return {
    /**
     * Counts one more open stream of `tenant` on `jobId`, or throws 429 when the tenant or the job
     * has as many as its cap. Returns the release, which runs once however often it is called, and
     * runs by itself when `signal` aborts.
     */
    open(tenant: string, jobId: string, signal?: AbortSignal): () => void {
      const job = `${tenant}\u0000${jobId}`;
      const mine = tenants.get(tenant) ?? 0;
      if (mine >= perTenant) throw refuse(`tenant has ${mine} open event stream(s), its cap is ${perTenant}; close one or retry later`);
      const onJob = jobs.get(job) ?? 0;
      if (onJob >= perJob)
        throw refuse(`tenant has ${onJob} open event stream(s) of job "${jobId}", the cap per job is ${perJob}; share one`);
      add(tenants, tenant, 1);
      add(jobs, job, 1);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        signal?.removeEventListener('abort', release);
        add(tenants, tenant, -1);
        add(jobs, job, -1);
      };
      signal?.addEventListener('abort', release, { once: true });
      return release;
    },
    /** The tenant's open streams now. */
    held: (tenant: string): number => tenants.get(tenant) ?? 0,
  };
}

/** The stream caps' interface. */
export type StreamCaps = ReturnType<typeof createStreamCaps>;
