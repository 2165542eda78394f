/**
 * The worker's log stream, captured where pino writes it: every line one JSON object, and the
 * lines of a job's activities name its jobId, taskId, agent, attempt and tenant; workflow lines
 * name the ids their workflow id spells. (This file's process installs its own Runtime.)
 */
import { Worker } from '@temporalio/worker';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadRegistry } from '../../activities';
import type { JobResult } from '../../schemas';
import { createLogger } from '../../telemetry/logging';
import { installWorkerRuntime } from '../../telemetry/worker-runtime';
import { delegationJob } from '../../workflows/delegation-job';
import { sharedWorkflowBundle, startDedicatedWorker } from '../dedicated-worker';
import { fastRetry, pollUntil, testClient, uniqueId } from '../helpers';

const raw: string[] = [];
const stream = new Writable({
  write(chunk: Buffer, _enc, done) {
    raw.push(...chunk.toString().split('\n').filter(Boolean));
    done();
  },
});
let worker: Awaited<ReturnType<typeof startDedicatedWorker>>;

beforeAll(async () => {
  // debug: the SDK's own activity and workflow lifecycle lines come through as well
  await installWorkerRuntime({ log: createLogger({ level: 'debug', proc: 'worker', destination: stream }) });
  worker = await startDedicatedWorker({ registry: loadRegistry(inject('agentsFile')) });
});
afterAll(async () => {
  await worker?.stop();
});

type Line = Record<string, unknown>;

describe('worker logs', () => {
  it('are JSON lines, and a job’s lines carry its ids', async () => {
    const jobId = uniqueId('logs');
    const client = await testClient();
    const result: JobResult = await client.workflow.execute(delegationJob, {
      taskQueue: worker.taskQueue,
      workflowId: `job/acme/${jobId}`,
      args: [
        {
          spec: {
            jobId,
            pattern: 'fanout',
            tasks: [{ id: 'flaky', question: 'count these words', agent: 'flaky-http', retry: fastRetry }],
          },
          tenant: 'acme',
          maxDepth: 3,
        },
      ],
    });
    expect(result.status).toBe('success');
    // the SDK hands lines to the logger after it reports the task: the client may hear first
    await pollUntil(
      async () =>
        raw.some((l) => l.includes(jobId) && l.includes('"Activity completed"')) &&
        raw.some((l) => l.includes(jobId) && l.includes('"Workflow completed"') && l.includes('/flaky')),
      'the last lines never came',
      10_000,
    );

    // every line parses, and is one line (pino never breaks one, nothing else writes here)
    const lines = raw.map((l) => JSON.parse(l) as Line);
    expect(lines.every((l) => typeof l.level === 'number' && typeof l.msg === 'string' && l.proc === 'worker')).toBe(true);
    const ours = lines.filter((l) => l.jobId === jobId);

    // the failed first attempt, as the agent step logs it
    const failed = ours.find((l) => l.msg === 'agent step failed');
    expect(failed).toMatchObject({
      component: 'activity',
      tenant: 'acme',
      jobId,
      taskId: 'flaky',
      agent: 'flaky-http',
      attempt: 1,
      activityType: 'agentStep',
    });
    expect(failed).not.toHaveProperty('taskToken');
    // every agent-step line of the job, the SDK's own included, names all five; but the SDK's
    // "Activity started", which it writes before the input reaches any interceptor: no agent there
    const steps = ours.filter((l) => l.activityType === 'agentStep');
    expect(steps.length).toBeGreaterThanOrEqual(3);
    for (const l of steps) {
      const ids = { tenant: 'acme', jobId, taskId: 'flaky', attempt: expect.any(Number) };
      expect(l).toMatchObject(l.msg === 'Activity started' ? ids : { ...ids, agent: 'flaky-http' });
    }
    expect(steps.filter((l) => l.msg === 'Activity completed').map((l) => l.attempt)).toEqual([2]);
    expect(new Set(steps.map((l) => l.attempt))).toEqual(new Set([1, 2]));
    // the subtask workflow's lines (the SDK's lifecycle lines here) carry the ids its workflow id spells
    const subtaskLines = lines.filter((l) => l.workflowId === `job/acme/${jobId}/flaky` && l.workflowType === 'subtask');
    expect(subtaskLines.map((l) => l.msg)).toEqual(expect.arrayContaining(['Workflow started', 'Workflow completed']));
    for (const l of subtaskLines) expect(l).toMatchObject({ tenant: 'acme', jobId, taskId: 'flaky' });
  });
});

describe('delegation events in the log', () => {
  it('DELEGATE, RESULT, RETRY and ESCALATE: one line each, with the ids, and none again when the runs replay', async () => {
    const jobId = uniqueId('events');
    const client = await testClient();
    const result: JobResult = await client.workflow.execute(delegationJob, {
      taskQueue: worker.taskQueue,
      workflowId: `job/acme/${jobId}`,
      args: [
        {
          spec: {
            jobId,
            pattern: 'fanout',
            tasks: [
              { id: 'flaky', question: 'count these words', agent: 'flaky-http', retry: fastRetry },
              { id: 'steps', question: 'three steps', agent: 'sim', params: { steps: 3 } },
              { id: 'bad', question: 'fail', agent: 'sim', params: { fatal: true } },
            ],
          },
          tenant: 'acme',
          maxDepth: 3,
        },
      ],
    });
    expect(result.results.map((r) => r.status)).toEqual(['success', 'success', 'failure']);
    const events = () => raw.map((l) => JSON.parse(l) as Line).filter((l) => l.jobId === jobId && typeof l.event === 'string');
    // the SDK hands a workflow's lines to the logger after it reports the task: the client may hear first
    await pollUntil(async () => events().filter((l) => l.event === 'RESULT').length >= 3, 'three RESULT lines never came', 10_000);
    const ours = events();
    const of = (event: string) => ours.filter((l) => l.event === event);
    expect(
      of('DELEGATE')
        .map((l) => l.taskId)
        .sort(),
    ).toEqual(['bad', 'flaky', 'steps']);
    for (const l of of('DELEGATE'))
      expect(l).toMatchObject({ component: 'workflow', tenant: 'acme', jobId, workflowType: 'delegationJob', agent: expect.any(String) });
    expect(
      of('RESULT')
        .map((l) => `${l.taskId}:${l.status}`)
        .sort(),
    ).toEqual(['bad:failure', 'flaky:success', 'steps:success']);
    expect(of('RESULT').find((l) => l.taskId === 'steps')).toMatchObject({
      agent: 'sim',
      latencyMs: expect.any(Number),
      costUsd: expect.any(Number),
      confidence: expect.any(Number),
      attempts: 3,
    });
    expect(of('ESCALATE')).toEqual([expect.objectContaining({ taskId: 'bad', agent: 'sim', reason: 'agent_error' })]);
    // the retry is the agent step's: written once, where the error is known
    expect(of('RETRY')).toEqual([
      expect.objectContaining({ component: 'activity', taskId: 'flaky', agent: 'flaky-http', attempt: 2, maxAttempts: 3 }),
    ]);

    // a worker that takes the job over replays its history through the same logger: no line again
    const root = `job/acme/${jobId}`;
    const histories = await Promise.all(
      [root, `${root}/flaky`, `${root}/steps`, `${root}/bad`].map(async (workflowId) => ({
        workflowId,
        history: await client.workflow.getHandle(workflowId).fetchHistory(),
      })),
    );
    const workflowBundle = sharedWorkflowBundle();
    let replayed = 0;
    for await (const r of Worker.runReplayHistories({ workflowBundle, replayName: 'logs-replay' }, histories)) {
      expect(r.error).toBeUndefined();
      replayed++;
    }
    expect(replayed).toBe(4);
    expect(events()).toHaveLength(ours.length);
  });
});
