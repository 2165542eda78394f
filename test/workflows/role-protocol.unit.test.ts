import { describe, expect, it } from 'vitest';
import type { Role, TaskSpec } from '../../schemas';
import { MAX_FINDINGS } from '../../schemas/role-output';
import { dynamicTask, HOST_MAX_FINDINGS, judgeCall, judgeFinal, newProtocolState, type ProtocolRules } from '../../workflows/role-protocol';
import { applyModelUpdate, lowestCap } from '../../core/role-limits';

const rules: ProtocolRules = { requiredSkills: ['checklist', 'style'], tools: ['search'] };
let n = 0;
const call = (name: string, args: object = {}) => ({ id: `c${++n}`, name, arguments: JSON.stringify(args) });

describe('bootstrap protocol ordering', () => {
  it('accepts bootstrap, every skill, then a role tool and the final output', () => {
    const s = newProtocolState();
    expect(judgeCall(s, call('delegation_bootstrap'), rules)).toEqual({ kind: 'bootstrap' });
    expect(judgeCall(s, call('load_skill', { skill: 'checklist' }), rules)).toEqual({ kind: 'skill', skill: 'checklist' });
    expect(judgeCall(s, call('load_skill', { skill: 'style' }), rules)).toEqual({ kind: 'skill', skill: 'style' });
    expect(judgeCall(s, call('search', { query: 'q' }), rules)).toEqual({ kind: 'run' });
    expect(judgeFinal(s, rules)).toBeNull();
    expect(s).toEqual({ bootstrapped: true, loaded: ['checklist', 'style'], errors: [] });
  });

  it('answers a second bootstrap with a tool error and records it', () => {
    const s = newProtocolState();
    judgeCall(s, call('delegation_bootstrap'), rules);
    expect(judgeCall(s, call('delegation_bootstrap'), rules)).toMatchObject({
      kind: 'error',
      message: expect.stringMatching(/exactly once/),
    });
    expect(s.errors).toEqual([expect.stringMatching(/^delegation_bootstrap: .*already called/)]);
  });

  it('refuses a skill before bootstrap, and a role tool or output before every skill', () => {
    const s = newProtocolState();
    expect(judgeCall(s, call('load_skill', { skill: 'style' }), rules).kind).toBe('error');
    expect(judgeCall(s, call('search'), rules)).toMatchObject({ kind: 'error', message: expect.stringMatching(/delegation_bootstrap/) });
    judgeCall(s, call('delegation_bootstrap'), rules);
    judgeCall(s, call('load_skill', { skill: 'checklist' }), rules);
    expect(judgeCall(s, call('search'), rules)).toMatchObject({ kind: 'error', message: expect.stringMatching(/load_skill style/) });
    expect(judgeFinal(s, rules)).toMatch(/before load_skill of style/);
    expect(s.errors).toHaveLength(4);
    expect(s.loaded).toEqual(['checklist']);
  });

  it('refuses a skill the task does not require, and denies a tool outside the role', () => {
    const s = newProtocolState();
    judgeCall(s, call('delegation_bootstrap'), rules);
    expect(judgeCall(s, call('load_skill', { skill: 'other' }), rules)).toMatchObject({
      kind: 'error',
      message: expect.stringMatching(/not a skill of this task/),
    });
    expect(judgeCall(s, call('load_skill', {}), rules).kind).toBe('error');
    expect(judgeCall(s, call('shell'), rules)).toMatchObject({ kind: 'denied' });
  });

  it('holds a final output before bootstrap to be early', () => {
    expect(judgeFinal(newProtocolState(), rules)).toMatch(/before delegation_bootstrap/);
  });
});

describe('the dynamic task', () => {
  const role = {
    id: 'review',
    persona: 'p',
    agent: 'a',
    requiredSkills: ['checklist'],
    tools: [],
    outputKinds: { code_review: ['review'], scan: ['report', 'answer'] },
    maxOutputTokens: 100,
    maxDepth: 1,
  } as Role;
  const task = {
    id: 't',
    question: 'Is it safe?',
    role: 'review',
    taskType: 'scan',
    constraints: ['be brief'],
    completionCriteria: ['two risks named'],
  } as TaskSpec;

  it('carries the task, its allowed kinds and skills, and the findings limit as the last host constraint', () => {
    const d = dynamicTask(task, role);
    expect(d).toMatchObject({
      taskType: 'scan',
      question: 'Is it safe?',
      allowedOutputKinds: ['report', 'answer'],
      requiredSkills: ['checklist'],
      constraints: ['be brief'],
      completionCriteria: ['two risks named'],
    });
    expect(Object.keys(d).at(-1)).toBe('hostConstraints');
    expect(d.hostConstraints.at(-1)).toBe(`reports and reviews carry at most ${HOST_MAX_FINDINGS} findings`);
  });

  it("hands on the seed and a pipeline's previous stage, slim", () => {
    const d = dynamicTask({ ...task, contextSeed: [{ id: 'e1', source: 'web', snippet: 'known', score: 0.4 }] } as TaskSpec, role, {
      id: 'lit',
      summary: 'three papers',
      data: { n: 3 },
      evidence: [],
    });
    expect(d).toMatchObject({
      contextSeed: [{ id: 'e1', snippet: 'known' }],
      previous: { id: 'lit', summary: 'three papers', data: { n: 3 } },
    });
    expect(d.contextSeed![0]).not.toHaveProperty('score');
  });

  it('states the same limit as the output schema', () => {
    expect(HOST_MAX_FINDINGS).toBe(MAX_FINDINGS);
  });
});

describe('routing limits', () => {
  it('takes the lowest cap that is set', () => {
    expect(lowestCap(16_384, 1000)).toBe(1000);
    expect(lowestCap(300, 100_000)).toBe(300);
    expect(lowestCap(undefined, 50)).toBe(50);
    expect(lowestCap()).toBeUndefined();
  });

  it('keeps what an update leaves out', () => {
    expect(applyModelUpdate({ model: 'a', maxOutputTokens: 10 }, { model: 'b' })).toEqual({ model: 'b', maxOutputTokens: 10 });
    expect(applyModelUpdate({}, { maxOutputTokens: 5 })).toEqual({ maxOutputTokens: 5 });
  });
});
