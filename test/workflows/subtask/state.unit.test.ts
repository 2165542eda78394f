/** The one state object: a fresh run, a continued one, and the carry as its projection. */
import { describe, expect, it } from 'vitest';
import { hostRules } from '../../../workflows/subtask/host-rules';
import { carryOf, newState, resolved } from '../../../workflows/subtask/state';
import { applyStepOutput } from '../../../workflows/subtask/step';
import { ev, manifest, output, running, T0, task, usage } from './fixtures';

describe('SubtaskState', () => {
  it('starts fresh with the allocation as its ledger and the task as its agent label', () => {
    const s = newState({ task: task({ agent: { capability: 'search' } }), allocation: { costUsd: 2 } }, T0);
    expect(s).toMatchObject({
      startedAt: T0,
      agentId: 'capability:search',
      phase: 'resolving',
      steps: 0,
      runs: 1,
      reason: null,
      done: false,
      fallbacks: [],
    });
    expect(s.ledger.limit).toEqual({ costUsd: 2 });
    expect(resolved(s, manifest(), { agent: 'agent-a', reason: 'named' })).toMatchObject({
      agentId: 'agent-a',
      phase: 'running',
      routing: { agent: 'agent-a', reason: 'named' },
    });
  });

  it('goes on in the next run exactly where it was: the carry restores every carried field', () => {
    const t = task({ stopConditions: ['confidence >= 0.9'] });
    const rules = hostRules(1, t.stopConditions);
    const s = running({ task: t, allocation: { tokens: 100 } });
    applyStepOutput(
      s,
      output({
        usage: usage({ tokens: 10 }),
        evidence: [ev('a')],
        citations: ['c'],
        followUps: ['f'],
        channelsHit: ['web'],
        summary: 'so far',
        state: { page: 2 },
        schemaValid: true,
      }),
    );
    s.notes.push('n');
    s.stoppedBy = undefined;
    s.reprompt = 'again';
    const carry = JSON.parse(JSON.stringify(carryOf(s, rules, t)));
    const next = resolved(newState({ task: t, allocation: { tokens: 1 }, carry }, T0 + 99_999), carry.manifest);
    const { stepsAtRunStart, runs, ...rest } = next;
    // the last step's spend is carried only for a task with a spend threshold (approval.aboveCostUsd)
    const hitl = { ...s.hitl, lastCostUsd: undefined };
    expect(rest).toEqual({ ...s, hitl, stepsAtRunStart: undefined, runs: undefined, ledger: s.ledger } as never);
    expect([stepsAtRunStart, runs, next.startedAt, next.ledger.limit]).toEqual([1, 2, T0, { tokens: 100 }]);
  });

  it('knows a carried summary re-prompt by its text: the carry holds the re-prompt alone, as runs before wrote it', () => {
    const s = running();
    s.reprompt = 'Summary: Your summary has 1 sentence; write 3 to 6 sentences on what was found.';
    s.awaitingSummary = true;
    const carry = JSON.parse(JSON.stringify(carryOf(s, hostRules(1, []), task())));
    expect(carry).not.toHaveProperty('awaitingSummary');
    expect(running({ carry }).awaitingSummary).toBe(true);
    expect(running({ carry: { ...carry, reprompt: 'Protocol error: x' } }).awaitingSummary).toBe(false);
  });

  it("carries the rules' state only under host rules 1, and fallbacks only when the task has some", () => {
    const s = running();
    s.notes.push('n');
    expect(carryOf(s, hostRules(undefined, []), task())).not.toHaveProperty('notes');
    expect(carryOf(s, hostRules(1, []), task())).toMatchObject({ notes: ['n'], summaryReprompted: false, schemaValid: null });
    expect(carryOf(s, hostRules(1, []), task())).not.toHaveProperty('fallbackAt');
    // fallbacks a capability inherited at run time are carried; the task's own are in its spec already
    const inherited = running();
    inherited.fallbacks = ['agent-b'];
    expect(carryOf(inherited, hostRules(1, []), task())).toMatchObject({
      fallbackAt: 0,
      agentsTried: [],
      agentStartStep: 0,
      fallbacks: ['agent-b'],
    });
    const own = running({ task: task({ fallback: ['agent-b'] }) });
    expect(carryOf(own, hostRules(1, []), task({ fallback: ['agent-b'] }))).not.toHaveProperty('fallbacks');
  });
});
