/** Stop conditions after a step: thresholds, schema match, budget exhausted, and rubrics for the judge. */
import { describe, expect, it } from 'vitest';
import { hostRules } from '../../../workflows/subtask/host-rules';
import { applyStopHit, applyVerdict, checkStops, judgeFailed, judgeInput, NO_JUDGE_NOTE } from '../../../workflows/subtask/stops';
import { ev, running, T0, task, usage } from './fixtures';

const stepped = (conditions: string[], over: { confidence?: number; seed?: ReturnType<typeof ev>[]; allocation?: object } = {}) => {
  const t = task({ stopConditions: conditions, contextSeed: over.seed });
  const s = running({ task: t, allocation: over.allocation ?? {} });
  s.steps = 1;
  s.confidence = over.confidence ?? 0.5;
  return { s, t, rules: hostRules(1, conditions) };
};

describe('checkStops', () => {
  it('holds a confidence threshold after a step, in the order the task lists them', () => {
    const { s, t, rules } = stepped(['evidence >= 3', 'confidence >= 0.8'], { confidence: 0.9 });
    expect(checkStops(s, t, rules, T0)).toEqual({
      kind: 'hit',
      hit: { index: 1, condition: expect.objectContaining({ text: 'confidence >= 0.8' }) },
    });
    s.confidence = 0.7;
    expect(checkStops(s, t, rules, T0)).toEqual({ kind: 'none' });
  });

  it('counts evidence without what the seed already had', () => {
    const seed = [ev('s1', { url: 'https://s1' })];
    const { s, t, rules } = stepped(['evidence >= 2'], { seed });
    s.evidence = [ev('x', { url: 'https://s1' }), ev('y')];
    expect(checkStops(s, t, rules, T0).kind).toBe('none');
    s.evidence.push(ev('z'));
    expect(checkStops(s, t, rules, T0).kind).toBe('hit');
  });

  it('holds a schema match only on a valid answer, and none before the first step', () => {
    const { s, t, rules } = stepped(['output matches schema']);
    s.schemaValid = false;
    expect(checkStops(s, t, rules, T0).kind).toBe('none');
    s.schemaValid = true;
    expect(checkStops(s, t, rules, T0).kind).toBe('hit');
    s.steps = 0;
    expect(checkStops(s, t, rules, T0).kind).toBe('none');
  });

  it('checks nothing when the agent is done, or under host rules 0', () => {
    const { s, t, rules } = stepped(['confidence >= 0.1']);
    expect(checkStops(s, t, hostRules(undefined, ['confidence >= 0.1']), T0).kind).toBe('none');
    s.done = true;
    expect(checkStops(s, t, rules, T0).kind).toBe('none');
  });

  it('hands rubrics to the judge only when nothing else holds and no axis is spent', () => {
    const { s, t, rules } = stepped(['confidence >= 0.9', 'cites two peer-reviewed sources'], { allocation: { tokens: 10 } });
    expect(checkStops(s, t, rules, T0)).toMatchObject({
      kind: 'judge',
      rubrics: ['cites two peer-reviewed sources'],
      stop: { steps: 1, confidence: 0.5, exhaustedAxes: [] },
    });
    s.confidence = 0.95;
    expect(checkStops(s, t, rules, T0).kind).toBe('hit');
    s.confidence = 0.5;
    s.ledger.spent.tokens = 10;
    expect(checkStops(s, t, rules, T0).kind).toBe('none');
  });

  it('a `budget exhausted` condition halts with that reason; another ends the loop as done', () => {
    const b = stepped(['budget exhausted'], { allocation: { toolCalls: 1 } });
    b.s.ledger.spent.toolCalls = 1;
    const hit = checkStops(b.s, b.t, b.rules, T0);
    expect(hit.kind === 'hit' && applyStopHit(b.s, hit.hit)).toBe('halt');
    expect(b.s).toMatchObject({ reason: 'budget_exhausted', stoppedBy: 'budget exhausted' });
    const c = stepped(['confidence >= 0.5']);
    const ok = checkStops(c.s, c.t, c.rules, T0);
    expect(ok.kind === 'hit' && applyStopHit(c.s, ok.hit)).toBe('done');
    expect(c.s).toMatchObject({ reason: null, done: true, stoppedBy: 'confidence >= 0.5' });
  });
});

describe('the judge', () => {
  const rubric = 'cites two peer-reviewed sources';
  const judged = () => {
    const x = stepped([rubric], { allocation: { costUsd: 1 } });
    const check = checkStops(x.s, x.t, x.rules, T0);
    if (check.kind !== 'judge') throw new Error('expected a judge request');
    return { ...x, check };
  };

  it('reads the answer, the first 20 evidence items in short, the budget left and a step key', () => {
    const { s, t, check } = judged();
    s.summary = 'answer';
    s.evidence = Array.from({ length: 25 }, (_, i) => ev(`e${i}`, { snippet: 'y'.repeat(400), title: `t${i}` }));
    const input = judgeInput(s, t, check.rubrics, 'job/x/t1', T0);
    expect(input).toMatchObject({ taskId: 't1', rubrics: [rubric], summary: 'answer', budgetLeft: { costUsd: 1 }, stepKey: 'job/x/t1#1' });
    expect(input.evidence).toHaveLength(20);
    expect(input.evidence[0]).toEqual({ title: 't0', url: undefined, snippet: 'y'.repeat(300) });
  });

  it('books its spend and stops on a rubric that holds, noting the reason', () => {
    const { s, rules, check } = judged();
    const hit = applyVerdict(s, rules, check.stop, {
      judge: 'judge-llm',
      verdicts: { [rubric]: true },
      reasons: { [rubric]: 'two journals' },
      usage: usage({ costUsd: 0.02 }),
    });
    expect(hit?.condition.text).toBe(rubric);
    expect(s.ledger.spent.costUsd).toBe(0.02);
    expect(s.notes).toEqual([`judge judge-llm: "${rubric}" holds (two journals)`]);
    expect(
      applyVerdict(s, rules, check.stop, { judge: 'judge-llm', verdicts: { [rubric]: false }, reasons: {}, usage: usage() }),
    ).toBeNull();
  });

  it('notes once that no judge is configured, and a judge that failed', () => {
    const { s, rules, check } = judged();
    const none = { judge: null, verdicts: {}, reasons: {}, usage: usage() };
    expect(applyVerdict(s, rules, check.stop, none)).toBeNull();
    expect(applyVerdict(s, rules, check.stop, none)).toBeNull();
    expect(judgeFailed(s, 'judge timed out')).toBeNull();
    expect(s.notes).toEqual([NO_JUDGE_NOTE, 'judge failed after step 1: judge timed out']);
  });
});
