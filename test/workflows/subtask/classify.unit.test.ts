/** How the loop reads a failed activity, and the options a step runs with. */
import { ActivityFailure, ApplicationFailure, CancelledFailure, RetryState, TimeoutFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { ErrorType } from '../../../core/errors';
import { classify } from '../../../workflows/subtask/classify';
import { stepOptions, stepPolicyOf } from '../../../workflows/subtask/runtime';
import { manifest, T0, task, usage } from './fixtures';

const activity = (cause: Error) =>
  new ActivityFailure('activity failed', 'agentStep', '1', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'w', cause);

describe('classify', () => {
  it('maps an application failure type to its reason, with the attempt, spend and re-prompt hint from its details', () => {
    const cases = [
      [ErrorType.ToolDenied, 'tool_denied'],
      [ErrorType.InvalidOutput, 'invalid_output'],
      [ErrorType.NoAgent, 'no_agent'],
      [ErrorType.BudgetExceeded, 'budget_exhausted'],
      [ErrorType.CircuitOpen, 'circuit_open'],
      ['SomethingElse', 'agent_error'],
      ['constructor', 'agent_error'],
    ] as const;
    for (const [type, reason] of cases)
      expect(classify(activity(ApplicationFailure.create({ type, message: 'm' })), 3), type).toMatchObject({
        reason,
        attempts: 3,
        message: 'm',
      });
    const detailed = ApplicationFailure.create({
      type: ErrorType.InvalidOutput,
      message: 'bad',
      details: [{ attempt: 2, usage: usage({ tokens: 9 }), noReprompt: true }],
    });
    expect(classify(activity(detailed), 3)).toEqual({
      reason: 'invalid_output',
      attempts: 2,
      message: 'bad',
      usage: usage({ tokens: 9 }),
      noReprompt: true,
    });
  });

  it('reads timeouts: a step nobody started is agent_unavailable after one attempt, others used every attempt', () => {
    expect(classify(activity(new TimeoutFailure('t', undefined, 'SCHEDULE_TO_START')), 3)).toEqual({
      reason: 'agent_unavailable',
      attempts: 1,
      message: 't',
    });
    expect(classify(activity(new TimeoutFailure('t', undefined, 'START_TO_CLOSE')), 3)).toEqual({
      reason: 'timeout',
      attempts: 3,
      message: 'step timed out: t',
    });
    expect(classify(new CancelledFailure('c'), 3)).toEqual({ reason: 'cancelled', attempts: 1, message: 'cancelled' });
    expect(classify('weird', 2)).toEqual({ reason: 'agent_error', attempts: 2, message: 'weird' });
  });
});

describe('stepOptions', () => {
  const policy = {
    timeoutSeconds: 20,
    retry: { maxAttempts: 4, initialIntervalSeconds: 1, backoffCoefficient: 2, maximumIntervalSeconds: 10 },
  };
  it("runs a step with its agent's policy, on its queue, at its priority, bounded by the job's deadline", () => {
    const o = stepOptions({
      task: task({ priority: 2 }),
      agentId: 'agent-a',
      policy,
      queue: 'lane.pool-x',
      deadline: T0 + 5000,
      scheduleToStartSeconds: 60,
      now: T0,
    });
    expect(o).toMatchObject({
      scheduleToCloseTimeout: 5000,
      taskQueue: 'lane.pool-x',
      scheduleToStartTimeout: '60 seconds',
      priority: { priorityKey: 2 },
      startToCloseTimeout: '20 seconds',
      heartbeatTimeout: '10 seconds',
      retry: { maximumAttempts: 4, initialInterval: '1 seconds', backoffCoefficient: 2, maximumInterval: '10 seconds' },
    });
    const bare = stepOptions({ task: task(), agentId: 'agent-a', policy, scheduleToStartSeconds: 0, deadline: T0, now: T0 + 1 });
    expect(bare.scheduleToCloseTimeout).toBe(1);
    expect(bare).not.toHaveProperty('taskQueue');
    expect(bare).not.toHaveProperty('scheduleToStartTimeout');
    expect(bare).not.toHaveProperty('priority');
  });
});

describe('stepPolicyOf', () => {
  it("takes the task's timeout and retry over its agent's, clamped under the operator's ceiling", () => {
    const m = manifest({ limits: { timeoutSeconds: 30, maxSteps: 5 } });
    expect(stepPolicyOf(task(), m)).toEqual({ timeoutSeconds: 30, retry: m.retry });
    expect(stepPolicyOf(task({ timeoutSeconds: 10, retry: { ...m.retry, maxAttempts: 5 } }), m).retry.maxAttempts).toBe(5);
    // 3 attempts of 30 s plus 1 + 2 s of backoff pass 70 s: one attempt fewer
    expect(stepPolicyOf(task(), m, 70)).toMatchObject({ timeoutSeconds: 30, retry: { maxAttempts: 2 } });
  });
});
