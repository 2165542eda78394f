/**
 * Soak. Priorities: urgent work overtakes bulk work on a busy worker. A step worker of this file's
 * own runs two steps at a time; jobs of 200 bulk steps (priority 5) fill its queue, and once
 * it is busy with them a job of 5 urgent steps (priority 1) arrives. The urgent steps finish
 * before most of the bulk steps that were waiting: Temporal hands out the backlog by priority.
 * 205 workflows, minutes on a 2-core machine: `npm run test:soak`; the API's priorities are in
 * priority.test.ts.
 *
 *   bulk jobs (priority 5, 4 × 50 tasks) ──> 200 steps queued ──┐
 *   urgent job (priority 1, 5 tasks) ──────> 5 steps queued ────┴──> 2 slots: urgent first
 */
import type { WorkflowHandle } from '@temporalio/client';
import { NativeConnection, Runtime, type WorkflowBundle } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { builtinAgents } from '../../activities';
import type { AgentManifest, JobSpec } from '../../schemas';
import { delegationJob, jobStatusQuery, type JobInput } from '../../workflows/delegation-job';
import { bundleWorkflows, createWorkers } from '../../workers/worker';
import { pollUntil, testClient, testRecord, uniqueId } from '../helpers';

// this file's workers log errors only
const quiet = () => {};
Runtime.install({
  logger: { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: quiet, error: (m: string) => console.error(m) } as never,
});

/** Steps the step worker runs at once: far fewer than the bulk, so the bulk waits in the queue. */
const SLOTS = 2;
const BULK = 200;
/** Jobs the bulk is split into (one parent of 200 children is more than a loaded dev server's SQLite keeps up with). */
const BULK_JOBS = 4;
const URGENT = 5;
/** Bulk steps the step worker finishes before the urgent job arrives: it is busy, not fresh. */
const BUSY_FOR = 10;
/** Each step sleeps this long. */
const STEP_MS = 150;

const sim = builtinAgents.find((a) => a.manifest.id === 'sim')!.manifest as AgentManifest;
let bundle: WorkflowBundle;
/** Workers to stop at the end. */
const running: { stop(): Promise<void> }[] = [];

/** Workers of this file's own: the job and subtask workflows on `taskQueue`; with `steps`, the agent steps of that queue, `SLOTS` at a time. */
async function startWorkers(steps?: string) {
  const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  const taskQueue = uniqueId('prio-queue');
  const workers = await createWorkers(
    { connection, namespace: 'default', taskQueue, workflowBundle: bundle, record: await testRecord() },
    steps ? [{ taskQueue: steps, slots: SLOTS }] : [],
  );
  const done = Promise.all(workers.map((w) => w.run()));
  running.push({
    async stop() {
      for (const w of workers) w.shutdown();
      await done;
      await connection.close();
    },
  });
  return taskQueue;
}

beforeAll(async () => {
  bundle = await bundleWorkflows();
});
afterAll(async () => {
  for (const w of running) await w.stop();
});

/** A fan-out of `n` one-step sim tasks at `priority`, all started at once. */
function fanout(prefix: string, n: number, priority: number | undefined): JobSpec & { jobId: string } {
  return {
    jobId: uniqueId(prefix),
    pattern: 'fanout',
    maxParallel: n,
    ...(priority !== undefined ? { priority } : {}),
    tasks: Array.from({ length: n }, (_, i) => ({
      id: `${prefix}${i}`,
      question: `${prefix} question ${i}`,
      agent: 'sim',
      params: { latencyMs: STEP_MS },
    })),
  };
}

/** Starts a job as the API would (at its priority, agents resolved), its steps on `agentQueue`. */
async function start(
  spec: JobSpec & { jobId: string },
  taskQueue: string,
  agentQueue: string,
): Promise<WorkflowHandle<typeof delegationJob>> {
  const client = await testClient();
  return client.workflow.start(delegationJob, {
    taskQueue,
    workflowId: `job/test/${spec.jobId}`,
    args: [{ spec, tenant: 'test', maxDepth: 3, agents: { sim }, agentQueue } satisfies JobInput],
    ...(spec.priority !== undefined ? { priority: { priorityKey: spec.priority } } : {}),
  });
}

/** When each subtask of a job closed (server time), by task id. */
async function closeTimes(job: WorkflowHandle, spec: JobSpec): Promise<Map<string, number>> {
  const client = await testClient();
  const out = new Map<string, number>();
  for (const t of spec.tasks) {
    const d = await client.workflow.getHandle(`${job.workflowId}/${t.id}`).describe();
    out.set(t.id, d.closeTime!.getTime());
  }
  return out;
}

/** Subtasks of these jobs that have finished. */
async function finished(jobs: WorkflowHandle<typeof delegationJob>[]): Promise<number> {
  let n = 0;
  for (const job of jobs) n += (await job.query(jobStatusQuery).catch(() => undefined))?.progress.completed ?? 0;
  return n;
}

/**
 * Queues the 200 bulk steps, starts the step worker, and once it is busy with them sends the
 * urgent job; returns how many bulk steps were still waiting when the urgent job arrived, and
 * how many of those the urgent steps overtook (not done when the last urgent step was).
 */
async function bulkThenUrgent(bulkPriority: number | undefined, urgentPriority: number | undefined) {
  const steps = uniqueId('prio-steps');
  const taskQueue = await startWorkers();
  const bulkSpecs = Array.from({ length: BULK_JOBS }, (_, j) => fanout(`bulk${j}-`, BULK / BULK_JOBS, bulkPriority));
  const urgentSpec = fanout('urgent', URGENT, urgentPriority);
  const bulk: WorkflowHandle<typeof delegationJob>[] = [];
  for (const spec of bulkSpecs) {
    const job = await start(spec, taskQueue, steps);
    bulk.push(job);
    // every child started (a query may time out while the loaded dev server catches up: ask again)
    await pollUntil(
      async () => (await job.query(jobStatusQuery).catch(() => undefined))?.progress.pending === 0,
      'a bulk job never started all its children',
      300_000,
    );
  }
  // no worker takes steps yet: all 200 wait in the queue
  const client = await testClient();
  const backlog = async () =>
    Number(
      (
        await client.workflowService.describeTaskQueue({
          namespace: 'default',
          taskQueue: { name: steps },
          taskQueueType: 2,
          reportStats: true,
        })
      ).stats?.approximateBacklogCount ?? 0,
    );
  await pollUntil(async () => (await backlog()) >= BULK, 'the bulk steps never all reached the queue', 120_000);
  await startWorkers(steps);
  await pollUntil(async () => (await finished(bulk)) >= BUSY_FOR, 'the step worker never got busy', 120_000);
  const urgent = await start(urgentSpec, taskQueue, steps);
  const [urgentResult, ...bulkResults] = await Promise.all([urgent.result(), ...bulk.map((b) => b.result())]);
  const arrived = (await urgent.describe()).startTime.getTime();
  const bulkDone: number[] = [];
  for (const [j, job] of bulk.entries()) bulkDone.push(...(await closeTimes(job, bulkSpecs[j]!)).values());
  const lastUrgent = Math.max(...(await closeTimes(urgent, urgentSpec)).values());
  const waiting = bulkDone.filter((t) => t > arrived);
  return {
    bulkResults,
    urgentResult,
    urgentWorkflowId: urgent.workflowId,
    waiting: waiting.length,
    overtaken: waiting.filter((t) => t > lastUrgent).length,
  };
}

describe('priorities', () => {
  it('5 urgent steps (priority 1) overtake the 200 bulk steps (priority 5) waiting on a busy worker', async () => {
    const run = await bulkThenUrgent(5, 1);
    console.info(`priority: ${run.overtaken}/${run.waiting} waiting bulk steps overtaken by the urgent ones`);
    for (const r of run.bulkResults) expect(r.status).toBe('success');
    expect(run.urgentResult.status).toBe('success');
    // each result says what it ran at
    expect(new Set(run.bulkResults.flatMap((b) => b.results.map((r) => r.priority)))).toEqual(new Set([5]));
    expect(new Set(run.urgentResult.results.map((r) => r.priority))).toEqual(new Set([1]));
    // there was a backlog when the urgent job came: most of the bulk was still waiting
    expect(run.waiting).toBeGreaterThan(BULK / 2);
    // and the urgent steps went ahead of most of it (in arrival order they overtake none: all at
    // priority 3, or without the server's new matcher, this run measured 0 of 190)
    expect(run.overtaken).toBeGreaterThan(run.waiting / 2);
    // the subtask workflow itself runs at the task's priority, as do its steps
    const d = await (await testClient()).workflow.getHandle(`${run.urgentWorkflowId}/urgent0`).describe();
    expect(d.raw.workflowExecutionInfo?.priority?.priorityKey).toBe(1);
    // 205 workflows on a loaded 2-core machine: nothing here is about speed
  }, 900_000);
});
