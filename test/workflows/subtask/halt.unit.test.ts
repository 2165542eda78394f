/** The checks before a step: signals, the job's deadline, every budget axis, the agent's steps, the history marks. */
import { describe, expect, it } from 'vitest';
import { BUDGET_AXES, type BudgetAxis } from '../../../core/budget-axes';
import { HISTORY_EVENTS_HARD, HISTORY_EVENTS_PER_RUN } from '../../../core/engine-limits';
import { beforeStep, budgetHalt, cannotCarry, continuesAsNew, stepsLeft } from '../../../workflows/subtask/halt';
import { hostRules } from '../../../workflows/subtask/host-rules';
import { applyOutcome } from '../../../workflows/subtask/step';
import { manifest, output, running, T0, usage } from './fixtures';

const v1 = hostRules(1, []);
const v0 = hostRules(undefined, []);
const history = (over: Partial<{ historyLength: number; historySize: number; continueAsNewSuggested: boolean }> = {}) => ({
  historyLength: 10,
  historySize: 1000,
  continueAsNewSuggested: false,
  ...over,
});
const noFailure = { pastDeadline: false, queue: 'q' };

describe('beforeStep', () => {
  it('goes on with nothing spent, no signal and no deadline', () => {
    const s = running({ allocation: { costUsd: 1, tokens: 100, toolCalls: 5, latencySeconds: 60 } });
    expect(beforeStep(s, undefined, T0)).toBe('go');
    expect(s.reason).toBeNull();
  });

  it('checks cancel, then stop, then the deadline, then the budget, then the steps', () => {
    const s = running({ allocation: { tokens: 10 } });
    s.ledger.spent.tokens = 10;
    s.steps = 10;
    s.stopRequested = true;
    s.cancelRequested = true;
    expect(beforeStep(s, T0, T0 + 1)).toBe('halt');
    expect(s.reason).toBe('cancelled');

    const stop = running({ allocation: { tokens: 10 } });
    stop.stopRequested = true;
    expect([beforeStep(stop, T0, T0 + 1), stop.reason]).toEqual(['halt', 'stopped']);

    const late = running({ allocation: { tokens: 10 } });
    late.ledger.spent.tokens = 10;
    expect([beforeStep(late, T0, T0), late.reason, late.errors]).toEqual(['halt', 'timeout', ['the job reached its maximum duration']]);

    const spent = running({ allocation: { tokens: 10 } });
    spent.ledger.spent.tokens = 10;
    spent.steps = 10;
    expect([beforeStep(spent, T0 + 1000, T0), spent.reason]).toEqual(['budget_spent', null]);
  });

  it.each(BUDGET_AXES)('halts on a spent %s before the next step', (axis: BudgetAxis) => {
    const s = running({ allocation: { [axis]: 2 } });
    if (axis === 'latencySeconds') {
      expect(beforeStep(s, undefined, T0 + 1999)).toBe('go');
      expect(beforeStep(s, undefined, T0 + 2000)).toBe('budget_spent');
    } else {
      s.ledger.spent[axis] = 1;
      expect(beforeStep(s, undefined, T0)).toBe('go');
      s.ledger.spent[axis] = 2;
      expect(beforeStep(s, undefined, T0)).toBe('budget_spent');
    }
    expect(budgetHalt(s, v1, T0 + 2000)).toBe('halt');
    expect(s.reason).toBe('budget_exhausted');
    expect(s.errors).toEqual([`${axis} budget spent before the first step`]);
  });

  it.each(['costUsd', 'tokens', 'toolCalls'] as const)('lets %s pass its cap by at most the one step in flight', (axis) => {
    const cap = 10;
    const perStep = 3;
    const s = running({ allocation: { [axis]: cap }, manifest: manifest({ limits: { timeoutSeconds: 30, maxSteps: 1000 } }) });
    let steps = 0;
    while (beforeStep(s, undefined, T0) === 'go') {
      applyOutcome(s, { kind: 'ok', out: output({ usage: usage({ [axis]: perStep }) }) }, noFailure);
      steps++;
    }
    budgetHalt(s, v1, T0);
    expect(steps).toBe(4);
    expect(s.ledger.spent[axis]).toBe(12);
    expect(s.ledger.spent[axis]).toBeLessThan(cap + perStep);
    expect(s.errors).toEqual([`${axis} budget spent after step 4`]);
  });

  it('says the agent is out of steps counting from where it took over', () => {
    const s = running({ manifest: manifest({ limits: { timeoutSeconds: 30, maxSteps: 2 } }) });
    s.steps = 2;
    expect(beforeStep(s, undefined, T0)).toBe('out_of_steps');
    expect(s.errors).toEqual(['agent did not finish within its 2 steps']);
    s.agentStartStep = 1;
    expect(stepsLeft(s)).toBe('go');
  });
});

describe('budgetHalt', () => {
  it('reports the signal that ended the wait for a top-up', () => {
    const s = running({ allocation: { tokens: 1 } });
    s.stopRequested = true;
    budgetHalt(s, v1, T0);
    expect([s.reason, s.errors]).toEqual(['stopped', []]);
    const c = running({ allocation: { tokens: 1 } });
    c.cancelRequested = true;
    c.stopRequested = true;
    budgetHalt(c, v1, T0);
    expect(c.reason).toBe('cancelled');
  });

  it('names the axes and the step, and the `budget exhausted` condition, under host rules 1 only', () => {
    const rules = hostRules(1, ['budget exhausted']);
    const s = running({ allocation: { tokens: 1, toolCalls: 1 } });
    s.ledger.spent = usage({ tokens: 1, toolCalls: 1 });
    s.steps = 3;
    budgetHalt(s, rules, T0);
    expect(s).toMatchObject({
      reason: 'budget_exhausted',
      stoppedBy: 'budget exhausted',
      errors: ['tokens, toolCalls budget spent after step 3'],
    });
    const old = running({ allocation: { tokens: 1 } });
    old.ledger.spent.tokens = 1;
    budgetHalt(old, v0, T0);
    expect(old).toMatchObject({ reason: 'budget_exhausted', errors: [] });
    expect(old.stoppedBy).toBeUndefined();
  });
});

describe('history marks', () => {
  it('continues as new past the soft mark or after stepsPerRun steps of this run', () => {
    const s = running();
    s.steps = 5;
    s.stepsAtRunStart = 3;
    expect(continuesAsNew(s, history(), undefined)).toBe(false);
    expect(continuesAsNew(s, history(), 3)).toBe(false);
    expect(continuesAsNew(s, history(), 2)).toBe(true);
    expect(continuesAsNew(s, history({ historyLength: HISTORY_EVENTS_PER_RUN + 1 }), undefined)).toBe(true);
    expect(continuesAsNew(s, history({ continueAsNewSuggested: true }), undefined)).toBe(true);
  });

  it('halts with its work when the state cannot be carried past the hard mark; goes on before it', () => {
    const s = running();
    s.steps = 7;
    expect(cannotCarry(s, history({ historyLength: HISTORY_EVENTS_PER_RUN + 1 }), 3_000_000)).toBe(false);
    expect(s.reason).toBeNull();
    expect(cannotCarry(s, history({ historyLength: HISTORY_EVENTS_HARD + 1 }), 3_000_000)).toBe(true);
    expect(s.reason).toBe('agent_error');
    expect(s.errors).toEqual(["halted at step 7: its history is near Temporal's limit and its state (3000000 bytes) is too big to carry"]);
  });
});
