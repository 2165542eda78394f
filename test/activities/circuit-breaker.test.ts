import { describe, expect, it } from 'vitest';
import { createCircuitBreaker } from '../../activities/circuit-breaker';
import { fastRetry, runJob, uniqueId } from '../helpers';

describe('circuit breaker (unit)', () => {
  it('opens after n failures in a row, lets one trial through after the cooldown, closes on success', () => {
    let t = 0;
    const b = createCircuitBreaker({ failures: 3, cooldownMs: 1000, now: () => t });
    for (let i = 0; i < 2; i++) b.failed('a');
    expect(b.blockedFor('a')).toBe(0);
    b.failed('a');
    expect(b.blockedFor('a')).toBe(1000);
    expect(b.blockedFor('other')).toBe(0);
    t = 1000;
    expect(b.blockedFor('a')).toBe(0); // the trial
    expect(b.blockedFor('a')).toBeGreaterThan(0); // only one trial at a time
    b.failed('a');
    expect(b.blockedFor('a')).toBe(1000); // reopened
    t = 2000;
    expect(b.blockedFor('a')).toBe(0);
    b.succeeded('a');
    expect(b.blockedFor('a')).toBe(0);
    b.failed('a');
    expect(b.blockedFor('a')).toBe(0); // closed again: counting from zero
  });
});

describe('circuit breaker (worker)', () => {
  it('fails fast with circuit_open once a remote agent has failed 5 steps in a row', async () => {
    const r = await runJob({
      jobId: uniqueId('circuit'),
      pattern: 'fanout',
      maxParallel: 1,
      tasks: Array.from({ length: 7 }, (_, i) => ({ id: `d${i}`, question: 'q', agent: 'down-http', retry: { ...fastRetry, maxAttempts: 1 } })),
    });
    const reasons = r.results.map((x) => x.failureReason);
    expect(reasons.slice(0, 5)).toEqual(Array(5).fill('agent_error'));
    expect(reasons.slice(5)).toEqual(['circuit_open', 'circuit_open']);
    expect(r.results[6].errors[0]).toContain('circuit open');
  });
});
