import { describe, expect, it } from 'vitest';
import { fastRetry, runJob, testClient, uniqueId } from '../helpers';

describe('subtask steps: retries, timeouts, fatal errors', () => {
  it('retries a failing step and succeeds on attempt 3, counting attempts', async () => {
    const r = await runJob({
      jobId: uniqueId('retry'),
      pattern: 'fanout',
      tasks: [{ id: 't', question: 'flaky?', agent: 'sim', params: { failAttempts: 2, answer: 42 }, retry: fastRetry }],
    });
    expect(r.results[0]).toMatchObject({ status: 'success', data: 42, failureReason: null, metrics: { attempts: 3, steps: 1 } });
    expect(r.status).toBe('success');
  });

  it('ends a hanging step as failure/timeout after its attempts, without failing the job', async () => {
    const r = await runJob({
      jobId: uniqueId('hang'),
      pattern: 'fanout',
      tasks: [
        {
          id: 'hang',
          question: 'never?',
          agent: 'sim',
          params: { hang: true },
          timeoutSeconds: 2,
          retry: { ...fastRetry, maxAttempts: 2 },
        },
        { id: 'ok', question: 'fine?', agent: 'echo' },
      ],
    });
    expect(r.results[0]).toMatchObject({ id: 'hang', status: 'failure', failureReason: 'timeout', metrics: { attempts: 2, steps: 0 } });
    expect(r.results[1]).toMatchObject({ id: 'ok', status: 'success' });
    expect(r.status).toBe('partial');
  });

  it('does not retry a fatal error', async () => {
    const r = await runJob({
      jobId: uniqueId('fatal'),
      pattern: 'fanout',
      tasks: [{ id: 't', question: 'boom?', agent: 'sim', params: { fatal: true }, retry: { ...fastRetry, maxAttempts: 5 } }],
    });
    expect(r.results[0]).toMatchObject({ status: 'failure', failureReason: 'agent_error', metrics: { attempts: 1 } });
    expect(r.results[0].errors[0]).toContain('fatal');
    expect(r.status).toBe('failure');
  });

  it('denies a tool outside the task scope (the host checks, not the agent)', async () => {
    const r = await runJob({
      jobId: uniqueId('denied'),
      pattern: 'fanout',
      tasks: [{ id: 't', question: 'tools?', agent: 'sim', params: { tools: ['search'] }, scope: [] }],
    });
    expect(r.results[0]).toMatchObject({ status: 'failure', failureReason: 'tool_denied' });
  });
});

describe('fan-out aggregation', () => {
  it('stops at quorum 2 of 4: the slow ones are cancelled and recorded', async () => {
    const r = await runJob({
      jobId: uniqueId('quorum'),
      pattern: 'fanout',
      aggregation: { strategy: 'merge', quorum: 2 },
      tasks: [
        { id: 'f1', question: 'q', agent: 'sim', params: { answer: 1 } },
        { id: 'f2', question: 'q', agent: 'sim', params: { answer: 2, latencyMs: 200 } },
        // never answer (hang until cancelled): only the quorum ends the job
        { id: 's1', question: 'q', agent: 'sim', params: { answer: 3, hang: true } },
        { id: 's2', question: 'q', agent: 'sim', params: { answer: 4, hang: true } },
      ],
    });
    expect(r.status).toBe('success');
    expect(r.results.map((x) => [x.id, x.status, x.failureReason])).toEqual([
      ['f1', 'success', null],
      ['f2', 'success', null],
      ['s1', 'failure', 'cancelled'],
      ['s2', 'failure', 'cancelled'],
    ]);
    expect(r.output).toEqual({ f1: 1, f2: 2 });
  });

  it('picks the most confident answer with best_confidence', async () => {
    const r = await runJob({
      jobId: uniqueId('best'),
      pattern: 'fanout',
      aggregation: { strategy: 'best_confidence' },
      tasks: [
        { id: 'lo', question: 'q', agent: 'sim', params: { answer: 'lo', confidence: 0.3 } },
        { id: 'hi', question: 'q', agent: 'sim', params: { answer: 'hi', confidence: 0.95 } },
        { id: 'mid', question: 'q', agent: 'sim', params: { answer: 'mid', confidence: 0.6 } },
      ],
    });
    expect(r.output).toBe('hi');
  });

  it('fails below minSuccess and honours maxParallel', async () => {
    const jobId = uniqueId('min');
    const r = await runJob({
      jobId,
      pattern: 'fanout',
      maxParallel: 1,
      aggregation: { strategy: 'merge', minSuccess: 2 },
      tasks: [
        { id: 'ok', question: 'q', agent: 'sim', params: { latencyMs: 300 } },
        { id: 'bad1', question: 'q', agent: 'sim', params: { fatal: true, latencyMs: 300 } },
        { id: 'bad2', question: 'q', agent: 'sim', params: { fatal: true } },
      ],
    });
    expect(r.status).toBe('failure');
    // one at a time: each child starts only after the previous one closed
    const client = await testClient();
    const spans = await Promise.all(['ok', 'bad1', 'bad2'].map((id) => client.workflow.getHandle(`job/test/${jobId}/${id}`).describe()));
    for (let i = 1; i < spans.length; i++) {
      expect(spans[i].startTime.getTime()).toBeGreaterThanOrEqual(spans[i - 1].closeTime!.getTime());
    }
  });
});

describe('a fan-out’s live events', () => {
  it('writes the job’s start and every child’s start of one activation with one local activity', async () => {
    const jobId = uniqueId('burst');
    const r = await runJob({
      jobId,
      pattern: 'fanout',
      tasks: Array.from({ length: 20 }, (_, i) => ({ id: `t${i}`, question: `q${i}`, agent: 'echo' })),
    });
    expect(r.status).toBe('success');
    const { events } = await (await testClient()).workflow.getHandle(`job/test/${jobId}`).fetchHistory();
    const starts = events!.map((e, i) => (e.workflowTaskStartedEventAttributes ? i : -1)).filter((i) => i >= 0);
    // the first workflow task's writes: job.started and the 20 subtask.started in one burst, one write
    // (EVENTS_BURST_PATCH; before it the first event left alone and the other 20 waited for a second write)
    const firstTask = events!.slice(starts[0], starts[1]);
    const writes = firstTask.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity');
    expect(writes).toHaveLength(1);
    expect(firstTask.filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)).toHaveLength(20);
  });
});
