/**
 * The durable record of finished jobs: written once per job by the archive activity, read
 * by the API after Temporal's retention has deleted the workflow, searched and summed up
 * per tenant, pruned by age (except jobs that carry a keep-label). Each part is its own
 * module over the same open database; this one puts them together.
 *
 *   archive (job-archive.ts) ── get, specHashOf, listFinished, archivedAmong (job-reads.ts)
 *   search (job-search.ts) ── summary (job-summary.ts) ── prune (job-prune.ts)
 *   and the record's other tables: events, scouts, dossiers, stats, inbox, hygiene, callbacks, sessions, deployment
 */
import type { RecordDb } from './db';
import { createJobEvents } from './events';
import { createFeatureDossiers } from './feature-dossiers';
import { createScoutStore } from './scouts';
import { createInbox } from './inbox';
import { createRecordHygiene } from './hygiene';
import { createCallbacks } from './callbacks';
import { createParentSessions } from './parent-sessions';
import { createJobSpecs } from './job-specs';
import { createResultCache } from './result-cache';
import { deploymentIdOf } from './deployment';
import { createTaskStats } from './task-stats';
import { createJobArchive } from './job-archive';
import { createJobReads } from './job-reads';
import { createJobSearch, SPARSE } from './job-search';
import { createJobSummary } from './job-summary';
import { createJobPrune } from './job-prune';

/** The record over an open database; `sparseText` is how many text matches count as few (tests set 0 to take the walk). */
export function createRecordStore(rdb: RecordDb, { sparseText = SPARSE }: { sparseText?: number } = {}) {
  return {
    dialect: rdb.dialect,
    /** The jobs' live events (see events.ts). */
    events: createJobEvents(rdb),
    /** The code scouts (see scouts.ts). */
    scouts: createScoutStore(rdb),
    /** Closed features' dossiers of their scouts (see feature-dossiers.ts). */
    dossiers: createFeatureDossiers(rdb),
    /** Task statistics per agent and pattern over a sliding window (see task-stats.ts). */
    stats: createTaskStats(rdb),
    /** Approvals, questions and budget waits (see inbox.ts). */
    inbox: createInbox(rdb),
    /** Orphaned scouts and overdue inbox items of a tenant, for `delegate doctor` (see hygiene.ts). */
    hygiene: createRecordHygiene(rdb),
    /** Completion webhooks' URLs and tokens, which job inputs name by reference (see callbacks.ts). */
    callbacks: createCallbacks(rdb),
    /** Parent sessions' current models, and each root job's trace id and session (see parent-sessions.ts). */
    sessions: createParentSessions(rdb),
    /** Each root job's submitted spec, for replays (see job-specs.ts). */
    specs: createJobSpecs(rdb),
    /** The identical-subtask cache: successes served to identical subtasks of the same tenant (see result-cache.ts). */
    resultCache: createResultCache(rdb),
    /** The deployment's id, made once with the record (see deployment.ts). */
    deploymentId: () => deploymentIdOf(rdb),
    ...createJobArchive(rdb),
    ...createJobReads(rdb),
    ...createJobSearch(rdb, { sparseText }),
    ...createJobSummary(rdb),
    ...createJobPrune(rdb),
  };
}

/** The record's operations. */
export type RecordStore = ReturnType<typeof createRecordStore>;
