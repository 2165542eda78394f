/**
 * Feature dossiers: when a feature closes, each of its settled scouts is filed into the
 * feature's dossier as one entry (question, confidence, recommendation). Filing is by scout id,
 * so closing again adds only scouts settled since, and never a second entry for one scout.
 *
 *   close(feature) ── its scouts (committed | error) ── entries not yet filed ── upsert (first closedAt kept)
 */
import type { RecordDb } from './db';

/** One scout filed in a dossier. */
export interface DossierEntry {
  scoutId: string;
  question: string;
  /** `high` | `medium` | `low`; null when the scout ended without a report. */
  confidence: string | null;
  recommendation: string | null;
  /** The report's status (`success`, `partial`, `no_findings`, `error`). */
  status: string | null;
  /** Epoch ms the scout was committed or failed. */
  settledAt: number | null;
}

/** A feature's dossier. */
export interface Dossier {
  featureSlug: string;
  /** Epoch ms of the first close. */
  closedAt: number;
  entries: DossierEntry[];
}

/** The dossiers part of the record, over the same database as `createRecordStore`. */
export function createFeatureDossiers({ db }: RecordDb) {
  return {
    /** A feature's dossier; undefined while the feature has never been closed. */
    async get(tenant: string, featureSlug: string): Promise<Dossier | undefined> {
      const row = await db
        .selectFrom('feature_dossiers')
        .selectAll()
        .where('tenant', '=', tenant)
        .where('feature_slug', '=', featureSlug)
        .executeTakeFirst();
      return row && { featureSlug, closedAt: Number(row.closed_at), entries: JSON.parse(row.entries) as DossierEntry[] };
    },

    /**
     * Files the feature's settled scouts (oldest first) into its dossier, in one transaction:
     * only those not filed yet are appended. `added` counts them (0 on a second close with nothing new).
     */
    async close(tenant: string, featureSlug: string, at: number): Promise<{ dossier: Dossier; added: number; alreadyClosed: boolean }> {
      return db.transaction().execute(async (trx) => {
        const before = await trx
          .selectFrom('feature_dossiers')
          .selectAll()
          .where('tenant', '=', tenant)
          .where('feature_slug', '=', featureSlug)
          .executeTakeFirst();
        const entries: DossierEntry[] = before ? (JSON.parse(before.entries) as DossierEntry[]) : [];
        const filed = new Set(entries.map((e) => e.scoutId));
        const scouts = await trx
          .selectFrom('scouts')
          .select(['id', 'question', 'report', 'report_status', 'committed_at', 'failed_at'])
          .where('tenant', '=', tenant)
          .where('feature_slug', '=', featureSlug)
          .where('state', 'in', ['committed', 'error'])
          .orderBy('created_at')
          .orderBy('id')
          .execute();
        let added = 0;
        for (const s of scouts) {
          if (filed.has(s.id)) continue;
          const report = s.report === null ? null : (JSON.parse(s.report) as { confidence?: string; recommendation?: string } | null);
          entries.push({
            scoutId: s.id,
            question: s.question,
            confidence: report?.confidence ?? null,
            recommendation: report?.recommendation ?? null,
            status: s.report_status,
            settledAt: s.committed_at ?? s.failed_at ?? null,
          });
          added++;
        }
        const closedAt = before ? Number(before.closed_at) : Math.floor(at);
        if (!before)
          await trx
            .insertInto('feature_dossiers')
            .values({ tenant, feature_slug: featureSlug, closed_at: closedAt, entries: JSON.stringify(entries) })
            .onConflict((oc) => oc.columns(['tenant', 'feature_slug']).doUpdateSet({ entries: JSON.stringify(entries) }))
            .execute();
        else if (added > 0)
          await trx
            .updateTable('feature_dossiers')
            .set({ entries: JSON.stringify(entries) })
            .where('tenant', '=', tenant)
            .where('feature_slug', '=', featureSlug)
            .execute();
        return { dossier: { featureSlug, closedAt, entries }, added, alreadyClosed: before !== undefined };
      });
    },
  };
}

/** The dossiers part of the record. */
export type FeatureDossiers = ReturnType<typeof createFeatureDossiers>;
