/** What an A2A message runs, and how a job reads as an A2A task (pure: no server). */
import { TaskState, type Message, type Part } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { stateOfOutcome, stateOfView, taskOfResult } from '../../activities/a2a-task';
import { a2aPushOf } from '../../core/a2a';
import { jobIdOfMessage, Rejection, submissionOf } from '../../api/a2a/messages';
import type { JobResult, TaskResult } from '../../schemas';
import { a2aMessage } from '../a2a-fixtures';

const part = (content: Part['content']): Part => ({ content, metadata: undefined, filename: '', mediaType: '' });
const msg = (...parts: Part[]): Message => a2aMessage('m', parts);
const rejection = (m: Message): Rejection => {
  try {
    submissionOf(m);
  } catch (err) {
    if (err instanceof Rejection) return err;
    throw err;
  }
  throw new Error('not rejected');
};

describe('submissionOf', () => {
  it('reads a job spec, a research subtask, or plain text', () => {
    expect(
      submissionOf(msg(part({ $case: 'data', value: { pattern: 'vote', tasks: [{ id: 'a', question: 'q', agent: 'echo' }] } }))),
    ).toMatchObject({
      kind: 'job',
      spec: { pattern: 'vote' },
    });
    const research = { id: 's1', question: 'why?', budget: { latency_seconds: 10, cost_usd: 0.1, tool_calls: 1 } };
    expect(submissionOf(msg(part({ $case: 'data', value: research })))).toMatchObject({ kind: 'research', input: { id: 's1' } });
    expect(submissionOf(msg(part({ $case: 'text', value: '  what is up?  ' })))).toMatchObject({
      kind: 'research',
      input: { question: 'what is up?', budget: { latency_seconds: 600 } },
    });
  });

  it('refuses with the field paths at fault', () => {
    expect(
      rejection(msg(part({ $case: 'text', value: 'x' }), part({ $case: 'data', value: { pattern: 'fanout', tasks: [] } }))).errors[0]!.path,
    ).toBe('message.parts[1].data.tasks');
    expect(rejection(msg(part({ $case: 'data', value: { hello: 1 } }))).errors[0]!.path).toBe('message.parts[0].data');
    expect(rejection(msg()).errors[0]!.path).toBe('message.parts');
  });

  it('keeps a valid messageId as the job id and hashes any other, the same way every time', () => {
    expect(jobIdOfMessage('report-1')).toBe('report-1');
    expect(jobIdOfMessage('has spaces/and slashes')).toMatch(/^a2a-[0-9a-f]{40}$/);
    expect(jobIdOfMessage('has spaces/and slashes')).toBe(jobIdOfMessage('has spaces/and slashes'));
  });
});

describe('a job as an A2A task', () => {
  const result = (status: JobResult['status'], results: Partial<TaskResult>[] = []) =>
    ({
      jobId: 'j',
      pattern: 'fanout',
      status,
      output: null,
      results,
      evidence: [],
      followUps: ['next?'],
      metrics: {},
    }) as unknown as JobResult;

  it('maps the outcomes both ways the issue lists', () => {
    expect(stateOfOutcome('success')).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(stateOfOutcome('partial')).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(stateOfOutcome('failure')).toBe(TaskState.TASK_STATE_FAILED);
    expect(stateOfOutcome('cancelled')).toBe(TaskState.TASK_STATE_CANCELED);
    expect(stateOfOutcome('partial', [{ failureReason: 'stopped' } as TaskResult])).toBe(TaskState.TASK_STATE_CANCELED);
    expect(stateOfView({ state: 'running' })).toBe(TaskState.TASK_STATE_WORKING);
    expect(stateOfView({ state: 'terminated' })).toBe(TaskState.TASK_STATE_CANCELED);
    expect(stateOfView({ state: 'timed_out' })).toBe(TaskState.TASK_STATE_FAILED);
  });

  it('puts a partial flag and the follow-ups on the result artifact', () => {
    const t = taskOfResult(
      'j',
      'ctx',
      result('partial', [{ id: 'a', status: 'partial', summary: 's', errors: [] } as unknown as TaskResult]),
    );
    expect(t).toMatchObject({ id: 'j', contextId: 'ctx', status: { state: TaskState.TASK_STATE_COMPLETED } });
    expect(t.artifacts[0]!.metadata).toEqual({ status: 'partial', partial: true, followUps: ['next?'] });
  });

  it('asks for an A2A webhook body only when the spec says so', () => {
    expect(a2aPushOf({ jobId: 'j' })).toBeUndefined();
    expect(a2aPushOf({ jobId: 'j', callbackFormat: 'a2a', callbackToken: 't', labels: { 'a2a.context': 'c' } })).toEqual({
      contextId: 'c',
      token: 't',
    });
  });
});
