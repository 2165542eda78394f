/**
 * Completion webhooks' secrets: the callback URL (its path or query may carry the receiver's
 * token) and an A2A push config's token. The API keeps them here and gives the job's workflow
 * input only an opaque reference; the webhook activity reads them back when it sends, so they
 * never enter a Temporal history (every start, child start and activity input is kept there).
 *
 *   API submit ──put(url, token)──> job_callbacks ──ref──> job input ──ref──> webhook delivery ──get(ref)──> POST url (token header)
 */
import { randomBytes } from 'node:crypto';
import type { RecordDb } from './db';

/** A job's completion webhook as the record keeps it. */
export interface JobCallback {
  tenant: string;
  jobId: string;
  url: string;
  format: 'delegate' | 'a2a';
  token?: string;
}

/** The callbacks part of the record. */
export function createCallbacks({ db }: RecordDb) {
  return {
    /** Stores a job's callback; returns its new reference (random: it names nothing). */
    async put(c: JobCallback): Promise<string> {
      const ref = `cb_${randomBytes(16).toString('hex')}`;
      await db
        .insertInto('job_callbacks')
        .values({ ref, tenant: c.tenant, job_id: c.jobId, url: c.url, format: c.format, token: c.token ?? null, created_at: Date.now() })
        .execute();
      return ref;
    },
    /** The callback of `ref` for `tenant`'s job; undefined when none (pruned, or another tenant's). */
    async get(ref: string, tenant: string): Promise<JobCallback | undefined> {
      const row = await db.selectFrom('job_callbacks').selectAll().where('ref', '=', ref).where('tenant', '=', tenant).executeTakeFirst();
      if (!row) return undefined;
      return {
        tenant: row.tenant,
        jobId: row.job_id,
        url: row.url,
        format: row.format === 'a2a' ? 'a2a' : 'delegate',
        ...(row.token !== null ? { token: row.token } : {}),
      };
    },
    /** Deletes a callback no job refers to (its start was refused). */
    async drop(ref: string): Promise<void> {
      await db.deleteFrom('job_callbacks').where('ref', '=', ref).execute();
    },
    /** Deletes the callbacks stored before `before` (epoch ms): the record's retention; returns how many. */
    async prune(before: number): Promise<number> {
      const res = await db.deleteFrom('job_callbacks').where('created_at', '<', before).executeTakeFirst();
      return Number(res.numDeletedRows);
    },
  };
}

/** The callbacks part of the record's operations. */
export type Callbacks = ReturnType<typeof createCallbacks>;
