import { describe, expect, it } from 'vitest';
import { DEFAULT_RESTART_POLICY as P, FRESH, afterExit, restartPolicyFrom, type RestartState } from '../../scripts/restart-policy';

/** The waits of `ups.length` deaths in a row, each after being up that long. */
function run(ups: number[]) {
  let state: RestartState = FRESH;
  return ups.map((up) => {
    const next = afterExit(P, state, up);
    state = next.state;
    return next;
  });
}

describe('restart policy', () => {
  it('backs off exponentially to the cap', () => {
    expect(run(Array(8).fill(20_000)).map((n) => n.delayMs)).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
  });

  it('starts over once the child stayed up a while', () => {
    const waits = run([20_000, 20_000, 20_000, P.stableMs, 20_000]).map((n) => n.delayMs);
    expect(waits).toEqual([1000, 2000, 4000, 1000, 2000]);
  });

  it('gives up after maxQuickFailures deaths in a row right at start, not when one run lasted', () => {
    expect(run([100, 100, 100, 100, 100]).map((n) => n.giveUp)).toEqual([false, false, false, false, true]);
    expect(run([100, 100, 100, 100, P.quickMs, 100, 100]).map((n) => n.giveUp)).toEqual(Array(7).fill(false));
  });

  it('reads DELEGATE_RESTART_* and names a bad one', () => {
    expect(restartPolicyFrom({ DELEGATE_RESTART_INITIAL_MS: '100', DELEGATE_RESTART_MAX_QUICK_FAILURES: '3' })).toMatchObject({
      initialMs: 100,
      maxQuickFailures: 3,
      maxMs: P.maxMs,
    });
    expect(() => restartPolicyFrom({ DELEGATE_RESTART_MAX_MS: 'soon' })).toThrow(/DELEGATE_RESTART_MAX_MS/);
  });
});
