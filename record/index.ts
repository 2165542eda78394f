/** The durable record: where it lives (config), opening it, and its store. */
import type { Config } from '../schemas';
import { openRecordDb, type RecordLocation } from './db';
import { createRecordStore, type RecordStore } from './store';

export { createJobEvents, type JobEvents } from './events';
export { createTaskStats, measuredResults, STATS_MAX_DAYS, STATS_WINDOW_DAYS, type AgentStats, type TaskStatsStore } from './task-stats';
export { createInbox, INBOX_PAGE, type Inbox, type InboxFilter, type InboxSettle } from './inbox';
export { createScoutStore, type ScoutStore } from './scouts';
export {
  decodeScoutCursor,
  SCOUT_RETENTION_DAYS,
  type ReserveOutcome,
  type ScoutCaps,
  type ScoutRecord,
  type ScoutRemaining,
  type ScoutReportStatus,
  type ScoutReservation,
  type ScoutState,
  type ScoutSummary,
} from './scout-rows';
export { scopeKey, scoutSummaryLine, topicOf } from './scout-text';
export { createRecordHygiene, type OrphanScouts, type RecordHygiene } from './hygiene';
export { createFeatureDossiers, type Dossier, type DossierEntry, type FeatureDossiers } from './feature-dossiers';
export { createCallbacks, type Callbacks, type JobCallback } from './callbacks';
export { createParentSessions, type JobOrigin, type ParentModel, type ParentSessions } from './parent-sessions';
export { deploymentIdOf } from './deployment';
export { createResultCache, type CachedResult, type ResultCacheStore } from './result-cache';
export { dialectOf, openRecordDb, type Dialect, type RecordDb, type RecordLocation } from './db';
export { createRecordStore, type RecordStore } from './store';
export type { ArchiveInput } from './job-archive';
export type { JobRecord } from './job-reads';
export { decodeCursor, type ReportFilter } from './job-search';
export type { PruneOutcome } from './job-prune';

/** Where the configuration puts the record. */
export function recordLocation(config: Pick<Config, 'DELEGATE_DATABASE_URL' | 'DELEGATE_RECORD_FILE'>): RecordLocation {
  return { databaseUrl: config.DELEGATE_DATABASE_URL, sqliteFile: config.DELEGATE_RECORD_FILE };
}

/** The record an open store and its closer. */
export interface OpenRecord {
  store: RecordStore;
  where: string;
  close(): Promise<void>;
}

/** Opens the configured record, migrating its schema when needed. */
export async function openRecord(loc: RecordLocation): Promise<OpenRecord> {
  const db = await openRecordDb(loc);
  return { store: createRecordStore(db), where: `${db.dialect}:${db.where}`, close: db.close };
}
