import { describe, expect, it } from 'vitest';
import { ApprovalPolicySchema } from '../../../schemas';
import {
  afterBudgetWait,
  afterWait,
  approvalNeeded,
  applyDecision,
  delivered,
  forStep,
  openItem,
  queueMessage,
  questionOf,
  refusal,
  toolApproval,
  undelivered,
  waitRule,
  MAX_QUEUED_MESSAGES,
  needMoreInformation,
  resumeWithAnswer,
} from '../../../workflows/subtask/inbox';
import { applyStepOutput } from '../../../workflows/subtask/step';
import { carryOf, newState, resolved } from '../../../workflows/subtask/state';
import { HOST_RULES, hostRules } from '../../../workflows/subtask/host-rules';
import { outcomeOf } from '../../../workflows/subtask/result';
import { manifest, output, running, T0, task, usage } from './fixtures';

const policy = (p: object) => ApprovalPolicySchema.parse(p);
const decision = (id: string, state: 'approved' | 'rejected' | 'answered', over: object = {}) => ({
  id,
  state,
  by: 'key:acme',
  at: T0,
  ...over,
});
const rules = hostRules(HOST_RULES, []);

describe('approvalNeeded', () => {
  it('holds the first step of a task that needs approval before it starts, once', () => {
    const s = running();
    expect(approvalNeeded(s, policy({ beforeStart: true }))).toMatchObject({ kind: 'approval', reason: 'before_start' });
    const item = openItem(s, approvalNeeded(s, policy({ beforeStart: true }))!, 'ap1', T0 + 1000, 'fail');
    applyDecision(s, decision('ap1', 'approved'));
    expect(afterWait(s, item)).toBe('go');
    expect(approvalNeeded(s, policy({ beforeStart: true }))).toBeNull();
    expect(approvalNeeded(s, undefined)).toBeNull();
  });

  it("holds a step whose planned spend (the previous step's) passes the threshold, and lets it run once approved", () => {
    const s = running();
    const p = policy({ aboveCostUsd: 0.1 });
    expect(approvalNeeded(s, p)).toBeNull();
    applyStepOutput(s, output({ usage: usage({ costUsd: 0.05 }) }));
    expect(approvalNeeded(s, p)).toBeNull();
    applyStepOutput(s, output({ usage: usage({ costUsd: 0.5 }) }));
    const spec = approvalNeeded(s, p)!;
    expect(spec).toMatchObject({ reason: 'spend', detail: { step: 2, plannedCostUsd: 0.5, aboveCostUsd: 0.1 } });
    const item = openItem(s, spec, 'ap2', T0 + 1000, 'fail');
    applyDecision(s, decision('ap2', 'approved'));
    afterWait(s, item);
    expect(approvalNeeded(s, p)).toBeNull();
    applyStepOutput(s, output({ usage: usage({ costUsd: 0.5 }) }));
    expect(approvalNeeded(s, p)?.reason).toBe('spend');
  });

  it('an approved tool stays approved', () => {
    const s = running();
    const item = openItem(s, toolApproval(s, ['fetch']), 'ap3', T0 + 1000, 'fail');
    applyDecision(s, decision('ap3', 'approved'));
    afterWait(s, item);
    expect(s.hitl.approvedTools).toEqual(['fetch']);
  });
});

describe('refusal (the decide update validator)', () => {
  it('refuses a decision for no pending item, another item, a second decision, and the wrong kind', () => {
    const s = running();
    expect(refusal(s, decision('x', 'approved'))?.type).toBe('Conflict');
    openItem(s, questionOf(s, { question: 'Which year?' }), 'q1', T0 + 1000, 'fail');
    expect(s.phase).toBe('waiting_for_answer');
    expect(refusal(s, decision('other', 'answered'))?.message).toMatch(/not pending/);
    expect(refusal(s, decision('q1', 'approved'))?.message).toMatch(/takes an answer/);
    expect(refusal(s, decision('q1', 'answered', { answer: 1 }))).toBeNull();
    applyDecision(s, decision('q1', 'answered', { answer: 1 }));
    expect(refusal(s, decision('q1', 'answered', { answer: 2 }))?.message).toMatch(/not pending/);
  });

  it('an approval takes approve or reject; a budget wait only a rejection', () => {
    const s = running();
    openItem(s, toolApproval(s, ['fetch']), 'a', T0 + 1000, 'fail');
    expect(refusal(s, decision('a', 'answered'))?.message).toMatch(/approve or reject/);
    openItem(s, { kind: 'budget', reason: 'budget', detail: {} }, 'b', T0 + 1000, 'fail');
    expect(s.phase).toBe('waiting_for_budget');
    expect(refusal(s, decision('b', 'approved'))?.message).toMatch(/top-up/);
    expect(refusal(s, decision('b', 'rejected'))).toBeNull();
  });
});

describe('afterWait', () => {
  const waitOn = (onTimeout: 'fail' | 'skip' | 'fallback') => {
    const s = running();
    return { s, item: openItem(s, { kind: 'approval', reason: 'before_start', detail: {} }, 'w', T0 + 1000, onTimeout) };
  };

  it('a rejection halts as rejected, with who and why in the notes and errors', () => {
    const { s, item } = waitOn('fail');
    applyDecision(s, decision('w', 'rejected', { note: 'too dear' }));
    expect(afterWait(s, item)).toBe('halt');
    expect(s.reason).toBe('rejected');
    expect(s.notes.at(-1)).toBe('approval (before_start) w rejected by key:acme: too dear');
    expect(s.phase).toBe('running');
  });

  it('a timeout fails (timeout), skips (skipped: partial) or falls back, the approval waived for the fallback', () => {
    const fail = waitOn('fail');
    expect(afterWait(fail.s, fail.item)).toBe('halt');
    expect(fail.s.reason).toBe('timeout');
    const skip = waitOn('skip');
    expect(afterWait(skip.s, skip.item)).toBe('halt');
    expect(skip.s.reason).toBe('skipped');
    expect(outcomeOf(skip.s, rules)).toBe('partial');
    const fb = waitOn('fallback');
    expect(afterWait(fb.s, fb.item)).toBe('fallback');
    expect(fb.s.reason).toBeNull();
    expect(fb.s.hitl.approvedStart).toBe(true);
    expect(fb.s.errors.at(-1)).toMatch(/not decided in time \(onTimeout: fallback\)/);
  });

  it('a stop during the wait leaves the halt to the check before the next step', () => {
    const { s, item } = waitOn('fail');
    s.stopRequested = true;
    expect(afterWait(s, item)).toBe('go');
    expect(s.reason).toBeNull();
  });

  it("an answer goes to the next step's input, once", () => {
    const s = running();
    const item = openItem(s, questionOf(s, { question: 'Which year?' }), 'q', T0 + 1000, 'fail');
    applyDecision(s, decision('q', 'answered', { answer: { year: 2024 } }));
    expect(afterWait(s, item)).toBe('go');
    const given = forStep(s);
    expect(given.answer).toEqual({ question: 'Which year?', answer: { year: 2024 }, by: 'key:acme' });
    delivered(s, given, 1);
    expect(forStep(s)).toEqual({});
  });

  it('a budget wait goes on only when refilled and not rejected', () => {
    const s = running();
    openItem(s, { kind: 'budget', reason: 'budget', detail: {} }, 'b', T0 + 1000, 'fail');
    expect(afterBudgetWait(s, true)).toBe(true);
    openItem(s, { kind: 'budget', reason: 'budget', detail: {} }, 'b2', T0 + 1000, 'fail');
    applyDecision(s, decision('b2', 'rejected'));
    expect(afterBudgetWait(s, true)).toBe(false);
    expect(s.phase).toBe('running');
  });
});

describe('steering messages', () => {
  it('queue until a step completes with them; those that arrived meanwhile wait for the next', () => {
    const s = running();
    queueMessage(s, { text: 'focus on 2024', from: 'parent' });
    const given = forStep(s);
    queueMessage(s, { text: 'later one' });
    delivered(s, given, 3);
    expect(s.notes).toEqual(['message from parent received by step 3: focus on 2024']);
    expect(forStep(s).messages).toEqual([{ text: 'later one' }]);
    undelivered(s);
    expect(s.notes.at(-1)).toBe('message not delivered (the subtask ended): later one');
  });

  it('keep the newest MAX_QUEUED_MESSAGES and say one was dropped', () => {
    const s = running();
    for (let i = 0; i <= MAX_QUEUED_MESSAGES; i++) queueMessage(s, { text: `m${i}` });
    expect(s.hitl.messages).toHaveLength(MAX_QUEUED_MESSAGES);
    expect(s.hitl.messages[0].text).toBe('m1');
    expect(s.errors.at(-1)).toMatch(/oldest was dropped/);
  });
});

describe('the carry', () => {
  it('carries approvals given and an undelivered answer; nothing for a task without any', () => {
    const plain = running();
    expect(carryOf(plain, rules, task()).hitl).toBeUndefined();
    const s = running();
    s.hitl.approvedStart = true;
    s.hitl.approvedTools.push('fetch');
    s.hitl.answer = { question: 'q', answer: 1, by: 'token' };
    const carry = carryOf(s, rules, task());
    expect(carry.hitl).toEqual({ approvedStart: true, approvedTools: ['fetch'], answer: { question: 'q', answer: 1, by: 'token' } });
    const next = resolved(newState({ task: task(), allocation: {}, carry }, T0), manifest());
    expect(next.hitl).toMatchObject({ approvedStart: true, approvedTools: ['fetch'], answer: { answer: 1 }, opened: 0 });
  });
});

describe("a role's need-more-information", () => {
  it('becomes a question; the answer resumes the role through its re-prompt', () => {
    const data = { result: { decision: 'need_more_information', reason: 'Which region?' } };
    expect(needMoreInformation({ done: true, data })).toEqual({ question: 'Which region?' });
    expect(needMoreInformation({ done: false, data })).toBeNull();
    expect(needMoreInformation({ done: true, data: { result: { decision: 'decline' } } })).toBeNull();
    const s = running();
    s.done = true;
    const item = openItem(s, questionOf(s, { question: 'Which region?' }), 'q', T0 + 1000, 'fail');
    applyDecision(s, decision('q', 'answered', { answer: 'eu-west' }));
    afterWait(s, item);
    resumeWithAnswer(s);
    expect(s.done).toBe(false);
    expect(s.reprompt).toMatch(/answered your request for more information \("Which region\?"\): "eu-west"/);
  });
});

describe('waitRule', () => {
  it("the policy's timeout and outcome, else a day and fail", () => {
    expect(waitRule(undefined)).toEqual({ timeoutSeconds: 86_400, onTimeout: 'fail' });
    expect(waitRule(policy({ timeoutSeconds: 5, onTimeout: 'skip' }))).toEqual({ timeoutSeconds: 5, onTimeout: 'skip' });
  });
});
