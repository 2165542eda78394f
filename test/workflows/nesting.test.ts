import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import type { JobInput } from '../../contracts/job';
import { pollUntil, runJob, startJob, testClient, uniqueId } from '../helpers';
import type { subtask } from '../../workflows/subtask';
import { delegationJob } from '../../workflows/delegation-job';
import { jobStatusQuery, stopSignal, subtaskStatusQuery } from '../../contracts/messages';

const evidence = (id: string) => ({ id, source: 'web', snippet: `found ${id}` });

/** The input a workflow was started with, read from its history. */
async function startInput<T>(workflowId: string): Promise<T> {
  const history = await (await testClient()).workflow.getHandle(workflowId).fetchHistory();
  return defaultPayloadConverter.fromPayload(history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0]);
}

/** Waits until a (descendant) workflow exists and is running. */
async function waitRunning(workflowId: string, timeoutMs = 15_000): Promise<void> {
  const client = await testClient();
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const d = await client.workflow.getHandle(workflowId).describe();
      if (d.status.name === 'RUNNING') return;
    } catch {
      // not started yet
    }
    if (Date.now() > until) throw new Error(`${workflowId} did not start`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until a running subtask has done at least `n` steps. */
async function waitSteps(workflowId: string, n: number, timeoutMs = 15_000): Promise<void> {
  const handle = (await testClient()).workflow.getHandle(workflowId);
  const until = Date.now() + timeoutMs;
  while ((await handle.query(subtaskStatusQuery)).steps < n) {
    if (Date.now() > until) throw new Error(`${workflowId} did not reach ${n} step(s)`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('nested jobs', () => {
  it('a pipeline of (fan-out, vote): the vote sees the fan-out evidence; ids derive from the path', async () => {
    const jobId = uniqueId('nest');
    const r = await runJob({
      jobId,
      pattern: 'pipeline',
      tasks: [
        {
          id: 'gather',
          question: 'Gather facts',
          job: {
            pattern: 'fanout',
            tasks: [
              { id: 'a', question: 'fact A', agent: 'sim', params: { answer: 'A', evidence: [evidence('ea')] } },
              { id: 'b', question: 'fact B', agent: 'sim', params: { answer: 'B', evidence: [evidence('eb')] } },
            ],
          },
        },
        {
          id: 'decide',
          question: 'Decide',
          job: {
            pattern: 'vote',
            vote: { strategy: 'majority' },
            maxParallel: 1, // one at a time, dissenter first: no early decision, every voter runs
            tasks: [
              { id: 'v1', question: 'A or B?', agent: 'sim', params: { answer: 'A' } },
              { id: 'v2', question: 'A or B?', agent: 'sim', params: { answer: 'B' } },
              { id: 'v3', question: 'A or B?', agent: 'sim', params: { answer: 'b' } },
            ],
          },
        },
      ],
    });
    expect(r.status).toBe('success');
    expect(r.results.map((x) => [x.id, x.agentId, x.status])).toEqual([
      ['gather', 'job:fanout', 'success'],
      ['decide', 'job:vote', 'success'],
    ]);
    expect(r.results[0].data).toEqual({ a: 'A', b: 'B' });
    expect(r.output).toBe('B');
    expect(r.metrics.steps).toBe(5);
    expect(r.evidence.map((e) => e.id)).toEqual(['ea', 'eb']);

    // deterministic ids at every level: <job>/<task>/<task>
    const root = `job/test/${jobId}`;
    const voterInput = await startInput<{ task: { contextSeed?: { id: string }[] }; jobId: string }>(`${root}/decide/v1`);
    expect(voterInput.jobId).toBe(`${jobId}/decide`);
    expect(voterInput.task.contextSeed?.map((e) => e.id)).toEqual(['ea', 'eb']);
    const nested = await startInput<JobInput>(`${root}/decide`);
    expect(nested).toMatchObject({ depth: 1, maxDepth: 3, spec: { jobId: `${jobId}/decide`, pattern: 'vote' } });
    const gathered = await (await testClient()).workflow.getHandle<typeof delegationJob>(`${root}/gather`).result();
    expect(gathered.results.map((x) => x.id)).toEqual(['a', 'b']);
  });

  it('a vote whose voters are pipelines; an early decision cancels a whole nested voter job', async () => {
    const stagePair = (answer: string, latencyMs = 0) => ({
      pattern: 'pipeline' as const,
      tasks: [
        { id: 'draft', question: 'draft', agent: 'sim', params: { answer, latencyMs } },
        { id: 'final', question: 'final', agent: 'sim', params: { echoPrevious: true } },
      ],
    });
    const jobId = uniqueId('nest-vp');
    const r = await runJob({
      jobId,
      pattern: 'vote',
      tasks: [
        { id: 'p1', question: 'q', job: stagePair('yes') },
        { id: 'p2', question: 'q', job: stagePair('Yes') },
        { id: 'p3', question: 'q', job: stagePair('no', 30_000) },
      ],
    });
    expect(r.status).toBe('success');
    expect(r.vote).toMatchObject({ winner: 'yes', agreement: 1, decidedEarly: true, cancelled: 1 });
    expect(r.results.map((x) => [x.id, x.status, x.failureReason])).toEqual([
      ['p1', 'success', null],
      ['p2', 'success', null],
      ['p3', 'failure', 'cancelled'],
    ]);
    const draft = await (await testClient()).workflow.getHandle<typeof subtask>(`job/test/${jobId}/p3/draft`).result();
    expect(draft.failureReason).toBe('cancelled');
    expect(r.metrics.latencyMs).toBeLessThan(15_000);
  });

  it('enforces the depth cap inside the workflow too', async () => {
    const r = await runJob(
      {
        jobId: uniqueId('nest-cap'),
        pattern: 'fanout',
        tasks: [
          { id: 'ok', question: 'q', agent: 'echo' },
          {
            id: 'deep',
            question: 'q',
            job: {
              pattern: 'fanout',
              tasks: [{ id: 'x', question: 'q', job: { pattern: 'fanout', tasks: [{ id: 'y', question: 'q', agent: 'echo' }] } }],
            },
          },
        ],
      },
      { maxDepth: 1 },
    );
    expect(r.results[0].status).toBe('success');
    expect(r.results[1]).toMatchObject({ id: 'deep', status: 'failure', failureReason: 'depth_exceeded' });
    expect(r.results[1].errors.join(' ')).toContain('depth cap of 1');
    expect(r.status).toBe('partial');
  });

  it('stopping the root reaches a grandchild: it finishes its step and returns what it has', async () => {
    const jobId = uniqueId('nest-stop');
    const handle = await startJob({
      jobId,
      pattern: 'pipeline',
      tasks: [
        {
          id: 'inner',
          question: 'q',
          job: { pattern: 'fanout', tasks: [{ id: 'long', question: 'q', agent: 'sim', params: { steps: 1000, latencyMs: 50 } }] },
        },
        { id: 'after', question: 'q', agent: 'echo' },
      ],
    });
    const grandchild = `job/test/${jobId}/inner/long`;
    await waitRunning(grandchild);
    await waitSteps(grandchild, 1);
    await handle.signal(stopSignal, { reason: 'test' });
    const r = await handle.result();
    const long = await (await testClient()).workflow.getHandle<typeof subtask>(grandchild).result();
    expect(long).toMatchObject({ status: 'partial', failureReason: 'stopped' });
    expect(long.metrics.steps).toBeGreaterThan(0);
    expect(r.results.map((x) => [x.id, x.failureReason])).toEqual([
      ['inner', 'stopped'],
      ['after', 'stopped'],
    ]);
    expect(r.results[0].status).toBe('partial');
  });

  it('cancelling the root reaches a grandchild at once; finished results are kept', async () => {
    const jobId = uniqueId('nest-cancel');
    const started = Date.now();
    const handle = await startJob({
      jobId,
      pattern: 'vote',
      tasks: [
        { id: 'quick', question: 'q', agent: 'sim', params: { answer: 'x' } },
        {
          id: 'inner',
          question: 'q',
          // never answers (hang until cancelled): only the cancel ends it
          job: { pattern: 'pipeline', tasks: [{ id: 'slow', question: 'q', agent: 'sim', params: { answer: 'x', hang: true } }] },
        },
      ],
    });
    const grandchild = `job/test/${jobId}/inner/slow`;
    await waitRunning(grandchild);
    // the quick voter's ballot is in before the cancel (else the vote may settle on the cancelled voter first)
    await pollUntil(
      async () => (await handle.query(jobStatusQuery)).subtasks.find((x) => x.id === 'quick')?.state === 'completed',
      'the quick voter never finished',
    );
    await handle.cancel();
    const r = await handle.result();
    const slow = await (await testClient()).workflow.getHandle<typeof subtask>(grandchild).result();
    expect(slow).toMatchObject({ status: 'failure', failureReason: 'cancelled' });
    expect(r.status).toBe('cancelled');
    expect(r.results.map((x) => [x.id, x.status])).toEqual([
      ['quick', 'success'],
      ['inner', 'failure'],
    ]);
    // the vote is tallied over what finished: one ballot of two voters is no majority
    expect(r.vote).toMatchObject({ winner: null, decidedEarly: false, tally: [{ ballot: 'x', count: 1 }] });
    // at once: far sooner than the grandchild's five-minute step (a generous bound for a loaded machine)
    expect(Date.now() - started).toBeLessThan(120_000);
  });
});
