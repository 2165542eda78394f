/**
 * What the durable record adds to a job: 3-subtask fan-outs run one after another through
 * Temporal, once with the record on SQLite and once on PostgreSQL; from each history, the
 * time from scheduling `archiveJob` to the workflow's completion (without the record the
 * job completes in the workflow task that now schedules it), next to the end-to-end time.
 *
 *   npm run bench -- archive-cost        (BENCH_ARCHIVE_JOBS, default 40 per store)
 */
import { Worker } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRecord, type OpenRecord } from '../record';
import { createDatabase, startPostgres } from '../scripts/postgres';
import { bundleWorkflows, createWorker } from '../workers/worker';
import { delegationJob } from '../workflows/delegation-job';
import { percentile as pct, quietRuntime, report, round, startTemporal } from './lib';

const JOBS = Number(process.env.BENCH_ARCHIVE_JOBS ?? 40);

const ms = (t: temporal.api.history.v1.IHistoryEvent['eventTime']) => Number(t?.seconds ?? 0) * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);

quietRuntime();
const t = await startTemporal('archive-cost');
const bundle = await bundleWorkflows();
const pg = await startPostgres();
const stores: [string, OpenRecord][] = [
  ['sqlite', await openRecord({ sqliteFile: join(mkdtempSync(join(tmpdir(), 'delegate-bench-archive-')), 'record.db') })],
  ['postgres', await openRecord({ databaseUrl: await createDatabase(pg.url, 'bench_archive'), sqliteFile: '' })],
];
const rows: (string | number)[][] = [];
const data: Record<string, unknown> = {};
try {
  for (const [name, record] of stores) {
    const taskQueue = `bench-archive-${name}`;
    const worker: Worker = await createWorker({
      connection: t.workerConnection,
      namespace: 'default',
      taskQueue,
      workflowBundle: bundle,
      record: record.store,
    });
    const running = worker.run();
    const e2e: number[] = [];
    const added: number[] = [];
    const activity: number[] = [];
    try {
      for (let i = 0; i < JOBS + 3; i++) {
        const jobId = `${name}-${i}`;
        const spec = {
          jobId,
          pattern: 'fanout' as const,
          labels: { feature: 'bench' },
          objective: 'archive cost',
          tasks: ['a', 'b', 'c'].map((id) => ({ id, question: `question ${id}`, agent: 'sim', params: { answer: { id } } })),
        };
        const started = performance.now();
        await t.client.workflow.execute(delegationJob, { taskQueue, workflowId: `job/bench/${jobId}`, args: [{ spec, tenant: 'bench' }] });
        if (i < 3) continue; // warm-up
        e2e.push(performance.now() - started);
        const events = (await t.client.workflow.getHandle(`job/bench/${jobId}`).fetchHistory()).events ?? [];
        const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'archiveJob');
        const startedEv = events.find(
          (e) => e.activityTaskStartedEventAttributes?.scheduledEventId?.toString() === scheduled?.eventId?.toString(),
        );
        const doneEv = events.find(
          (e) => e.activityTaskCompletedEventAttributes?.scheduledEventId?.toString() === scheduled?.eventId?.toString(),
        );
        const end = events.at(-1)!;
        added.push(ms(end.eventTime) - ms(scheduled!.eventTime));
        activity.push(ms(doneEv!.eventTime) - ms(startedEv!.eventTime));
      }
    } finally {
      worker.shutdown();
      await running;
    }
    const p50 = pct(e2e, 50);
    rows.push([
      name,
      JOBS,
      round(p50),
      round(pct(e2e, 99)),
      round(pct(added, 50)),
      round(pct(added, 99)),
      round(pct(activity, 50)),
      `${round((pct(added, 50) / p50) * 100)}%`,
    ]);
    data[name] = { e2e, added, activity };
  }
} finally {
  for (const [, r] of stores) await r.close();
  await pg.stop();
  await t.close();
}
report(
  'archive-cost',
  `The record's cost per job: ${JOBS} 3-subtask fan-outs per store, one at a time (ms)`,
  ['store', 'jobs', 'end-to-end p50', 'p99', 'archive step p50', 'p99', 'archiveJob activity p50', 'step / end-to-end'],
  rows,
  data,
);
