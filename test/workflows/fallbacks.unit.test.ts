/** Which failures move a task on to its next fallback agent. */
import { describe, expect, it } from 'vitest';
import { fallsBack } from '../../workflows/fallbacks';

describe('fallsBack', () => {
  it("moves on from the agent's own failures, not from the budget, a stop or the job's deadline", () => {
    for (const r of ['circuit_open', 'agent_error', 'timeout', 'invalid_output', 'no_agent'] as const)
      expect(fallsBack(r, false), r).toBe(true);
    for (const r of ['budget_exhausted', 'cancelled', 'stopped', 'tool_denied'] as const) expect(fallsBack(r, false), r).toBe(false);
    expect(fallsBack('timeout', true)).toBe(false);
    expect(fallsBack('agent_error', true)).toBe(true);
  });
});
