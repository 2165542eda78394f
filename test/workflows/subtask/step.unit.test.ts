/** One step on the state: the input it sends, and what its output, failure, cut or cancel does. */
import { describe, expect, it } from 'vitest';
import { applyOutcome, applyStepOutput, stepInput, type StepContext, type StepFailure } from '../../../workflows/subtask/step';
import { MAX_EVIDENCE_BYTES } from '../../../workflows/subtask/state';
import { ev, output, running, T0, usage } from './fixtures';

const ctx: StepContext = { workflowId: 'job/x/t1', task: { id: 't1', question: 'q' }, maxAttempts: 3 };
const fctx = { pastDeadline: false, queue: 'lane-a', scheduleToStartSeconds: 60 };
const failed = (over: Partial<StepFailure> = {}) => ({
  kind: 'failed' as const,
  failure: { reason: 'agent_error' as const, attempts: 3, message: 'boom', ...over },
});

describe('stepInput', () => {
  it('sends the budget left, the agent state and a step key per step, re-prompt and agent', () => {
    const s = running({ allocation: { tokens: 100, latencySeconds: 60 } });
    s.ledger.spent.tokens = 40;
    s.agentState = { page: 2 };
    s.steps = 3;
    expect(stepInput(s, ctx, T0 + 10_000)).toEqual({
      agentId: 'agent-a',
      task: ctx.task,
      step: 3,
      state: { page: 2 },
      budgetLeft: { tokens: 60, latencySeconds: 50 },
      reprompt: undefined,
      stepKey: 'job/x/t1#3',
      previous: undefined,
      maxAttempts: 3,
    });
    s.reprompt = 'again';
    expect(stepInput(s, ctx, T0).stepKey).toBe('job/x/t1#3:reprompt');
    // a fallback agent's steps have keys of their own
    s.agentsTried.push({ agent: 'agent-0', outcome: 'failure' });
    expect(stepInput(s, ctx, T0).stepKey).toBe('job/x/t1#3:reprompt@agent-a');
  });

  it("passes the job's model and cap, or a role's fields instead", () => {
    const s = running();
    expect(stepInput(s, { ...ctx, model: 'm1', maxOutputTokens: 500 }, T0)).toMatchObject({ model: 'm1', maxOutputTokens: 500 });
    const role = stepInput(s, { ...ctx, model: 'm1', maxOutputTokens: 500, role: { maxOutputTokens: 200 } }, T0);
    expect(role.maxOutputTokens).toBe(200);
    expect(role.model).toBeUndefined();
  });
});

describe('applyStepOutput', () => {
  it('books the spend and merges evidence (no duplicates), citations, follow-ups and channels', () => {
    const s = running({ allocation: { costUsd: 1 } });
    applyStepOutput(
      s,
      output({
        usage: usage({ costUsd: 0.1 }),
        evidence: [ev('a'), ev('b', { url: 'https://b' })],
        citations: ['https://b'],
        followUps: ['f1'],
        channelsHit: ['web'],
        summary: 'first',
        data: { x: 1 },
        confidence: 0.4,
        state: { n: 1 },
        attempt: 2,
      }),
    );
    applyStepOutput(
      s,
      output({
        usage: usage({ costUsd: 0.2 }),
        evidence: [ev('a'), ev('c', { url: 'https://b' }), ev('d')],
        citations: ['https://b'],
        channelsHit: ['web', 'news'],
        summary: '',
        confidence: 0.9,
        done: true,
        schemaValid: true,
      }),
    );
    expect(s.ledger.spent.costUsd).toBeCloseTo(0.3, 9);
    expect(s.evidence.map((e) => e.id)).toEqual(['a', 'b', 'd']);
    expect(s.citations).toEqual(['https://b', 'https://b']);
    expect(s.followUps).toEqual(['f1']);
    expect([...s.channels]).toEqual(['web', 'news']);
    // an empty summary and absent data keep the last answer; confidence and state are the latest
    expect(s).toMatchObject({
      summary: 'first',
      data: { x: 1 },
      confidence: 0.9,
      agentState: undefined,
      done: true,
      schemaValid: true,
      steps: 2,
      attempts: 3,
    });
  });

  it('clears the re-prompt and caps evidence by bytes, saying so', () => {
    const s = running();
    s.reprompt = 'Your previous output was rejected';
    const big = Array.from({ length: 600 }, (_, i) => ev(`e${i}`, { snippet: 'x'.repeat(1000) }));
    applyStepOutput(s, output({ evidence: big }));
    expect(s.reprompt).toBeUndefined();
    expect(s.evidence.length).toBeLessThan(600);
    expect(JSON.stringify(s.evidence).length).toBeLessThanOrEqual(MAX_EVIDENCE_BYTES);
    expect(s.errors).toEqual([`evidence capped at ${s.evidence.length} of 600 items (${MAX_EVIDENCE_BYTES} bytes)`]);
  });
});

describe('applyOutcome', () => {
  it('a cancelled step halts as cancelled; a step cut by the latency budget is lost and said', () => {
    const c = running();
    expect(applyOutcome(c, { kind: 'cancel' }, fctx)).toEqual({ kind: 'halt' });
    expect([c.reason, c.attempts]).toEqual(['cancelled', 1]);
    const l = running({ allocation: { latencySeconds: 5 } });
    expect(applyOutcome(l, { kind: 'latency' }, fctx)).toEqual({ kind: 'again' });
    expect([l.reason, l.steps, l.attempts, l.errors]).toEqual([null, 0, 1, ['latency budget of 5s ran out during step 0']]);
  });

  it('a failed step books its attempts and spend, and ends the agent with its reason', () => {
    const s = running();
    const f = failed({ usage: usage({ tokens: 7 }) });
    expect(applyOutcome(s, f, fctx)).toEqual({ kind: 'failed', failure: f.failure });
    expect([s.attempts, s.ledger.spent.tokens, s.errors, s.reason]).toEqual([3, 7, ['boom'], null]);
  });

  it("words a timeout at the job's deadline and a step no worker started", () => {
    const s = running();
    applyOutcome(s, failed({ reason: 'timeout' }), { ...fctx, pastDeadline: true });
    applyOutcome(s, failed({ reason: 'timeout', message: 'step timed out: x' }), fctx);
    applyOutcome(s, failed({ reason: 'agent_unavailable', attempts: 1 }), fctx);
    expect(s.errors[0]).toBe('the job reached its maximum duration during step 0');
    expect(s.errors[1]).toBe('step timed out: x');
    expect(s.errors[2]).toMatch(/^no worker started the step within 60s on task queue "lane-a"/);
  });

  it('re-prompts an invalid output once, then fails with invalid_output; not when the agent said it would not help', () => {
    const s = running();
    const first = applyOutcome(s, failed({ reason: 'invalid_output', message: 'data/x must be number', attempts: 1 }), fctx);
    expect(first).toEqual({ kind: 'again', reprompted: { error: 'data/x must be number', why: 're-prompt after invalid output' } });
    expect(s.reprompt).toBe(
      'Your previous output was rejected: data/x must be number. Answer again so that data satisfies the output schema.',
    );
    expect(applyOutcome(s, failed({ reason: 'invalid_output', attempts: 1 }), fctx).kind).toBe('failed');
    const n = running();
    expect(applyOutcome(n, failed({ reason: 'invalid_output', noReprompt: true }), fctx).kind).toBe('failed');
    expect(n.reprompt).toBeUndefined();
  });

  it('an output that answers the re-prompt moves the error it fixed from errors to notes; a failed re-prompt keeps it', () => {
    const s = running();
    s.errors.push('an earlier error');
    applyOutcome(s, failed({ reason: 'invalid_output', message: 'data/x must be number', attempts: 1 }), fctx);
    expect(s.errors).toEqual(['an earlier error', 'data/x must be number']);
    applyStepOutput(s, output({ done: true }));
    expect([s.errors, s.notes, s.reprompt]).toEqual([['an earlier error'], ['re-prompted after: data/x must be number'], undefined]);
    const f = running();
    applyOutcome(f, failed({ reason: 'invalid_output', message: 'data/x must be number', attempts: 1 }), fctx);
    expect(applyOutcome(f, failed({ reason: 'invalid_output', message: 'data/x must be number', attempts: 1 }), fctx).kind).toBe('failed');
    expect([f.errors, f.notes]).toEqual([['data/x must be number', 'data/x must be number'], []]);
  });

  it('keeps the first answer when its summary re-prompt fails or is cut', () => {
    for (const o of [failed({ attempts: 2 }), { kind: 'latency' as const }]) {
      const s = running();
      s.summary = 'The answer.';
      s.awaitingSummary = true;
      expect(applyOutcome(s, o, fctx)).toEqual({ kind: 'again' });
      expect(s).toMatchObject({
        done: true,
        reason: null,
        summary: 'The answer.',
        notes: ['the summary re-prompt did not complete: the first answer is kept'],
      });
    }
  });

  it('applies a completed step', () => {
    const s = running();
    s.reprompt = 'Summary: write 3 to 6 sentences.';
    s.awaitingSummary = true;
    const out = output({ done: true, summary: 'ok' });
    expect(applyOutcome(s, { kind: 'ok', out }, fctx)).toEqual({ kind: 'ok', out });
    expect(s).toMatchObject({ steps: 1, done: true, summary: 'ok', reprompt: undefined, awaitingSummary: false });
  });
});
