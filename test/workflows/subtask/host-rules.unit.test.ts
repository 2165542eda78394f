/** The host rules as one object: what a run started without them keeps, and what versions 1, 2 and 3 enforce. */
import { describe, expect, it } from 'vitest';
import { HOST_RULES, hostRules } from '../../../workflows/subtask/host-rules';

describe('hostRules', () => {
  it('enforces none of them for a run started before them, even with stop conditions in its task', () => {
    expect(hostRules(undefined, ['confidence >= 0.5', 'budget exhausted'])).toEqual({
      version: 0,
      stopConditions: [],
      haltOnBudget: undefined,
      explainBudgetHalt: false,
      budgetHaltIsPartial: false,
      repromptSummary: false,
      carryRuleState: false,
      bookCutSteps: false,
      cutInRootScope: false,
    });
  });

  it('jobs start subtasks with version 3: every rule on, the stop conditions parsed once', () => {
    expect(HOST_RULES).toBe(3);
    const r = hostRules(HOST_RULES, ['Confidence ≥ 0.8', 'budget is exhausted', 'cites two sources']);
    expect(r).toMatchObject({
      version: 3,
      bookCutSteps: true,
      cutInRootScope: true,
      explainBudgetHalt: true,
      budgetHaltIsPartial: true,
      repromptSummary: true,
      carryRuleState: true,
    });
    expect(r.stopConditions.map((c) => c.kind)).toEqual(['threshold', 'budget_exhausted', 'rubric']);
    expect(r.haltOnBudget).toEqual({ kind: 'budget_exhausted', text: 'budget is exhausted' });
    expect(hostRules(1, undefined)).toMatchObject({ stopConditions: [], haltOnBudget: undefined, bookCutSteps: false });
    // runs started under version 2 keep a scope per step: their histories replay as recorded
    expect(hostRules(2, undefined)).toMatchObject({ bookCutSteps: true, cutInRootScope: false });
  });

  it('keeps the conditions that parse from a TaskSpec the API did not check', () => {
    const r = hostRules(1, ['confidence >= 2', 'evidence > x', '', 'evidence >= 3']);
    expect(r.stopConditions).toEqual([{ kind: 'threshold', metric: 'evidence', op: '>=', value: 3, text: 'evidence >= 3' }]);
  });
});
