import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import type { SubtaskInput } from '../../contracts/subtask';
import { runJob, testClient, uniqueId } from '../helpers';

/** The input a child workflow was started with, read from its history. */
async function childInput(workflowId: string): Promise<SubtaskInput> {
  const client = await testClient();
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const payload = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
  return defaultPayloadConverter.fromPayload(payload);
}

const evidence = (id: string) => ({ id, source: 'web', snippet: `found ${id}` });

describe('pipeline', () => {
  it('runs three stages in order; stage 2 reads stage 1 answer and evidence', async () => {
    const jobId = uniqueId('pipe3');
    const r = await runJob({
      jobId,
      pattern: 'pipeline',
      tasks: [
        { id: 'find', question: 'Which city?', agent: 'sim', params: { answer: { city: 'Paris' }, evidence: [evidence('e1')] } },
        {
          id: 'check',
          question: 'Check it',
          agent: 'sim',
          params: { echoPrevious: true, evidence: [evidence('e2')] },
          contextSeed: [evidence('e0')],
        },
        { id: 'write', question: 'Write it up', agent: 'sim', params: { answer: 'Paris it is' } },
      ],
    });
    expect(r.status).toBe('success');
    expect(r.results.map((x) => [x.id, x.status])).toEqual([
      ['find', 'success'],
      ['check', 'success'],
      ['write', 'success'],
    ]);
    expect(r.results[1].data).toEqual({ city: 'Paris' });
    expect(r.output).toBe('Paris it is');
    expect(r.evidence.map((e) => e.id)).toEqual(['e1', 'e2']);

    // the host hands stage 2 the previous result explicitly and appends its evidence to the seed
    const check = await childInput(`job/test/${jobId}/check`);
    expect(check.previous).toMatchObject({ id: 'find', data: { city: 'Paris' }, evidence: [{ id: 'e1' }] });
    expect(check.task.contextSeed?.map((e) => e.id)).toEqual(['e0', 'e1']);
    const write = await childInput(`job/test/${jobId}/write`);
    expect(write.previous).toMatchObject({ id: 'check', data: { city: 'Paris' } });
    expect(write.task.contextSeed?.map((e) => e.id)).toEqual(['e2']);
    expect((await childInput(`job/test/${jobId}/find`)).previous).toBeUndefined();
  });

  const withFailingMiddle = (jobId: string, onStageFailure: 'stop' | 'continue') => ({
    jobId,
    pattern: 'pipeline' as const,
    pipeline: { onStageFailure },
    tasks: [
      { id: 'one', question: 'q1', agent: 'sim', params: { answer: 'A' } },
      { id: 'two', question: 'q2', agent: 'sim', params: { fatal: true } },
      { id: 'three', question: 'q3', agent: 'sim', params: { echoPrevious: true } },
    ],
  });

  it('stop (the default): a failed middle stage skips the rest; partial, output from the last success', async () => {
    const r = await runJob(withFailingMiddle(uniqueId('pstop'), 'stop'));
    expect(r.results.map((x) => [x.id, x.status, x.failureReason])).toEqual([
      ['one', 'success', null],
      ['two', 'failure', 'agent_error'],
      ['three', 'failure', 'skipped'],
    ]);
    expect(r.results[2].summary).toContain('stage "two"');
    expect(r.status).toBe('partial');
    expect(r.output).toBe('A');
    expect(r.metrics.subtasks).toBe(3);
  });

  it('continue: the stage after a failure runs on the last successful stage', async () => {
    const r = await runJob(withFailingMiddle(uniqueId('pcont'), 'continue'));
    expect(r.results.map((x) => [x.id, x.status, x.failureReason])).toEqual([
      ['one', 'success', null],
      ['two', 'failure', 'agent_error'],
      ['three', 'success', null],
    ]);
    expect(r.results[2].data).toBe('A');
    expect(r.status).toBe('partial');
  });

  it('a partial stage (budget spent) is a failed stage for chaining: the rest is skipped, the job partial', async () => {
    const r = await runJob({
      jobId: uniqueId('ppartial'),
      pattern: 'pipeline',
      tasks: [
        { id: 'long', question: 'q1', agent: 'sim', params: { steps: 5, costUsd: 0.01 }, budget: { costUsd: 0.02 } },
        { id: 'next', question: 'q2', agent: 'sim', params: { echoPrevious: true } },
      ],
    });
    expect(r.results.map((x) => [x.id, x.status, x.failureReason])).toEqual([
      ['long', 'partial', 'budget_exhausted'],
      ['next', 'failure', 'skipped'],
    ]);
    expect(r.status).toBe('partial');
    expect(r.output).toBeNull();
  });

  it('a failed first stage under stop fails the job with nothing to show', async () => {
    const r = await runJob({
      jobId: uniqueId('pfirst'),
      pattern: 'pipeline',
      tasks: [
        { id: 'one', question: 'q1', agent: 'sim', params: { fatal: true } },
        { id: 'two', question: 'q2', agent: 'sim' },
      ],
    });
    expect(r.status).toBe('failure');
    expect(r.output).toBeNull();
    expect(r.results.map((x) => x.failureReason)).toEqual(['agent_error', 'skipped']);
  });
});
