import { describe, expect, it } from 'vitest';
import {
  backoffSeconds,
  checkStepPolicy,
  clampStepPolicy,
  noWorkerMessage,
  scheduleToStartOption,
  worstCaseSeconds,
} from '../../core/step-policy';

const retry = (maxAttempts: number, initialIntervalSeconds = 1, backoffCoefficient = 2, maximumIntervalSeconds = 30) => ({
  maxAttempts,
  initialIntervalSeconds,
  backoffCoefficient,
  maximumIntervalSeconds,
});

describe('step policy', () => {
  it('sums the backoff intervals, each capped at maximumInterval', () => {
    expect(backoffSeconds(retry(1))).toBe(0);
    expect(backoffSeconds(retry(4))).toBe(1 + 2 + 4);
    // 1, 2, 4, 8, 16, then 30 capped four times
    expect(backoffSeconds(retry(10))).toBe(1 + 2 + 4 + 8 + 16 + 30 * 4);
    expect(worstCaseSeconds({ timeoutSeconds: 60, retry: retry(3) })).toBe(180 + 3);
  });

  it('refuses a task over the ceiling with the numbers, passes one within it', () => {
    expect(checkStepPolicy({ timeoutSeconds: 60, retry: retry(3) }, 183)).toBeUndefined();
    const why = checkStepPolicy({ timeoutSeconds: 86_400, retry: retry(100) }, 86_400);
    expect(why).toMatch(/over the ceiling of 86400s/);
    expect(why).toMatch(/timeoutSeconds 86400 × maxAttempts 100/);
    // the agent's defaults fill what the task leaves open
    expect(checkStepPolicy({}, 100, { timeoutSeconds: 50, retry: retry(3) })).toMatch(/up to 153s/);
    expect(checkStepPolicy({ retry: retry(1) }, 100, { timeoutSeconds: 50 })).toBeUndefined();
  });

  it('clamps attempts first, then the timeout, to fit the ceiling', () => {
    const fewer = clampStepPolicy({ timeoutSeconds: 60, retry: retry(10) }, 200);
    expect(fewer.retry.maxAttempts).toBe(3);
    expect(worstCaseSeconds(fewer)).toBeLessThanOrEqual(200);
    const shorter = clampStepPolicy({ timeoutSeconds: 1000, retry: retry(5) }, 100);
    expect(shorter).toEqual({ timeoutSeconds: 100, retry: retry(1) });
    const same = { timeoutSeconds: 10, retry: retry(3) };
    expect(clampStepPolicy(same, 1000)).toBe(same);
  });

  it('bounds the wait for a worker at 300 s unless told otherwise; 0 waits without a bound', () => {
    expect(scheduleToStartOption()).toEqual({ scheduleToStartTimeout: '300 seconds' });
    expect(scheduleToStartOption(3)).toEqual({ scheduleToStartTimeout: '3 seconds' });
    expect(scheduleToStartOption(0)).toEqual({});
    expect(noWorkerMessage('delegate-agents-acme', 3)).toMatch(
      /^no worker started the step within 3s on task queue "delegate-agents-acme": no worker serves this lane/,
    );
  });
});
