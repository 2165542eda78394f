/**
 * Closing a feature (PROTOCOLS.md §2): its scouts are filed into the feature's dossier in the
 * record, a bullet per scout (question, confidence, recommendation, link). Idempotent: a second
 * close files only scouts settled since, and keeps the first close's time.
 *
 *   close(slug) ── record.dossiers.close (committed | error scouts, by id) ── + still running ones ── JSON + Markdown
 */
import type { DossierEntry, RecordStore } from '../../record';

/** One dossier entry as the API shows it: times in ISO, the scout's link. */
export interface DossierEntryView extends Omit<DossierEntry, 'settledAt'> {
  settledAt: string | null;
  link: string;
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The dossier as Markdown: a heading, then a bullet per scout. */
export function dossierMarkdown(slug: string, closedAt: string, entries: DossierEntryView[], pending: string[]): string {
  const lines = [`# Feature dossier: ${slug}`, '', `Closed ${closedAt}. Scouts: ${entries.length}.`, ''];
  for (const e of entries)
    lines.push(
      `- **${oneLine(e.question)}** (confidence ${e.confidence ?? 'none'}, ${e.status ?? 'no report'}): ${oneLine(e.recommendation ?? 'no recommendation')} [${e.scoutId}](${e.link})`,
    );
  if (entries.length === 0) lines.push('- (no scouts)');
  if (pending.length) lines.push('', `Still running, not filed: ${pending.join(', ')}.`);
  return `${lines.join('\n')}\n`;
}

/** Closes a tenant's feature: files its settled scouts into its dossier; the dossier as JSON and Markdown. */
export async function closeFeature(record: RecordStore, publicUrl: string, tenant: string, slug: string, at = Date.now()) {
  const { dossier, added, alreadyClosed } = await record.dossiers.close(tenant, slug, at);
  const pending: string[] = [];
  for (const state of ['dispatched', 'prepped'] as const) {
    const page = await record.scouts.list(tenant, { feature: slug, state, limit: 500 });
    pending.push(...page.scouts.map((s) => s.id));
  }
  const closedAt = new Date(dossier.closedAt).toISOString();
  const entries: DossierEntryView[] = dossier.entries.map((e) => ({
    ...e,
    settledAt: e.settledAt === null ? null : new Date(e.settledAt).toISOString(),
    link: `${publicUrl}/v1/scouts/${e.scoutId}`,
  }));
  return {
    featureSlug: slug,
    closedAt,
    alreadyClosed,
    added,
    pending,
    entries,
    markdown: dossierMarkdown(slug, closedAt, entries, pending),
  };
}
