/**
 * `delegate doctor [--fix]` through the API, on a record of its own: an orphaned scout older than
 * 90 days is reported (advisory) and deleted by `--fix`; an old scout with a feature, a young
 * orphan and another tenant's old orphan are kept. The report says what the deployment's prune
 * schedule does next and when (read from Temporal), or that there is none; an approval pending
 * past its expiry is a warning (exit 1).
 */
import type { FastifyInstance } from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRecord, type RecordStore } from '../../record';
import type { DoctorFix, DoctorReport } from '../../schemas';
import { ensurePruneSchedule, pruneScheduleId } from '../../workers/prune-schedule';
import { listeningApp, testClient, testConfig, uniqueId } from '../helpers';
import { cliRunner } from './run-cli';

const DAY = 86_400_000;
const dir = mkdtempSync(join(tmpdir(), 'delegate-doctor-'));
// the schedule this test makes starts its runs on a queue no worker polls: it never prunes the run's shared record
const EXTRA = { DELEGATE_TASK_QUEUE: 'doctor-test-nobody-polls', DELEGATE_RECORD_FILE: join(dir, 'record.db') };
const config = testConfig(EXTRA);
let record: RecordStore;
let close: () => Promise<void>;
let app: FastifyInstance;
let cli: ReturnType<typeof cliRunner>;
let scheduleId: string;

/** A scout prepped `daysAgo` days ago for `tenant`, with or without a feature; its id. */
async function scout(tenant: string, daysAgo: number, featureSlug: string | null): Promise<string> {
  const id = uniqueId('scout-doctor');
  await record.scouts.prepare(tenant, {
    id,
    parentAgent: 'doctor-test',
    parentSessionId: 'session-1',
    featureSlug,
    question: 'where is the circuit breaker opened',
    scopePaths: ['activities'],
    excerpt: 'the parent is tuning the breaker and needs to know where it opens before changing the threshold',
    createdAt: Date.now() - daysAgo * DAY,
  });
  return id;
}

const ids: Record<string, string> = {};
beforeAll(async () => {
  ({ store: record, close } = await openRecord({ sqliteFile: join(dir, 'record.db') }));
  ids.oldOrphan = await scout('default', 120, null);
  ids.oldFeatured = await scout('default', 200, 'breaker-tuning');
  ids.youngOrphan = await scout('default', 10, null);
  ids.otherTenants = await scout('alpha', 150, null);
  let url: string;
  ({ app, url } = await listeningApp(EXTRA, null, record));
  cli = cliRunner(url);
  const client = await testClient();
  scheduleId = pruneScheduleId(await record.deploymentId());
  await ensurePruneSchedule(client, config, await record.deploymentId());
});

afterAll(async () => {
  await (
    await testClient()
  ).schedule
    .getHandle(scheduleId)
    .delete()
    .catch(() => undefined);
  await app?.close();
  await close?.();
  rmSync(dir, { recursive: true, force: true });
});

const exists = async (tenant: string, id: string) => (await record.scouts.get(tenant, id)) !== undefined;

describe('delegate doctor', () => {
  it('reports the old orphan as an advisory and what the prune schedule does next, and when', async () => {
    const run = await cli.delegate(['doctor']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^advisory orphan_scouts: 1 scout\(s\) without a feature are older than 90 days/m);
    expect(run.stdout).toMatch(
      new RegExp(
        `^next {5}prune \\(${scheduleId}, every ${config.DELEGATE_RECORD_PRUNE_EVERY}\\): next prune at \\S+Z deletes 1 orphaned scout\\(s\\) of yours, and records of jobs finished before \\S+Z without a label feature$`,
        'm',
      ),
    );
    const json = JSON.parse((await cli.delegate(['doctor', '--json'])).stdout) as DoctorReport;
    expect(json.checks.find((c) => c.id === 'orphan_scouts')).toMatchObject({ status: 'advisory', count: 1, fixable: true });
    expect(Date.parse(json.prune.nextRunAt!)).toBeGreaterThan(Date.now());
    expect(json.prune).toMatchObject({ exists: true, paused: false, orphanScouts: 1, dryRun: false });
  });

  it("--fix deletes the orphan older than 90 days, and keeps the featured scout, the young orphan and other tenants' scouts", async () => {
    const run = await cli.delegate(['doctor', '--fix', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const fixed = JSON.parse(run.stdout) as DoctorFix;
    expect(fixed.fixed.scouts).toBe(1);
    expect(fixed.report.checks.find((c) => c.id === 'orphan_scouts')).toMatchObject({ status: 'ok', count: 0 });
    expect(await exists('default', ids.oldOrphan!)).toBe(false);
    expect(await exists('default', ids.oldFeatured!)).toBe(true);
    expect(await exists('default', ids.youngOrphan!)).toBe(true);
    expect(await exists('alpha', ids.otherTenants!)).toBe(true);
    // nothing left to fix: a second fix deletes nothing
    expect((JSON.parse((await cli.delegate(['doctor', '--fix', '--json'])).stdout) as DoctorFix).fixed.scouts).toBe(0);
  });

  it('an approval pending past its expiry is a warning (exit 1); without a schedule, it says nothing is pruned', async () => {
    await record.inbox.open({
      id: uniqueId('overdue'),
      kind: 'approval',
      reason: 'before_start',
      tenant: 'default',
      jobId: 'gone-job',
      workflowId: 'job/default/gone-job/t',
      labels: {},
      detail: {},
      onTimeout: 'fail',
      requestedAt: Date.now() - 2 * DAY,
      expiresAt: Date.now() - DAY,
    });
    await (await testClient()).schedule.getHandle(scheduleId).delete();
    const run = await cli.delegate(['doctor']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^WARNING {2}overdue_inbox: 1 approval\(s\) or question\(s\) still pending past their expiry/m);
    expect(run.stdout).toContain('no prune schedule: no worker of this deployment has started');
  });
});
