/** The subtask's down-shift in the loop's order: before a step past the threshold, then the checks again. */
import { describe, expect, it } from 'vitest';
import { measure, type DownshiftPlan } from '../../../core/downshift';
import { charge } from '../../../core/budget-ledger';
import { runManifest } from '../../../core/routing';
import { hostRules } from '../../../workflows/subtask/host-rules';
import { applyDownshift, downshiftDue } from '../../../workflows/subtask/downshift';
import { BEGIN, next, type LoopContext } from '../../../workflows/subtask/next';
import { statsOf } from '../../core/stats-fixtures';
import { manifest, running, T0, task, usage } from './fixtures';

const rung = (id: string, failures: number, usd: number) => ({
  ...measure(id, statsOf(40, failures, usd)),
  manifest: runManifest(manifest({ id, kind: 'llm' })),
});
const plan: DownshiftPlan = { threshold: 0.8, qualityFloor: 0.9, rungs: [rung('agent-a', 0, 0.01), rung('cheap', 1, 0.001)] };

function context(downshift?: DownshiftPlan): LoopContext {
  const t = task();
  return {
    task: t,
    rules: hostRules(3, t.stopConditions),
    deadline: undefined,
    stepsPerRun: undefined,
    role: false,
    ...(downshift ? { downshift } : {}),
    now: () => T0,
    history: () => ({ historyLength: 10, historySize: 1000, continueAsNewSuggested: false }),
  };
}

describe('next: the down-shift before a step', () => {
  it('runs on under the threshold, and without a ladder', () => {
    const s = running({ allocation: { costUsd: 0.1 }, manifest: manifest({ kind: 'llm' }) });
    charge(s.ledger, usage({ costUsd: 0.07 }));
    expect(next(s, BEGIN, context(plan))).toEqual({ kind: 'runStep' });
    charge(s.ledger, usage({ costUsd: 0.02 }));
    expect(next(s, BEGIN, context())).toEqual({ kind: 'runStep' });
  });

  it('past the threshold: the cheaper agent takes the remaining steps with the conversation, noted, and the checks run again', () => {
    const s = running({ allocation: { costUsd: 0.1 }, manifest: manifest({ kind: 'llm' }) });
    s.agentState = { messages: ['hi'] };
    charge(s.ledger, usage({ costUsd: 0.085 }));
    const a = next(s, BEGIN, context(plan));
    expect(a).toMatchObject({ kind: 'downshift', shift: { from: 'agent-a', share: 0.85, axis: 'costUsd', scope: 'subtask' } });
    if (a.kind !== 'downshift') throw new Error('no down-shift');
    expect(a.shift.to.agent).toBe('cheap');
    applyDownshift(s, a.shift, plan);
    expect([s.agentId, s.manifest.id, s.routing?.agent]).toEqual(['cheap', 'cheap', 'cheap']);
    expect(s.agentState).toEqual({ messages: ['hi'] });
    expect(s.notes.at(-1)).toMatch(/^down-shift from agent-a to cheap: the subtask spent 85% of its costUsd/);
    // at the bottom of the ladder: the step runs, and the budget halts it as always
    expect(next(s, { kind: 'downshifted' }, context(plan))).toEqual({ kind: 'runStep' });
    charge(s.ledger, usage({ costUsd: 0.02 }));
    expect(next(s, BEGIN, context(plan))).toEqual({ kind: 'finish' });
    expect(s.reason).toBe('budget_exhausted');
  });

  it('never below the floor, nor to an agent the task failed on: nothing changes', () => {
    const s = running({ allocation: { costUsd: 0.1 } });
    charge(s.ledger, usage({ costUsd: 0.09 }));
    expect(downshiftDue(s, { ...plan, qualityFloor: 0.99 }, T0)).toBeUndefined();
    s.agentsTried.push({ agent: 'cheap', outcome: 'failure', reason: 'agent_error' });
    expect(downshiftDue(s, plan, T0)).toBeUndefined();
  });
});
