/** A2A's input-required over the inbox, the pure half: what a reply answers, and where a refused field is in it. */
import type { Message, Part } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { answerOf, inMessage, inputOfEvent, promptOf, targetOf, type PendingInput } from '../../api/a2a/input';
import { Rejection } from '../../api/a2a/messages';
import type { JobEvent } from '../../schemas';
import { a2aMessage } from '../a2a-fixtures';

const part = (content: Part['content']): Part => ({ content, metadata: undefined, filename: '', mediaType: '' });
const text = (value: string) => part({ $case: 'text', value });
const data = (value: unknown) => part({ $case: 'data', value });
const msg = (...parts: Part[]): Message => a2aMessage('m', parts);
const question: PendingInput = {
  id: 'q1',
  kind: 'question',
  reason: 'question',
  taskId: 't',
  detail: { question: 'Which year?', answerSchema: { type: 'integer' } },
  expiresAt: '2030-01-01T00:00:00.000Z',
};
const approval: PendingInput = { ...question, id: 'a1', kind: 'approval', reason: 'before_start', detail: {} };
const refused = (run: () => unknown): Rejection => {
  try {
    run();
  } catch (err) {
    if (err instanceof Rejection) return err;
    throw err;
  }
  throw new Error('not refused');
};

describe('answerOf', () => {
  it("a question's answer is the data part, else the text", () => {
    expect(answerOf(msg(text('hm'), data({ year: 2024 })), question)).toEqual({
      decision: { answer: { year: 2024 } },
      at: { part: 1, kind: 'data' },
    });
    expect(answerOf(msg(text(' 2024 ')), question)).toEqual({ decision: { answer: '2024' }, at: { part: 0, kind: 'text' } });
    // "reject" to a question is an answer like any other text
    expect(answerOf(msg(text('reject')), question).decision).toEqual({ answer: 'reject' });
    expect(refused(() => answerOf(msg(), question)).errors[0]!.path).toBe('message.parts');
  });

  it('an approval takes approve/reject as text or { decision, note? } as data, and names the field otherwise', () => {
    expect(answerOf(msg(text('APPROVE')), approval).decision).toEqual({ decision: 'approve' });
    expect(answerOf(msg(data({ decision: 'reject', note: 'too dear' })), approval).decision).toEqual({
      decision: 'reject',
      note: 'too dear',
    });
    expect(refused(() => answerOf(msg(text('sure')), approval)).errors).toEqual([
      { path: 'message.parts[0].text', message: 'send "approve" or "reject" (or a data part { decision })' },
    ]);
    expect(refused(() => answerOf(msg(data({ decision: 'maybe' })), approval)).errors[0]!.path).toBe('message.parts[0].data.decision');
    expect(refused(() => answerOf(msg(data({ answer: 1 })), approval)).errors[0]!.path).toBe('message.parts[0].data.decision');
  });
});

describe('targetOf and inMessage', () => {
  it('answers the oldest pending item unless the metadata names one of the others', () => {
    expect(targetOf(msg(text('x')), [question, approval])).toBe(question);
    expect(targetOf({ ...msg(text('x')), metadata: { approvalId: 'a1' } }, [question, approval])).toBe(approval);
    expect(refused(() => targetOf({ ...msg(text('x')), metadata: { approvalId: 'zz' } }, [question])).errors).toEqual([
      { path: 'message.metadata.approvalId', message: 'pending: q1' },
    ]);
  });

  it("puts the inbox's field paths where the answer was in the message", () => {
    const errors = [{ path: 'body.answer.year', message: 'must be integer' }];
    expect(inMessage(errors, { part: 2, kind: 'data' })).toEqual([{ path: 'message.parts[2].data.year', message: 'must be integer' }]);
    expect(inMessage([{ path: 'body.answer', message: 'must be integer' }], { part: 0, kind: 'text' })).toEqual([
      { path: 'message.parts[0].text', message: 'must be integer' },
    ]);
  });
});

describe('promptOf and inputOfEvent', () => {
  it('the status message: the question as text, its id, kind and answer schema as data; a refusal ahead of it', () => {
    const m = promptOf('job', 'ctx', question, { detail: 'no', errors: [{ path: 'message.parts[0].data', message: 'must be integer' }] });
    expect(m.parts[0]!.content).toEqual({
      $case: 'text',
      value: 'answer refused: no\nmessage.parts[0].data: must be integer\n\nWhich year?',
    });
    expect(m.parts[1]!.content!.value).toMatchObject({
      id: 'q1',
      kind: 'question',
      answerSchema: { type: 'integer' },
      refused: { detail: 'no' },
    });
    expect(promptOf('job', 'ctx', { ...approval, reason: 'tool', detail: { tools: ['fetch'] } }).parts[0]!.content!.value).toBe(
      'task "t" waits for approval before a step that calls fetch: reply "approve" or "reject"',
    );
  });

  it('reads an approval or a question from approval.requested; a budget wait is not an A2A input', () => {
    const e = (data: Record<string, unknown>, type = 'approval.requested'): JobEvent => ({ seq: 1, type, at: '', data }) as JobEvent;
    expect(
      inputOfEvent(e({ approvalId: 'q1', kind: 'question', reason: 'question', taskId: 't', detail: question.detail, expiresAt: 'x' })),
    ).toEqual({
      ...question,
      expiresAt: 'x',
    });
    expect(inputOfEvent(e({ approvalId: 'b', kind: 'budget', reason: 'budget' }))).toBeUndefined();
    expect(inputOfEvent(e({ approvalId: 'q1', kind: 'question' }, 'approval.decided'))).toBeUndefined();
  });
});
