/** The breaker's state machine without a server: open after N failures, one trial after the cool-down, close on success. */
import { describe, expect, it } from 'vitest';
import {
  acquireTrial,
  applyOutcome,
  breakerView,
  initialBreaker,
  phaseAt,
  releaseTrial,
  type BreakerState,
} from '../../core/breaker-state';

const settings = { failures: 3, cooldownMs: 1000 };
const fail = (s: BreakerState, at: number, error = 'boom') => applyOutcome(s, { ok: false, at, error }, at);
const ok = (s: BreakerState, at: number) => applyOutcome(s, { ok: true, at }, at);
const trial = (s: BreakerState, holder: string, at: number, leaseMs = 500) => acquireTrial(s, { holder, leaseMs }, at);

describe('breaker state', () => {
  it('opens after N failures in a row; a success in between starts the count again', () => {
    let s = initialBreaker(settings);
    s = fail(fail(s, 1), 2);
    expect(phaseAt(s, 2)).toBe('closed');
    s = ok(s, 3);
    expect(s.consecutiveFailures).toBe(0);
    s = fail(fail(fail(s, 4), 5), 6);
    expect(phaseAt(s, 6)).toBe('open');
    expect(s).toMatchObject({ consecutiveFailures: 3, openedAt: 6, openUntil: 1006, lastFailure: { at: 6, error: 'boom' }, outcomes: 6 });
    expect(trial(s, 'a', 500).grant).toEqual({ granted: false, waitMs: 506 });
  });

  it('half-opens after the cool-down: one trial at a time on a lease; a success closes it', () => {
    let s = fail(fail(fail(initialBreaker(settings), 0), 0), 0);
    expect(phaseAt(s, 1000)).toBe('half_open');
    const first = trial(s, 'step-a', 1000);
    expect(first.grant.granted).toBe(true);
    s = first.state;
    expect(trial(s, 'step-b', 1100).grant).toEqual({ granted: false, waitMs: 400 });
    // the holder may renew; a lost trial frees itself when its lease ends
    expect(trial(s, 'step-a', 1100).grant.granted).toBe(true);
    expect(trial(s, 'step-b', 1500).grant.granted).toBe(true);
    s = ok(s, 1200);
    expect(phaseAt(s, 1200)).toBe('closed');
    expect(s.consecutiveFailures).toBe(0);
    expect(s.trial).toBeUndefined();
  });

  it('a failed trial reopens for a new cool-down; a released trial goes to the next asker', () => {
    let s = trial(fail(fail(fail(initialBreaker(settings), 0), 0), 0), 'a', 1000).state;
    s = releaseTrial(s, 'someone-else');
    expect(trial(s, 'b', 1001).grant.granted).toBe(false);
    s = releaseTrial(s, 'a');
    s = trial(s, 'b', 1001).state;
    s = fail(s, 1200);
    expect(phaseAt(s, 1200)).toBe('open');
    expect(s.openUntil).toBe(2200);
    expect(s.consecutiveFailures).toBe(4);
  });

  it('ignores outcomes of steps that ran before it opened while the cool-down runs', () => {
    let s = fail(fail(fail(initialBreaker(settings), 0), 0), 0);
    s = ok(s, 10);
    expect(phaseAt(s, 10)).toBe('open');
    s = fail(s, 20);
    expect(s.openUntil).toBe(1000);
  });

  it('takes new settings from an outcome (a changed config applies at once)', () => {
    let s = fail(initialBreaker(settings), 0);
    s = applyOutcome(s, { ok: false, at: 1, settings: { failures: 2, cooldownMs: 50 } }, 1);
    expect(phaseAt(s, 1)).toBe('open');
    expect(s.openUntil).toBe(51);
  });

  it('reads as the API shows it: no breaker yet is closed; open until an ISO time', () => {
    expect(breakerView(undefined, settings, 0)).toEqual({
      state: 'closed',
      consecutiveFailures: 0,
      failureThreshold: 3,
      cooldownSeconds: 1,
    });
    const s = fail(fail(fail(initialBreaker(settings), 0), 0), Date.parse('2026-12-01T10:00:00Z'));
    const v = breakerView(s, settings, Date.parse('2026-12-01T10:00:00.5Z'));
    expect(v).toMatchObject({
      state: 'open',
      consecutiveFailures: 3,
      openUntil: '2026-12-01T10:00:01.000Z',
      lastFailure: { at: '2026-12-01T10:00:00.000Z', error: 'boom' },
    });
    expect(breakerView(s, settings, Date.parse('2026-12-01T10:00:02Z')).state).toBe('half_open');
  });
});
