/**
 * The spec each root job was submitted with, kept so a finished job can be replayed after
 * Temporal's retention has deleted its workflow (and its input with it). A replay's row names
 * the job it replays, which is how its comparison finds the other side.
 *
 *   API submit ──put(spec without the webhook's URL and token, replayOf?)──> job_specs
 *   POST /v1/jobs/:id/replay ──get(source)──> spec ──overrides──> a new job (replayOf = source)
 *   GET  /v1/jobs/:id/comparison ──get(replay).replayOf──> both results side by side
 *   prune: with its job (job-prune.ts), or at the callbacks' age when no job was ever archived
 */
import type { JobSpec } from '../schemas';
import type { RecordDb } from './db';

/** What a replay changed. */
export interface ReplayOverrides {
  agent?: string;
  model?: string;
}

/** A kept spec; a replay's names the job it replays and what it changed. */
export interface KeptSpec {
  spec: JobSpec;
  replay?: { of: string; overrides: ReplayOverrides };
}

/** The spec without what must not outlive the job's webhook (its URL may carry a token). */
export function keptSpecOf(spec: JobSpec): JobSpec {
  const { callbackUrl: _u, callbackToken: _t, ...rest } = spec;
  return rest;
}

/** The job specs part of the record. */
export function createJobSpecs({ db }: RecordDb) {
  return {
    /** Keeps a root job's spec at submission; a resubmission keeps the first one's. */
    async put(o: { tenant: string; jobId: string; spec: JobSpec; replay?: KeptSpec['replay'] }): Promise<void> {
      await db
        .insertInto('job_specs')
        .values({
          tenant: o.tenant,
          job_id: o.jobId,
          spec: JSON.stringify(keptSpecOf(o.spec)),
          replay_of: o.replay?.of ?? null,
          replay_overrides: o.replay ? JSON.stringify(o.replay.overrides) : null,
          created_at: Date.now(),
        })
        .onConflict((oc) => oc.columns(['tenant', 'job_id']).doNothing())
        .execute();
    },

    /** The spec the job was submitted with; undefined when the record kept none. */
    async get(tenant: string, jobId: string): Promise<KeptSpec | undefined> {
      const row = await db
        .selectFrom('job_specs')
        .select(['spec', 'replay_of', 'replay_overrides'])
        .where('tenant', '=', tenant)
        .where('job_id', '=', jobId)
        .executeTakeFirst();
      if (!row) return undefined;
      const spec = JSON.parse(row.spec) as JobSpec;
      if (row.replay_of === null) return { spec };
      return { spec, replay: { of: row.replay_of, overrides: JSON.parse(row.replay_overrides ?? '{}') as ReplayOverrides } };
    },

    /** How many replays of the job the record holds (the next generated replay id counts on from it). */
    async replayCount(tenant: string, jobId: string): Promise<number> {
      const row = await db
        .selectFrom('job_specs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('tenant', '=', tenant)
        .where('replay_of', '=', jobId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** Deletes specs older than `before` (epoch ms) whose job the record never archived (it cannot be running any more); returns how many. */
    async prune(before: number): Promise<number> {
      const res = await db
        .deleteFrom('job_specs')
        .where('created_at', '<', before)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('jobs as j')
                .select('j.id')
                .whereRef('j.tenant', '=', 'job_specs.tenant')
                .whereRef('j.job_id', '=', 'job_specs.job_id'),
            ),
          ),
        )
        .executeTakeFirst();
      return Number(res.numDeletedRows);
    },
  };
}

/** The job specs part of the record's operations. */
export type JobSpecs = ReturnType<typeof createJobSpecs>;
