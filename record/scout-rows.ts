/**
 * The scout record's shapes: what a reservation writes, a scout as the record holds it, the caps
 * and what is left under them, a period's counts; and the translations between them and the
 * `scouts` table's rows (the first row of a scout, a row read back, the page cursor).
 */
import type { Selectable } from 'kysely';
import type { ScoutsTable } from './db';
import { noNul } from './no-nul';
import { scopeKey } from './scout-text';

/** Scouts without a feature may be pruned once older than this many days; scouts with a feature never are. */
export const SCOUT_RETENTION_DAYS = 90;

/** A scout's state in the record. */
export type ScoutState = 'dispatched' | 'prepped' | 'committed' | 'error';
/** The status a scout report gives itself. */
export type ScoutReportStatus = 'success' | 'partial' | 'no_findings' | 'error';

/** What `reserve` writes. */
export interface ScoutReservation {
  id: string;
  parentAgent: string;
  parentSessionId: string;
  featureSlug: string | null;
  question: string;
  scopePaths: string[];
  excerpt: string;
  jobId?: string | null;
  /** Epoch ms. */
  createdAt: number;
}

/** The caps a reservation is checked against. */
export interface ScoutCaps {
  perSession: number;
  perScope: number;
}

/** Scouts a session may still dispatch: in all, and on one scope. Never negative. */
export interface ScoutRemaining {
  session: number;
  scope: number;
}

/** The outcome of a reservation: `remaining` counts after this one when it passed. */
export type ReserveOutcome = { ok: true; remaining: ScoutRemaining } | { ok: false; cap: 'session' | 'scope'; remaining: ScoutRemaining };

/** One scout as the record holds it: what was reserved, and what became of it; times in epoch ms, the report parsed. */
export interface ScoutRecord extends Omit<ScoutReservation, 'jobId'> {
  tenant: string;
  scopeKey: string;
  jobId: string | null;
  state: ScoutState;
  report: unknown;
  reportStatus: ScoutReportStatus | null;
  tokens: number | null;
  committedAt: number | null;
  failedAt: number | null;
  /** Invalid reports a harness sent for a prepped scout. */
  reportAttempts: number;
}

/** Counts of a tenant's scouts created in a period. */
export interface ScoutSummary {
  /** Every scout dispatched, whatever became of it. */
  dispatched: number;
  committed: number;
  perSession: { parentSessionId: string; parentAgent: string; count: number }[];
  /** A topic is the feature slug when set, else `topicOf(question)`; most frequent first, ties by topic. */
  topTopics: { topic: string; count: number }[];
}

/** A scout's row as it is first written: dispatched (with its job) or prepped for a harness (none yet). */
export function newScoutRow(tenant: string, row: ScoutReservation, state: 'dispatched' | 'prepped') {
  return {
    tenant,
    id: row.id,
    parent_agent: row.parentAgent,
    parent_session_id: row.parentSessionId,
    feature_slug: row.featureSlug,
    question: noNul(row.question),
    scope_key: scopeKey(row.scopePaths),
    scope: JSON.stringify(row.scopePaths),
    excerpt: noNul(row.excerpt),
    job_id: row.jobId ?? null,
    state,
    report: null,
    report_status: null,
    tokens: null,
    created_at: Math.floor(row.createdAt),
    committed_at: null,
    failed_at: null,
  };
}

/** The opaque cursor after a scout: its (created_at, id). */
export function encodeScoutCursor(createdAt: number, id: string): string {
  return Buffer.from(JSON.stringify([createdAt, id])).toString('base64url');
}

/** The position a scout cursor names; undefined when it is not one of ours (the API refuses it). */
export function decodeScoutCursor(cursor: string): { createdAt: number; id: string } | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    if (Array.isArray(v) && v.length === 2 && Number.isSafeInteger(v[0]) && typeof v[1] === 'string')
      return { createdAt: v[0] as number, id: v[1] };
  } catch {
    // not JSON: not ours
  }
  return undefined;
}

/** A `scouts` row as the record's callers see it (PostgreSQL's bigints made numbers). */
export const toRecord = (r: Selectable<ScoutsTable>): ScoutRecord => ({
  tenant: r.tenant,
  id: r.id,
  parentAgent: r.parent_agent,
  parentSessionId: r.parent_session_id,
  featureSlug: r.feature_slug,
  question: r.question,
  scopePaths: JSON.parse(r.scope) as string[],
  scopeKey: r.scope_key,
  excerpt: r.excerpt,
  jobId: r.job_id,
  state: r.state as ScoutState,
  report: r.report === null ? null : (JSON.parse(r.report) as unknown),
  reportStatus: r.report_status as ScoutReportStatus | null,
  tokens: r.tokens === null ? null : Number(r.tokens),
  createdAt: Number(r.created_at),
  committedAt: r.committed_at === null ? null : Number(r.committed_at),
  failedAt: r.failed_at === null ? null : Number(r.failed_at),
  reportAttempts: Number(r.report_attempts ?? 0),
});
