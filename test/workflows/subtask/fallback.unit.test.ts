/** Fallback agents on the state: who may move on, what the switch keeps and resets, what agentsTried says. */
import { describe, expect, it } from 'vitest';
import { fallbackUnresolved, leaveAgent, mayFallBack, switchTo, takeFallback } from '../../../workflows/subtask/fallback';
import { hostRules } from '../../../workflows/subtask/host-rules';
import { halt } from '../../../workflows/subtask/halt';
import { taskResult } from '../../../workflows/subtask/result';
import { ev, manifest, running, T0, task } from './fixtures';

const withFallbacks = () => running({ task: task({ fallback: ['agent-b', 'agent-c'] }), allocation: { costUsd: 1 } });

describe('fallbacks', () => {
  it("moves on from the agent's own failures while a fallback is left", () => {
    const s = withFallbacks();
    expect(mayFallBack(s, 'circuit_open', false)).toBe(true);
    expect(mayFallBack(s, 'timeout', true)).toBe(false);
    expect(mayFallBack(s, 'budget_exhausted', false)).toBe(false);
    s.fallbackAt = 2;
    expect(mayFallBack(s, 'agent_error', false)).toBe(false);
    expect(mayFallBack(running(), 'agent_error', false)).toBe(false);
  });

  it('hands the next agent the ledger and evidence, not the last agent state or re-prompt', () => {
    const s = withFallbacks();
    s.steps = 4;
    s.ledger.spent.costUsd = 0.3;
    s.evidence = [ev('a')];
    s.agentState = { cursor: 9 };
    s.reprompt = 'again';
    leaveAgent(s, 'agent-a', 'agent_error', 'x'.repeat(600));
    expect(takeFallback(s)).toBe('agent-b');
    switchTo(s, manifest({ id: 'agent-b' }), 'agent_error');
    expect(s).toMatchObject({
      agentId: 'agent-b',
      agentStartStep: 4,
      fallbackAt: 1,
      steps: 4,
      agentState: undefined,
      reprompt: undefined,
      evidence: [ev('a')],
    });
    expect(s.ledger.spent.costUsd).toBe(0.3);
    expect(s.routing).toEqual({ agent: 'agent-b', reason: 'fallback after agent_error of agent-a' });
    expect(s.agentsTried).toEqual([{ agent: 'agent-a', outcome: 'failure', reason: 'agent_error', error: 'x'.repeat(500) }]);
  });

  it('skips a fallback that cannot be resolved, recording it; none left after the last', () => {
    const s = withFallbacks();
    takeFallback(s);
    fallbackUnresolved(s, 'agent-b', { reason: 'no_agent', attempts: 1, message: 'unknown agent' });
    expect(takeFallback(s)).toBe('agent-c');
    expect(takeFallback(s)).toBeUndefined();
    expect(s.errors).toEqual(['fallback agent "agent-b": unknown agent']);
    expect(s.agentsTried).toEqual([{ agent: 'agent-b', outcome: 'failure', reason: 'no_agent', error: 'unknown agent' }]);
  });

  it("lists every agent tried in the result, the last with the task's outcome", () => {
    const s = withFallbacks();
    leaveAgent(s, 'agent-a', 'circuit_open', 'open');
    switchTo(s, manifest({ id: 'agent-b' }), 'circuit_open');
    s.steps = 1;
    const ok = taskResult(s, { task: task({ fallback: ['agent-b', 'agent-c'] }), rules: hostRules(1, []), jobId: 'j', now: T0 });
    expect(ok.agentsTried).toEqual([
      { agent: 'agent-a', outcome: 'failure', reason: 'circuit_open', error: 'open' },
      { agent: 'agent-b', outcome: 'success' },
    ]);
    halt(s, 'agent_error');
    expect(
      taskResult(s, { task: task({ fallback: ['agent-b'] }), rules: hostRules(1, []), jobId: 'j', now: T0 }).agentsTried?.at(-1),
    ).toEqual({ agent: 'agent-b', outcome: 'partial', reason: 'agent_error' });
    // every fallback failed to resolve: the list already ends with them
    s.triedAll = true;
    expect(taskResult(s, { task: task(), rules: hostRules(1, []), jobId: 'j', now: T0 }).agentsTried).toHaveLength(1);
  });
});
