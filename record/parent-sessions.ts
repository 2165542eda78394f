/**
 * Parent sessions and where root jobs came from. A parent agent names its session and its
 * current model on its requests (headers on REST and A2A, `_meta` on MCP): the latest one is
 * kept per session, and the session's running jobs start their next children on it. Each root
 * job's origin row holds its trace id (its events carry it) and the session that submitted it.
 *
 *   request (session, model) ──note──> parent_sessions ──changed? runningJobs──> the jobs' model update
 *   submit ──origin(traceId, session)──> job_origins ──> events.after adds traceId · runningJobs
 */
import type { RecordDb } from './db';

/** A parent's current model and output cap, as its requests state them. */
export interface ParentModel {
  model?: string;
  maxOutputTokens?: number;
}

/** Where a root job came from. */
export interface JobOrigin {
  tenant: string;
  jobId: string;
  traceId: string;
  parentSession?: string;
}

/** Root jobs of a session the API tells of a model switch at once, newest first (older ones are rarely still running). */
const SESSION_JOBS = 100;

/** The state after a request: what it leaves out keeps its value (as POST /v1/jobs/:jobId/model). */
function merged(prev: ParentModel, next: ParentModel): ParentModel {
  const model = next.model ?? prev.model;
  const maxOutputTokens = next.maxOutputTokens ?? prev.maxOutputTokens;
  return { ...(model ? { model } : {}), ...(maxOutputTokens ? { maxOutputTokens } : {}) };
}

/** The parent sessions part of the record. */
export function createParentSessions({ db }: RecordDb) {
  /** The session's model and cap; undefined when it never named one. */
  async function modelOf(tenant: string, sessionId: string): Promise<ParentModel | undefined> {
    const row = await db
      .selectFrom('parent_sessions')
      .select(['model', 'max_output_tokens'])
      .where('tenant', '=', tenant)
      .where('session_id', '=', sessionId)
      .executeTakeFirst();
    if (!row) return undefined;
    return merged({}, { model: row.model ?? undefined, maxOutputTokens: row.max_output_tokens ?? undefined });
  }

  return {
    modelOf,

    /** Keeps what the session's latest request says of its model; `changed` when that differs from what was kept. */
    async note(tenant: string, sessionId: string, said: ParentModel): Promise<{ state: ParentModel; changed: boolean }> {
      const prev = (await modelOf(tenant, sessionId)) ?? {};
      const state = merged(prev, said);
      const changed = state.model !== prev.model || state.maxOutputTokens !== prev.maxOutputTokens;
      if (!changed) return { state, changed };
      const row = { model: state.model ?? null, max_output_tokens: state.maxOutputTokens ?? null, updated_at: Date.now() };
      await db
        .insertInto('parent_sessions')
        .values({ tenant, session_id: sessionId, ...row })
        .onConflict((oc) => oc.columns(['tenant', 'session_id']).doUpdateSet(row))
        .execute();
      return { state, changed };
    },

    /** Records a root job's origin at submission; a resubmission keeps the first one's. */
    async origin(o: JobOrigin): Promise<void> {
      await db
        .insertInto('job_origins')
        .values({ tenant: o.tenant, job_id: o.jobId, trace_id: o.traceId, parent_session: o.parentSession ?? null, created_at: Date.now() })
        .onConflict((oc) => oc.columns(['tenant', 'job_id']).doNothing())
        .execute();
    },

    /** The session's root jobs that have not finished (none in the record's finished jobs), newest first. */
    async runningJobs(tenant: string, sessionId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('job_origins as o')
        .select('o.job_id')
        .where('o.tenant', '=', tenant)
        .where('o.parent_session', '=', sessionId)
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('jobs as j').select('j.id').whereRef('j.tenant', '=', 'o.tenant').whereRef('j.job_id', '=', 'o.job_id'))),
        )
        .orderBy('o.created_at', 'desc')
        .limit(SESSION_JOBS)
        .execute();
      return rows.map((r) => r.job_id);
    },

    /** Deletes origins and sessions older than `before` (epoch ms): the record's retention; returns how many rows. */
    async prune(before: number): Promise<number> {
      const a = await db.deleteFrom('job_origins').where('created_at', '<', before).executeTakeFirst();
      const b = await db.deleteFrom('parent_sessions').where('updated_at', '<', before).executeTakeFirst();
      return Number(a.numDeletedRows) + Number(b.numDeletedRows);
    },
  };
}

/** The parent sessions part of the record's operations. */
export type ParentSessions = ReturnType<typeof createParentSessions>;
