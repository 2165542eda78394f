/** The LLM agent's ask_parent arguments as the host checks them, and the turns the next step starts with. */
import { describe, expect, it } from 'vitest';
import { askOf, humanTurns } from '../../activities/agents/llm-human';

describe('askOf', () => {
  it('takes a question and an answer schema the API can check', () => {
    const answerSchema = { type: 'object', properties: { year: { type: 'integer' } }, required: ['year'] };
    expect(askOf({ question: 'Which year?', answerSchema })).toEqual({ ask: { question: 'Which year?', answerSchema } });
  });

  it.each([
    [{}, 'question'],
    [{ question: '' }, 'question'],
    [{ question: 'q', answerSchema: 'a string' }, 'answerSchema'],
    [{ question: 'q', answerSchema: { $ref: 'https://example.com/s.json' } }, 'answerSchema'],
    [{ question: 'q', extra: 1 }, 'extra'],
  ])('refuses %j, naming %s, so the model may ask again', (args, field) => {
    const r = askOf(args);
    expect('error' in r && r.error).toMatch(new RegExp(`^error: ask_parent refused \\(.*${field}`));
  });
});

describe('humanTurns', () => {
  const answer = { question: 'Which year?', answer: { year: 2024 }, by: 'key:default', note: 'fiscal' };

  it("answers the ask's call, then one user turn with the answer and the messages", () => {
    expect(humanTurns('call_1', answer, [{ text: 'only EMEA', from: 'lead' }, { text: 'be brief' }])).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: 'The question was answered: the answer follows as a message.' },
      {
        role: 'user',
        content:
          'The parent answered your question ("Which year?"): {"year":2024}\nNote: fiscal\n\nMessage from lead: only EMEA\n\nMessage from the parent: be brief',
      },
    ]);
  });

  it('steering messages alone are a user turn; nothing heard is no turn', () => {
    expect(humanTurns(undefined, undefined, [{ text: 'hurry' }])).toEqual([{ role: 'user', content: 'Message from the parent: hurry' }]);
    expect(humanTurns(undefined, undefined, undefined)).toEqual([]);
    expect(humanTurns('call_2', undefined, [])).toEqual([
      { role: 'tool', tool_call_id: 'call_2', content: 'The question was not answered.' },
    ]);
  });
});
