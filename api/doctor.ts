/**
 * `delegate doctor`'s report for one tenant: the record's hygiene (record/hygiene.ts) and what the
 * deployment's prune schedule does next, read from Temporal (its next action time and the run
 * input the workers gave it). The fix deletes the tenant's orphaned scouts now, the same rows the
 * schedule would delete on its next run; scouts with a feature are never touched.
 *
 *   record ──orphans, overdue items──┐
 *   Temporal ──describe(delegate-record-prune-<deployment>)──┴──> DoctorReport
 */
import { ScheduleNotFoundError, type Client } from '@temporalio/client';
import type { PruneInput } from '../activities';
import { pruneScheduleId } from '../core/prune-schedule';
import { SCOUT_RETENTION_DAYS, type RecordStore } from '../record';
import type { DoctorCheck, DoctorPrune, DoctorReport, DoctorStatus } from '../schemas';

const DAY_MS = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
const hours = (ms: number) => `${Math.round(ms / 3_600_000)}h`;
/** How bad a status is, to report the worst. */
const RANK: Record<DoctorStatus, number> = { ok: 0, advisory: 1, warning: 2 };

/** What the report reads. */
export interface DoctorDeps {
  record: RecordStore;
  temporal: Client;
}

/** The orphaned-scouts check: scouts without a feature older than SCOUT_RETENTION_DAYS (an advisory: `--fix` or the next prune deletes them). */
async function orphanCheck(record: RecordStore, tenant: string, now: number): Promise<DoctorCheck> {
  const { count, oldestAt } = await record.hygiene.orphans(tenant, now - SCOUT_RETENTION_DAYS * DAY_MS);
  return {
    id: 'orphan_scouts',
    status: count > 0 ? 'advisory' : 'ok',
    count,
    oldestAt: oldestAt === null ? null : iso(oldestAt),
    fixable: true,
    message:
      count > 0
        ? `${count} scout(s) without a feature are older than ${SCOUT_RETENTION_DAYS} days (oldest ${iso(oldestAt!)}): delegate doctor --fix deletes them now, the prune schedule on its next run; scouts with a feature are kept`
        : `no scout without a feature is older than ${SCOUT_RETENTION_DAYS} days`,
  };
}

/** Inbox items still pending past their expiry: their workflow settles them when it runs, so one left means its job is gone or stuck. */
async function overdueCheck(record: RecordStore, tenant: string, now: number): Promise<DoctorCheck> {
  const count = await record.hygiene.overdueItems(tenant, now);
  return {
    id: 'overdue_inbox',
    status: count > 0 ? 'warning' : 'ok',
    count,
    fixable: false,
    message:
      count > 0
        ? `${count} approval(s) or question(s) still pending past their expiry: their job no longer settles them (GET /v1/approvals?state=pending lists them; cancel the job, or ask the operator to check its workers)`
        : 'no approval or question is pending past its expiry',
  };
}

/** The deployment's prune schedule and what its next run deletes of the tenant's record. */
async function pruneOf({ record, temporal }: DoctorDeps, tenant: string): Promise<DoctorPrune> {
  const scheduleId = pruneScheduleId(await record.deploymentId());
  const d = await temporal.schedule
    .getHandle(scheduleId)
    .describe()
    .catch((err: unknown) => {
      if (err instanceof ScheduleNotFoundError) return undefined;
      throw err;
    });
  if (!d)
    return {
      scheduleId,
      exists: false,
      message: 'no prune schedule: no worker of this deployment has started (the first one creates it); nothing is pruned until then',
    };
  const next = d.info.nextActionTimes[0]?.getTime();
  const input = (d.action.type === 'startWorkflow' ? d.action.args?.[0] : undefined) as Partial<PruneInput> | undefined;
  const every = d.spec.intervals?.[0]?.every;
  const base = {
    scheduleId,
    exists: true,
    paused: d.state.paused,
    ...(every !== undefined ? { every: hours(every) } : {}),
    nextRunAt: next === undefined ? null : iso(next),
    ...(input?.dryRun !== undefined ? { dryRun: input.dryRun } : {}),
    ...(input?.keepLabels ? { keepLabels: input.keepLabels } : {}),
  };
  if (d.state.paused || next === undefined)
    return {
      ...base,
      message: `the prune schedule is paused${d.state.note ? ` (${d.state.note})` : ''}: it deletes nothing until unpaused`,
    };
  const orphanScouts = (await record.hygiene.orphans(tenant, next - SCOUT_RETENTION_DAYS * DAY_MS)).count;
  const jobsBefore = input?.maxAgeDays !== undefined ? iso(next - input.maxAgeDays * DAY_MS) : undefined;
  const verb = input?.dryRun ? 'lists (dry run: deletes nothing)' : 'deletes';
  const jobs = jobsBefore
    ? `, and records of jobs finished before ${jobsBefore}${input?.keepLabels?.length ? ` without a label ${input.keepLabels.join(', ')}` : ''}`
    : '';
  return {
    ...base,
    ...(jobsBefore ? { jobsFinishedBefore: jobsBefore } : {}),
    orphanScouts,
    message: `next prune at ${iso(next)} ${verb} ${orphanScouts} orphaned scout(s) of yours${jobs}`,
  };
}

/** The tenant's report: every check, the worst status, the prune's next run. */
export async function doctorReport(deps: DoctorDeps, tenant: string, now = Date.now()): Promise<DoctorReport> {
  const checks = [await orphanCheck(deps.record, tenant, now), await overdueCheck(deps.record, tenant, now)];
  const status = checks.reduce<DoctorStatus>((worst, c) => (RANK[c.status] > RANK[worst] ? c.status : worst), 'ok');
  return { tenant, checkedAt: iso(now), status, checks, prune: await pruneOf(deps, tenant) };
}

/** Deletes the tenant's orphaned scouts (older than SCOUT_RETENTION_DAYS, no feature); how many went. */
export function fixOrphanScouts(record: RecordStore, tenant: string, now = Date.now()): Promise<number> {
  return record.hygiene.deleteOrphans(tenant, now - SCOUT_RETENTION_DAYS * DAY_MS);
}
