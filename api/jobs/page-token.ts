/**
 * The job listing's opaque page token: the position of the last job a page showed, as its
 * key (start time in ms, job id). Keys never change, so a token names the same place in the
 * listing however jobs move between Temporal and the record in the meantime.
 *
 *   page ──last item──> (startedAtMs, jobId) ──base64url("j1.<ms>.<jobId>")──> nextPageToken
 */

/** A place in the job listing: every job after it has a smaller key. */
export interface JobKey {
  /** Epoch ms of the job's start. */
  startedAt: number;
  jobId: string;
}

/** The job id characters (IdSchema's). */
const TOKEN = /^j1\.(\d{1,15})\.([A-Za-z0-9][A-Za-z0-9_.:-]{0,127})$/;

/** The token naming the place after `key`. */
export function encodeJobPageToken(key: JobKey): string {
  return Buffer.from(`j1.${key.startedAt}.${key.jobId}`).toString('base64url');
}

/** The place a token names; undefined when it is not a job-listing token this API gave. */
export function decodeJobPageToken(token: string): JobKey | undefined {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(token)) return undefined;
  const m = TOKEN.exec(Buffer.from(token, 'base64url').toString());
  return m ? { startedAt: Number(m[1]), jobId: m[2] } : undefined;
}

/** Newest first: negative when `a` comes before `b` in the listing (later start, or the same ms and a larger job id). */
export function compareJobKeys(a: JobKey, b: JobKey): number {
  if (a.startedAt !== b.startedAt) return b.startedAt - a.startedAt;
  return a.jobId < b.jobId ? 1 : a.jobId > b.jobId ? -1 : 0;
}

/** Whether `key` lies after the place `after` names (undefined: the listing's start). */
export const isAfter = (key: JobKey, after: JobKey | undefined): boolean => after === undefined || compareJobKeys(key, after) > 0;
