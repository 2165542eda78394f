/** The scout record's derived strings: the scope key, a question's topic, the memory summary line. */
import { describe, expect, it } from 'vitest';
import { scopeKey, scoutSummaryLine, topicOf } from '../../record/scout-text';

describe('scopeKey', () => {
  it('is the same for one scope however it is spelled or ordered', () => {
    expect(scopeKey(['record/', 'api'])).toBe('api\nrecord');
    expect(scopeKey(['./api/', 'record', 'record//', 'api/../api'])).toBe('api\nrecord');
    expect(scopeKey(['src\\lib'])).toBe('src/lib');
    expect(scopeKey(['.', './'])).toBe('.');
    expect(scopeKey(['/'])).toBe('/');
  });

  it('tells different scopes apart', () => {
    expect(scopeKey(['record'])).not.toBe(scopeKey(['record/store.ts']));
    expect(scopeKey(['a', 'b'])).not.toBe(scopeKey(['a']));
  });
});

describe('topicOf', () => {
  it.each([
    ['Where is createRecordStore defined?', 'createRecordStore'],
    ['Who calls `openRecordDb()` first?', 'openRecordDb'],
    ['Which modules read DELEGATE_RECORD_FILE?', 'DELEGATE_RECORD_FILE'],
    ['Trace a job from POST /v1/jobs to the worker', '/v1/jobs'],
    ['What does record/store.ts export?', 'record/store.ts'],
    ['How does the retry policy work for webhooks?', 'retry policy'],
    ['Where is rate limiting handled, e.g. per tenant?', 'rate limiting'],
    ['Where is it?', 'other'],
  ])('%s → %s', (question, topic) => {
    expect(topicOf(question)).toBe(topic);
  });

  it('keeps at most 60 characters', () => {
    expect(topicOf(`where is ${'aVeryLongName'.repeat(10)}`)).toHaveLength(60);
  });
});

describe('scoutSummaryLine', () => {
  it('names the top topics in order, or none', () => {
    expect(
      scoutSummaryLine({
        dispatched: 12,
        topTopics: [
          { topic: 'auth', count: 5 },
          { topic: 'retry policy', count: 2 },
        ],
      }),
    ).toBe('scouts dispatched: 12 (top topics auth, retry policy)');
    expect(scoutSummaryLine({ dispatched: 0, topTopics: [] })).toBe('scouts dispatched: 0');
  });
});
