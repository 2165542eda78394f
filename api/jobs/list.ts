/**
 * The job listing: a tenant's root jobs, newest start first, one page at a time. A job is in
 * Temporal while it runs (or when it ended without a result) and in the record once it
 * completed; each source gives its newest pageSize+1 jobs after the token's key, and the
 * page is their merge.
 *
 *   visibility: Running            (newest start first) ────────┐
 *   visibility: Failed/Terminated… (newest close first, early stop) ─┼─> merge by (startedAt, jobId), ─> page, nextPageToken
 *   record:     completed, keyset (started_at, job_id) ─────────┘    record wins a job both hold
 *
 * Temporal is read before the record: a job is archived before its workflow completes, so
 * one that moves between the two reads is in the record by then (never in neither).
 */
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import type { RecordStore } from '../../record';
import type { JobListItem, JobOutcome, JobPage, Pattern } from '../../schemas';
import { JOB_WORKFLOW } from '../../core/names';
import { PATTERN_KEY, STATUS_KEY } from '../../core/search-attributes';
import { stateOf } from './handles';
import { compareJobKeys, encodeJobPageToken, isAfter, type JobKey } from './page-token';

/** What a listing asks for. */
export interface JobListFilter {
  pattern?: Pattern;
  status?: 'running' | JobOutcome;
  /** `key=value` each; all must hold. */
  label: string[];
  pageSize: number;
  /** The place the previous page ended (its token); undefined for the first page. */
  after?: JobKey;
}

/** A job of the listing with its key. */
type Keyed = JobListItem & { key: JobKey };

/** One source's newest jobs after the token: `full` when it may hold more than it gave. */
interface Candidates {
  items: Keyed[];
  full: boolean;
}

const quote = (s: string) => JSON.stringify(s);

/**
 * The `k` newest of visibility rows after `after`. `bound(row)` is the newest start any row
 * from this one on can have (its start when rows come newest start first, its close when they
 * come newest close first, as a job starts before it closes): once `k` are kept and the
 * bound falls below the k-th, no later row can enter and the scan stops. Should the rows come
 * in another order, the scan reads them all.
 */
async function newestAfter(
  rows: AsyncIterable<WorkflowExecutionInfo>,
  k: number,
  after: JobKey | undefined,
  bound: (wf: WorkflowExecutionInfo) => number,
): Promise<Candidates> {
  const kept: Keyed[] = [];
  let last = Infinity;
  let ordered = true;
  for await (const wf of rows) {
    const b = bound(wf);
    if (b > last) ordered = false;
    last = b;
    if (ordered && kept.length >= k && b < kept[k - 1].key.startedAt) break;
    const jobId = String(wf.memo?.jobId ?? wf.workflowId.split('/').slice(2).join('/'));
    const key = { startedAt: wf.startTime.getTime(), jobId };
    if (!isAfter(key, after)) continue;
    const status = wf.typedSearchAttributes.get(STATUS_KEY) as JobListItem['status'];
    kept.push({
      jobId,
      workflowId: wf.workflowId,
      state: stateOf(wf.status.name),
      // a run an operator terminated never wrote its outcome: it is not running, whatever the attribute says
      ...(status === 'running' && wf.status.name !== 'RUNNING' ? {} : { status }),
      pattern: wf.typedSearchAttributes.get(PATTERN_KEY) as Pattern | undefined,
      startedAt: wf.startTime.toISOString(),
      key,
    });
    kept.sort((x, y) => compareJobKeys(x.key, y.key));
    if (kept.length > k) kept.length = k;
  }
  return { items: kept, full: kept.length >= k };
}

/** The job listing over Temporal's visibility and the record. */
export function createJobList(client: Client, record: RecordStore) {
  return async function list(tenant: string, f: JobListFilter): Promise<JobPage> {
    const k = f.pageSize + 1;
    // root jobs only, in the query: nested jobs, batches and webhook deliveries are children
    const q = [`WorkflowType = ${quote(JOB_WORKFLOW)}`, 'ParentWorkflowId IS NULL', `DelegateTenant = ${quote(tenant)}`];
    if (f.pattern) q.push(`DelegatePattern = ${quote(f.pattern)}`);
    if (f.status) q.push(`DelegateStatus = ${quote(f.status)}`);
    for (const l of f.label) q.push(`DelegateLabels = ${quote(l)}`);
    // visibility keeps start times finer than a ms: the bound takes in the whole ms of the token
    if (f.after) q.push(`StartTime < ${quote(new Date(f.after.startedAt + 1).toISOString())}`);
    const scan = (status: string) => client.workflow.list({ query: [...q, status].join(' AND '), pageSize: Math.min(k, 1000) });
    // Temporal's SQL visibility has no ORDER BY: it answers running executions newest start
    // first, then closed ones newest close first (measured on the dev server, Temporal 1.29)
    const none: Candidates = { items: [], full: false };
    const [running, ended] = await Promise.all([
      newestAfter(scan('ExecutionStatus = "Running"'), k, f.after, (wf) => wf.startTime.getTime()),
      // ended without a result; a run that continued as new is not the job's last. A job that
      // ended so (terminated, timed out) still carries status "running": never a running one
      f.status === 'running'
        ? none
        : newestAfter(
            scan('ExecutionStatus != "Running" AND ExecutionStatus != "Completed" AND ExecutionStatus != "ContinuedAsNew"'),
            k,
            f.after,
            (wf) => wf.closeTime?.getTime() ?? Infinity,
          ),
    ]);
    const rows = f.status === 'running' ? [] : await record.listFinished(tenant, { ...f, after: f.after, limit: k });
    const finished: Candidates = {
      items: rows.map((r) => ({
        jobId: r.job_id,
        workflowId: r.workflow_id,
        state: 'completed' as const,
        status: r.status as JobOutcome,
        pattern: r.pattern as Pattern,
        startedAt: new Date(r.started_at).toISOString(),
        key: { startedAt: r.started_at, jobId: r.job_id },
      })),
      full: rows.length >= k,
    };
    // archived a moment before its workflow completes: the record's entry stands
    const archived = await record.archivedAmong(
      tenant,
      [...running.items, ...ended.items].map((j) => j.jobId),
    );
    const merged = [...finished.items, ...[...running.items, ...ended.items].filter((j) => !archived.has(j.jobId))].sort((x, y) =>
      compareJobKeys(x.key, y.key),
    );
    // past the last job a full source gave, that source may hold jobs it did not give: stop there
    const frontier = [running, ended, finished]
      .filter((s) => s.full)
      .map((s) => s.items[k - 1].key)
      .sort(compareJobKeys)[0];
    const safe = frontier ? merged.filter((j) => compareJobKeys(j.key, frontier) <= 0) : merged;
    const page = safe.slice(0, f.pageSize);
    const next = safe.length > f.pageSize ? page[page.length - 1].key : frontier;
    return { jobs: page.map(({ key: _key, ...j }) => j), nextPageToken: next ? encodeJobPageToken(next) : null };
  };
}
