/**
 * Soak: subtasks that loop for hundreds or thousands of steps continue as new, keep their
 * steps, spend, evidence and wall-clock latency exact across runs, still take queries, stop
 * and top-ups, and end at the maximum duration with their work kept. Minutes: `npm run test:soak`.
 */
import { describe, expect, it } from 'vitest';
import { pollUntil, runsOf, startJob, testClient, uniqueId } from '../helpers';
import { stopSignal, subtaskBudgetUpdate, subtaskStatusQuery } from '../../contracts/messages';

const evidence = (id: string) => ({ id, source: 'web', snippet: `found ${id}` });

describe('long subtasks continue as new', () => {
  it('a 300-step subtask run 50 steps at a time keeps steps, spend, evidence and wall-clock latency exact across 6 runs', async () => {
    const jobId = uniqueId('can300');
    const t0 = Date.now();
    const handle = await startJob(
      {
        jobId,
        pattern: 'fanout',
        tasks: [
          {
            id: 'long',
            question: 'q',
            agent: 'sim',
            params: {
              steps: 300,
              costUsd: 0.001,
              tokens: 3,
              toolCalls: 1,
              tools: ['search'],
              evidence: [evidence('e1'), evidence('e2')],
              followUps: ['next?'],
              answer: { n: 300 },
            },
            scope: ['search'],
          },
        ],
      },
      { subtaskStepsPerRun: 50 },
    );
    const r = await handle.result();
    const wall = Date.now() - t0;
    const [t] = r.results;
    expect(t.status).toBe('success');
    expect(t.data).toEqual({ n: 300 });
    expect(t.metrics.steps).toBe(300);
    expect(t.metrics.costUsd).toBeCloseTo(0.3, 9);
    expect(t.metrics.tokens).toBe(900);
    expect(t.metrics.toolCalls).toBe(300);
    expect(t.metrics.attempts).toBe(300);
    expect(t.evidence.map((e) => e.id)).toEqual(['e1', 'e2']);
    expect(t.citations).toEqual(['e1', 'e2']);
    expect(t.followUps).toEqual(['next?']);
    expect(r.metrics.steps).toBe(300);
    expect(r.metrics.costUsd).toBeCloseTo(0.3, 9);
    const runs = await runsOf(`job/test/${jobId}/long`);
    expect(runs.length).toBe(6);
    expect(runs.slice(0, -1).every((x) => x.status.name === 'CONTINUED_AS_NEW')).toBe(true);
    // latency is the whole chain's wall clock, not the last run's
    const chain = runs.at(-1)!.closeTime!.getTime() - runs[0].startTime.getTime();
    expect(t.metrics.latencyMs).toBeGreaterThanOrEqual(chain - 1000);
    expect(t.metrics.latencyMs).toBeLessThanOrEqual(wall + 1000);
    expect(Math.max(...runs.map((x) => x.historyLength))).toBeLessThan(400);
  }, 600_000);

  it('status query, stop signal and budget top-up reach a subtask after it continued as new', async () => {
    const client = await testClient();
    const jobId = uniqueId('cansig');
    const handle = await startJob(
      {
        jobId,
        pattern: 'fanout',
        budget: { costUsd: 10 },
        tasks: [
          {
            id: 'long',
            question: 'q',
            agent: 'sim',
            params: { steps: 100_000, costUsd: 0.001, latencyMs: 20 },
            budget: { costUsd: 0.05 },
            budgetWaitSeconds: 60,
          },
        ],
      },
      { subtaskStepsPerRun: 10 },
    );
    const childId = `job/test/${jobId}/long`;
    // 0.05 buys 50 steps over 5 runs; then the subtask waits for a top-up in its latest run
    await pollUntil(
      async () =>
        (
          await client.workflow
            .getHandle(childId)
            .query(subtaskStatusQuery)
            .catch(() => undefined)
        )?.phase === 'waiting_for_budget',
      'subtask never waited for budget',
      300_000,
    );
    expect((await runsOf(childId)).length).toBeGreaterThanOrEqual(5);
    const before = await client.workflow.getHandle(childId).query(subtaskStatusQuery);
    expect(before.steps).toBe(50);
    // the job grants through the child handle (by workflow id): the new run gets it
    await handle.executeUpdate(subtaskBudgetUpdate, { args: [{ taskId: 'long', add: { costUsd: 0.02 } }] });
    await pollUntil(
      async () =>
        (await client.workflow.getHandle(childId).query(subtaskStatusQuery)).phase === 'waiting_for_budget' &&
        (await client.workflow.getHandle(childId).query(subtaskStatusQuery)).steps === 70,
      'top-up did not reach the new run',
      300_000,
    );
    await handle.signal(stopSignal, { reason: 'test' });
    const r = await handle.result();
    const [t] = r.results;
    expect(t.status).toBe('partial');
    expect(t.failureReason).toBe('stopped');
    expect(t.metrics.steps).toBe(70);
    expect(t.metrics.costUsd).toBeCloseTo(0.07, 9);
    expect(r.metrics.costUsd).toBeCloseTo(0.07, 9);
    expect((await runsOf(childId)).length).toBeGreaterThanOrEqual(7);
  }, 600_000);

  it('a 100,000-step sim job past its maximum duration ends partial with timeout, its steps and spend kept', async () => {
    const jobId = uniqueId('can100k');
    const handle = await startJob(
      {
        jobId,
        pattern: 'fanout',
        tasks: [{ id: 'long', question: 'q', agent: 'sim', params: { steps: 100_000, costUsd: 0.001, tokens: 2 } }],
      },
      { maxDurationSeconds: 20, subtaskStepsPerRun: 40 },
    );
    const r = await handle.result();
    const [t] = r.results;
    expect(r.status).toBe('partial');
    expect(t.status).toBe('partial');
    expect(t.failureReason).toBe('timeout');
    expect(t.metrics.steps).toBeGreaterThan(0);
    expect(t.metrics.steps).toBeLessThan(100_000);
    // the step in flight at the deadline is paid for as far as its last heartbeat said (its spend
    // is kept), and it is not a step done: the spend covers the steps done, or one more
    const paid = Math.round(t.metrics.tokens / 2);
    expect([t.metrics.steps, t.metrics.steps + 1]).toContain(paid);
    expect(t.metrics.costUsd).toBeCloseTo(paid * 0.001, 9);
    expect(r.metrics.steps).toBe(t.metrics.steps);
    expect(r.metrics.costUsd).toBeCloseTo(t.metrics.costUsd, 9);
    expect(t.metrics.latencyMs).toBeGreaterThanOrEqual(19_000);
    expect(t.errors.join('\n')).toMatch(/maximum duration/);
  }, 600_000);
});
