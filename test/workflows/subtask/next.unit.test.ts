/** The loop's order, case by case: what `next()` chooses after each turn, and what it did to the state on the way. */
import { describe, expect, it } from 'vitest';
import { HISTORY_EVENTS_HARD, HISTORY_EVENTS_PER_RUN } from '../../../core/engine-limits';
import type { TaskSpec } from '../../../schemas';
import { hostRules } from '../../../workflows/subtask/host-rules';
import type { PendingItem } from '../../../workflows/subtask/inbox';
import { BEGIN, next, type Action, type LoopContext, type Turn } from '../../../workflows/subtask/next';
import type { RunningState } from '../../../workflows/subtask/state';
import type { StepOutcome } from '../../../workflows/subtask/step';
import { manifest, output, running, T0, task as taskOf } from './fixtures';

/** The context of a run of `task` under host rules 3 (its stop conditions parsed), at T0 with a short history. */
function context(
  over: { task?: TaskSpec; role?: boolean; historyLength?: number; stepsPerRun?: number; deadline?: number } = {},
): LoopContext {
  const task = over.task ?? taskOf();
  return {
    task,
    rules: hostRules(3, task.stopConditions),
    deadline: over.deadline,
    stepsPerRun: over.stepsPerRun,
    role: over.role ?? false,
    now: () => T0,
    history: () => ({ historyLength: over.historyLength ?? 10, historySize: 1000, continueAsNewSuggested: false }),
  };
}

const where = { pastDeadline: false, queue: 'q' };
const stepped = (outcome: StepOutcome): Turn => ({ kind: 'stepped', outcome, where });
const ok = (over: Parameters<typeof output>[0] = {}) => stepped({ kind: 'ok', out: output(over) });
const failed = (over: Partial<{ reason: 'agent_error' | 'invalid_output' | 'timeout'; attempts: number; approvalTools: string[] }> = {}) =>
  stepped({ kind: 'failed', failure: { reason: 'agent_error', attempts: 3, message: 'boom', ...over } });
const RUN: Action = { kind: 'runStep' };
const FINISH: Action = { kind: 'finish' };
/** The item the loop asked for, as the wait hands it back (decided or not: `s.hitl.decision`). */
const item = (over: Partial<PendingItem> = {}): PendingItem => ({
  id: 'i1',
  kind: 'approval',
  reason: 'before_start',
  detail: {},
  onTimeout: 'fail',
  expiresAt: T0 + 1000,
  ...over,
});
const decide = (s: RunningState, state: 'approved' | 'rejected' | 'answered', answer?: unknown) => {
  s.hitl.decision = { id: 'i1', state, by: 'ann', at: T0, ...(answer !== undefined ? { answer } : {}) };
};

describe('next: the checks before a step', () => {
  it('runs a step when nothing is in the way', () => {
    const s = running();
    expect(next(s, BEGIN, context())).toEqual(RUN);
    expect(s.reason).toBeNull();
  });

  it('finishes once the agent is done, and on a cancel, a stop or the deadline with their reasons', () => {
    const done = running();
    done.done = true;
    expect(next(done, BEGIN, context())).toEqual(FINISH);
    expect(done.reason).toBeNull();
    const cancelled = running();
    cancelled.cancelRequested = true;
    expect([next(cancelled, BEGIN, context()), cancelled.reason]).toEqual([FINISH, 'cancelled']);
    const late = running();
    expect([next(late, BEGIN, context({ deadline: T0 })), late.reason]).toEqual([FINISH, 'timeout']);
  });

  it('waits for a top-up on a spent budget only with budgetWaitSeconds, no `budget exhausted` condition and no role', () => {
    const spent = (t: TaskSpec) => {
      const s = running({ task: t, allocation: { tokens: 10 } });
      s.ledger.spent.tokens = 10;
      return s;
    };
    const waits = taskOf({ budgetWaitSeconds: 60 });
    expect(next(spent(waits), BEGIN, context({ task: waits }))).toEqual({ kind: 'waitTopUp' });
    for (const [t, role] of [
      [taskOf(), false],
      [taskOf({ budgetWaitSeconds: 60, stopConditions: ['budget exhausted'] }), false],
      [waits, true],
    ] as const) {
      const s = spent(t);
      expect(next(s, BEGIN, context({ task: t, role }))).toEqual(FINISH);
      expect(s.reason).toBe('budget_exhausted');
    }
  });

  it('after the wait for a top-up: a step when refilled (or the fallback when out of steps), else the budget halt', () => {
    const t = taskOf({ budgetWaitSeconds: 60 });
    expect(next(running({ task: t }), { kind: 'toppedUp', refilled: true }, context({ task: t }))).toEqual(RUN);
    const tired = running({ task: t, manifest: manifest({ limits: { timeoutSeconds: 30, maxSteps: 1 } }) });
    tired.steps = 1;
    expect(next(tired, { kind: 'toppedUp', refilled: true }, context({ task: t }))).toMatchObject({
      kind: 'switchAgent',
      why: 'agent_error',
    });
    const s = running({ task: t, allocation: { tokens: 10 } });
    s.ledger.spent.tokens = 10;
    expect(next(s, { kind: 'toppedUp', refilled: false }, context({ task: t }))).toEqual(FINISH);
    expect([s.reason, s.errors]).toEqual(['budget_exhausted', ['tokens budget spent before the first step']]);
  });

  it('hands an agent out of steps to the next fallback, and halts agent_error when none takes over', () => {
    const s = running({ manifest: manifest({ limits: { timeoutSeconds: 30, maxSteps: 2 } }) });
    s.steps = 2;
    expect(next(s, BEGIN, context())).toEqual({
      kind: 'switchAgent',
      why: 'agent_error',
      message: 'agent did not finish within its 2 steps',
      then: 'checks',
    });
    expect(next(s, { kind: 'switched', ok: false, why: 'agent_error', then: 'checks' }, context())).toEqual(FINISH);
    expect(s.reason).toBe('agent_error');
    const switched = running();
    expect(next(switched, { kind: 'switched', ok: true, why: 'agent_error', then: 'checks' }, context())).toEqual(RUN);
  });

  it('carries on in a fresh run when the history is full; a state too big to carry goes on here, or halts past the hard mark', () => {
    const s = running();
    expect(next(s, BEGIN, context({ historyLength: HISTORY_EVENTS_PER_RUN + 1 }))).toEqual({ kind: 'carry' });
    s.steps = 2;
    expect(next(s, BEGIN, context({ stepsPerRun: 2 }))).toEqual({ kind: 'carry' });
    // back from a carry that could not be: the step runs, it does not carry again
    expect(next(s, { kind: 'carried', bytes: 3_000_000 }, context({ historyLength: HISTORY_EVENTS_PER_RUN + 1 }))).toEqual(RUN);
    expect(next(s, { kind: 'carried', bytes: 3_000_000 }, context({ historyLength: HISTORY_EVENTS_HARD + 1 }))).toEqual(FINISH);
    expect(s.reason).toBe('agent_error');
  });

  it('asks for approval before the first step and a costly one, after the history check', () => {
    const t = taskOf({ approval: { beforeStart: true, aboveCostUsd: 0.5, timeoutSeconds: 60, onTimeout: 'fail' } });
    const s = running({ task: t });
    expect(next(s, BEGIN, context({ task: t }))).toEqual({
      kind: 'askHuman',
      item: { kind: 'approval', reason: 'before_start', detail: { agentId: 'agent-a' } },
      then: 'checks',
    });
    expect(next(s, BEGIN, context({ task: t, historyLength: HISTORY_EVENTS_PER_RUN + 1 }))).toEqual({ kind: 'carry' });
    s.hitl.approvedStart = true;
    s.hitl.lastCostUsd = 0.9;
    expect(next(s, BEGIN, context({ task: t }))).toMatchObject({ kind: 'askHuman', item: { reason: 'spend' } });
  });
});

describe('next: after a wait for a human', () => {
  const asked = (i: PendingItem, then: 'checks' | 'answer' = 'checks'): Turn => ({ kind: 'asked', item: i, then });

  it('runs the step an approval held; a rejection halts', () => {
    const s = running();
    decide(s, 'approved');
    expect(next(s, asked(item()), context())).toEqual(RUN);
    expect(s.hitl.approvedStart).toBe(true);
    const no = running();
    decide(no, 'rejected');
    expect([next(no, asked(item()), context()), no.reason]).toEqual([FINISH, 'rejected']);
  });

  it('on a timeout: fails, skips, or falls back (with the approval waived and the timeout as the message)', () => {
    const fail = running();
    expect([next(fail, asked(item()), context()), fail.reason]).toEqual([FINISH, 'timeout']);
    const skip = running();
    expect([next(skip, asked(item({ onTimeout: 'skip' })), context()), skip.reason]).toEqual([FINISH, 'skipped']);
    const fb = running();
    expect(next(fb, asked(item({ onTimeout: 'fallback' })), context())).toEqual({
      kind: 'switchAgent',
      why: 'timeout',
      message: 'approval (before_start) i1 was not decided in time (onTimeout: fallback)',
      then: 'checks',
    });
    expect(fb.hitl.approvedStart).toBe(true);
    expect(next(fb, { kind: 'switched', ok: false, why: 'timeout', then: 'checks' }, context())).toEqual(FINISH);
    expect(fb.reason).toBe('timeout');
  });

  it('a stop during the wait: the checks halt with it', () => {
    const s = running();
    s.stopRequested = true;
    expect([next(s, asked(item()), context()), s.reason]).toEqual([FINISH, 'stopped']);
  });

  it("hands a role's answered request back in the re-prompt, also after a fallback took over", () => {
    const q = item({ kind: 'question', reason: 'question', question: 'which year?' });
    const s = running();
    decide(s, 'answered', 2024);
    expect(next(s, asked(q, 'answer'), context())).toEqual(RUN);
    expect(s.reprompt).toMatch(/^The parent answered your request for more information \("which year\?"\): 2024\./);
    const fb = running();
    fb.hitl.answer = { question: 'which year?', answer: 2023, by: 'ann' };
    expect(next(fb, { kind: 'switched', ok: true, why: 'timeout', then: 'answer' }, context())).toEqual(RUN);
    expect(fb.reprompt).toMatch(/: 2023\./);
  });
});

describe('next: after a step', () => {
  it('goes on to the next step, or finishes when the agent is done', () => {
    const s = running();
    expect(next(s, ok(), context())).toEqual(RUN);
    expect(s.steps).toBe(1);
    expect(next(s, ok({ done: true, summary: 'found' }), context())).toEqual(FINISH);
    expect([s.reason, s.summary]).toEqual([null, 'found']);
  });

  it('hands a final failure to the next fallback; a cancel finishes', () => {
    const s = running();
    expect(next(s, failed({ reason: 'timeout' }), context())).toEqual({
      kind: 'switchAgent',
      why: 'timeout',
      message: 'boom',
      then: 'checks',
    });
    const c = running();
    expect([next(c, stepped({ kind: 'cancel' }), context()), c.reason]).toEqual([FINISH, 'cancelled']);
  });

  it('re-prompts an invalid output once, with its RETRY line on the next action', () => {
    const s = running();
    expect(next(s, failed({ reason: 'invalid_output', attempts: 1 }), context())).toEqual({
      kind: 'runStep',
      retry: { error: 'boom', why: 're-prompt after invalid output' },
    });
    expect(next(s, failed({ reason: 'invalid_output', attempts: 1 }), context())).toMatchObject({
      kind: 'switchAgent',
      why: 'invalid_output',
    });
  });

  it('asks for the approval of the tools a step was refused for, booking its attempts', () => {
    const s = running();
    expect(next(s, failed({ attempts: 1, approvalTools: ['shell'] }), context())).toEqual({
      kind: 'askHuman',
      item: { kind: 'approval', reason: 'tool', detail: { agentId: 'agent-a', step: 0, tools: ['shell'] } },
      then: 'checks',
    });
    expect([s.attempts, s.errors]).toEqual([1, []]);
  });

  it("asks the agent's question before anything else, a role's too", () => {
    const s = running();
    const ask = { question: 'which year?' };
    for (const role of [false, true])
      expect(next(s, ok({ ask }), context({ role }))).toMatchObject({
        kind: 'askHuman',
        item: { kind: 'question', question: 'which year?' },
        then: 'checks',
      });
  });

  it("has a role's output reviewed, then goes on, re-prompts or halts as the host says", () => {
    const s = running();
    const out = output({ done: true, summary: 'the answer' });
    expect(next(s, { kind: 'stepped', outcome: { kind: 'ok', out }, where }, context({ role: true }))).toEqual({ kind: 'reviewRole', out });
    expect(next(s, { kind: 'reviewed', next: { kind: 'go' }, out }, context({ role: true }))).toEqual(FINISH);
    const again = running();
    expect(
      next(again, { kind: 'reviewed', next: { kind: 'reprompt', message: 'Protocol error: x' }, out }, context({ role: true })),
    ).toEqual({
      kind: 'runStep',
      retry: { error: 'Protocol error: x', why: 're-prompt after a protocol error' },
    });
    const denied = running();
    const fail = { kind: 'fail' as const, reason: 'tool_denied' as const, message: 'no' };
    expect([next(denied, { kind: 'reviewed', next: fail, out }, context({ role: true })), denied.reason]).toEqual([FINISH, 'tool_denied']);
  });

  it("turns a role's need-more-information into a question (allowQuestions) whose answer goes back to it", () => {
    const t = taskOf({ allowQuestions: true });
    const s = running({ task: t });
    const out = output({ done: true, data: { result: { decision: 'need_more_information', reason: 'which year?' } } });
    expect(next(s, { kind: 'reviewed', next: { kind: 'go' }, out }, context({ task: t, role: true }))).toMatchObject({
      kind: 'askHuman',
      item: { kind: 'question', question: 'which year?' },
      then: 'answer',
    });
  });

  it('re-prompts a research summary of one sentence once; a failed answer to it keeps the first', () => {
    const t = taskOf({ research: { parentId: null } });
    const s = running({ task: t });
    expect(next(s, ok({ done: true, summary: 'Only one.' }), context({ task: t }))).toMatchObject({
      kind: 'runStep',
      retry: { why: 're-prompt for a 3–6 sentence summary' },
    });
    expect([s.done, s.awaitingSummary]).toEqual([false, true]);
    expect(next(s, failed(), context({ task: t }))).toEqual(FINISH);
    expect([s.reason, s.summary, s.notes.at(-1)]).toEqual([
      null,
      'Only one.',
      'the summary re-prompt did not complete: the first answer is kept',
    ]);
  });

  it('ends on a stop condition that holds, naming it; rubrics go to the judge', () => {
    const t = taskOf({ stopConditions: ['confidence >= 0.8'] });
    const s = running({ task: t });
    expect(next(s, ok({ confidence: 0.5 }), context({ task: t }))).toEqual(RUN);
    expect(next(s, ok({ confidence: 0.9 }), context({ task: t }))).toEqual({ kind: 'finish', stop: 'confidence >= 0.8' });
    expect([s.reason, s.done, s.stoppedBy]).toEqual([null, true, 'confidence >= 0.8']);
    const r = taskOf({ stopConditions: ['cites two sources'] });
    expect(next(running({ task: r }), ok(), context({ task: r }))).toMatchObject({
      kind: 'judge',
      check: { rubrics: ['cites two sources'] },
    });
  });

  it('after the judge: its verdict ends the loop or not; a judge that failed is noted and the loop goes on', () => {
    const t = taskOf({ stopConditions: ['cites two sources'] });
    const check = {
      kind: 'judge' as const,
      stop: { steps: 1, confidence: 0.5, schemaValid: null, evidence: 0, exhaustedAxes: [] },
      rubrics: ['cites two sources'],
    };
    const s = running({ task: t });
    const verdict = (held: boolean) => ({ judge: 'judge-a', verdicts: { 'cites two sources': held }, reasons: {}, usage: output().usage });
    expect(next(s, { kind: 'judged', check, verdict: verdict(false) }, context({ task: t }))).toEqual(RUN);
    expect(next(s, { kind: 'judged', check, verdict: verdict(true) }, context({ task: t }))).toEqual({
      kind: 'finish',
      stop: 'cites two sources',
    });
    const f = running({ task: t });
    expect(next(f, { kind: 'judged', check, error: 'judge down' }, context({ task: t }))).toEqual(RUN);
    expect(f.notes).toEqual(['judge failed after step 0: judge down']);
  });
});
