/**
 * The record's hygiene, one tenant at a time (what `delegate doctor` reports and `--fix` mends):
 * orphaned scouts, those with no feature older than the retention, which the prune schedule
 * deletes for every tenant on its next run and `--fix` deletes now; and inbox items still pending
 * past their expiry, which the workflow that opened them settles (a lingering one means its job is
 * gone). Scouts with a feature are never counted nor deleted: their feature keeps them.
 *
 *   orphans(tenant, before) ── scouts: feature_slug IS NULL AND created_at < before ── { count, oldestAt }
 *   deleteOrphans(tenant, before) ── the same rows, deleted
 *   overdueItems(tenant, now) ── inbox: state = 'pending' AND expires_at < now
 */
import type { RecordDb } from './db';
import { orphanScout } from './scouts';

/** Orphaned scouts of a tenant: how many, and when the oldest was created (epoch ms; null: none). */
export interface OrphanScouts {
  count: number;
  oldestAt: number | null;
}

/** The hygiene queries over the same database as `createRecordStore`. */
export function createRecordHygiene({ db }: RecordDb) {
  return {
    /** The tenant's scouts without a feature created before `before` (epoch ms). */
    async orphans(tenant: string, before: number): Promise<OrphanScouts> {
      const r = await db
        .selectFrom('scouts')
        .where('tenant', '=', tenant)
        .where(orphanScout(before))
        .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('created_at').as('oldest')])
        .executeTakeFirstOrThrow();
      return { count: Number(r.n), oldestAt: r.oldest === null ? null : Number(r.oldest) };
    },

    /** Deletes the tenant's scouts without a feature created before `before`; how many went. */
    async deleteOrphans(tenant: string, before: number): Promise<number> {
      const r = await db.deleteFrom('scouts').where('tenant', '=', tenant).where(orphanScout(before)).executeTakeFirst();
      return Number(r.numDeletedRows);
    },

    /** The tenant's inbox items still pending after their expiry (epoch ms `now`). */
    async overdueItems(tenant: string, now: number): Promise<number> {
      const r = await db
        .selectFrom('inbox')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('tenant', '=', tenant)
        .where('state', '=', 'pending')
        .where('expires_at', '<', Math.floor(now))
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
  };
}

/** The hygiene part of the record. */
export type RecordHygiene = ReturnType<typeof createRecordHygiene>;
