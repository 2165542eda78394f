import { describe, expect, it } from 'vitest';
import { evaluateStopConditions, parseStopCondition, parseStopConditions, rubrics, type StopState } from '../../core/stop-conditions';

const state = (s: Partial<StopState> = {}): StopState => ({
  steps: 1,
  confidence: 0,
  evidence: 0,
  schemaValid: null,
  exhaustedAxes: [],
  ...s,
});

describe('stop conditions: parsing', () => {
  it('reads the machine-checkable forms whatever the spacing and case', () => {
    expect(parseStopCondition('budget exhausted')).toEqual({ kind: 'budget_exhausted', text: 'budget exhausted' });
    expect(parseStopCondition('  Budget_Exhausted ')).toMatchObject({ kind: 'budget_exhausted' });
    expect(parseStopCondition('budget is exhausted')).toMatchObject({ kind: 'budget_exhausted' });
    expect(parseStopCondition('answer matches schema')).toMatchObject({ kind: 'schema_match' });
    expect(parseStopCondition('Answer matches the output schema')).toMatchObject({ kind: 'schema_match' });
    expect(parseStopCondition('confidence>=0.8')).toEqual({
      kind: 'threshold',
      metric: 'confidence',
      op: '>=',
      value: 0.8,
      text: 'confidence>=0.8',
    });
    expect(parseStopCondition('evidence   >=   5')).toMatchObject({ metric: 'evidence', op: '>=', value: 5 });
    expect(parseStopCondition('CONFIDENCE > .5')).toMatchObject({ metric: 'confidence', op: '>', value: 0.5 });
  });

  it('reads every operator, = as == and the unicode ones', () => {
    const ops = ['>=', '>', '<=', '<', '==', '=', '≥', '≤'].map((op) => (parseStopCondition(`evidence ${op} 3`) as { op: string }).op);
    expect(ops).toEqual(['>=', '>', '<=', '<', '==', '==', '>=', '<=']);
  });

  it('refuses malformed thresholds instead of sending them to a judge', () => {
    for (const bad of [
      'confidence => 0.8',
      'confidence >= 1.5',
      'confidence != 0.5',
      'evidence >= 2.5',
      'evidence >= five',
      'confidence >= -1',
      'evidence >=',
    ]) {
      expect(parseStopCondition(bad), bad).toHaveProperty('error');
    }
    expect(parseStopCondition('   ')).toEqual({ error: 'an empty stop condition' });
  });

  it('keeps free text as rubrics, also text that mentions a metric in words', () => {
    for (const text of [
      'answer rubrics satisfied',
      'confidence is high',
      'evidence from two independent sources',
      'budget nearly exhausted',
    ]) {
      expect(parseStopCondition(text)).toEqual({ kind: 'rubric', text });
    }
  });

  it('parses a list with issues by index and lists its rubrics', () => {
    const { conditions, issues } = parseStopConditions(['evidence >= 5', 'confidence => 1', 'two sources agree']);
    expect(issues).toEqual([{ index: 1, message: expect.stringMatching(/not a threshold/) }]);
    expect(rubrics(conditions)).toEqual(['two sources agree']);
  });
});

describe('stop conditions: evaluation', () => {
  const { conditions } = parseStopConditions([
    'evidence >= 5',
    'confidence > 0.8',
    'answer matches schema',
    'budget exhausted',
    'two sources agree',
  ]);

  it('goes on while nothing holds', () => {
    expect(evaluateStopConditions(conditions, state({ evidence: 4, confidence: 0.8, schemaValid: false }))).toBeNull();
  });

  it("names the first condition in the task's order that holds", () => {
    expect(evaluateStopConditions(conditions, state({ evidence: 5 }))).toMatchObject({ index: 0, condition: { text: 'evidence >= 5' } });
    expect(evaluateStopConditions(conditions, state({ confidence: 0.81, evidence: 9 }))?.index).toBe(0);
    expect(evaluateStopConditions(conditions, state({ confidence: 0.81 }))?.index).toBe(1);
    expect(evaluateStopConditions(conditions, state({ schemaValid: true }))?.index).toBe(2);
    expect(evaluateStopConditions(conditions, state({ exhaustedAxes: ['costUsd'] }))?.index).toBe(3);
    expect(evaluateStopConditions(conditions, state({ rubricVerdicts: { 'two sources agree': true } }))?.index).toBe(4);
    expect(evaluateStopConditions(conditions, state({ rubricVerdicts: { 'two sources agree': false } }))).toBeNull();
  });

  it('checks results only after the first step; a spent budget holds before it', () => {
    const { conditions: low } = parseStopConditions(['evidence <= 3', 'confidence == 0']);
    expect(evaluateStopConditions(low, state({ steps: 0 }))).toBeNull();
    expect(evaluateStopConditions(low, state({ steps: 1 }))?.index).toBe(0);
    expect(evaluateStopConditions(conditions, state({ steps: 0, exhaustedAxes: ['latencySeconds'], evidence: 9 }))?.index).toBe(3);
  });

  it('compares exactly at the boundary', () => {
    const at = (text: string, s: Partial<StopState>) => evaluateStopConditions(parseStopConditions([text]).conditions, state(s)) !== null;
    expect([
      at('confidence >= 0.8', { confidence: 0.8 }),
      at('confidence > 0.8', { confidence: 0.8 }),
      at('confidence < 0.8', { confidence: 0.8 }),
    ]).toEqual([true, false, false]);
    expect([at('evidence == 5', { evidence: 5 }), at('evidence == 5', { evidence: 6 }), at('evidence <= 5', { evidence: 5 })]).toEqual([
      true,
      false,
      true,
    ]);
  });
});
