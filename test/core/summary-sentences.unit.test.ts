import { describe, expect, it } from 'vitest';
import { checkSummary, countSentences, fitSummary, splitSentences } from '../../core/summary-sentences';

describe('summary sentences', () => {
  it('counts sentences ended by . ! ? … with closing quotes', () => {
    expect(countSentences('')).toBe(0);
    expect(countSentences('One. Two! Three? Four… Five')).toBe(5);
    expect(splitSentences('He said "yes." Then left.')).toEqual(['He said "yes."', 'Then left.']);
  });

  it('does not split numbers, URLs, abbreviations or initials', () => {
    expect(countSentences('Confidence is 0.85 at https://a.com/x.html today. Done.')).toBe(2);
    expect(countSentences('Some stores, e.g. Qdrant, fuse scores (cf. Weaviate). Milvus vs. Vespa differ.')).toBe(2);
    expect(countSentences('J. Smith et al. wrote it in 2023. It holds.')).toBe(2);
  });

  it('counts a line of a bulleted answer as a sentence', () => {
    expect(countSentences('- Qdrant fuses\n- Weaviate fuses\n\n- Milvus has sparse vectors')).toBe(3);
  });

  it('reads a single letter before a dot as an initial, not a sentence', () => {
    expect(countSentences('A. B. C.')).toBe(1);
  });

  it('asks for 3 to 6 sentences', () => {
    expect(checkSummary('One. Two. Three.')).toEqual({ sentences: 3, ok: true, reprompt: null });
    expect(checkSummary('One. Two. Three. Four. Five. Six.').ok).toBe(true);
    expect(checkSummary('One. Two.')).toMatchObject({ ok: false, reprompt: expect.stringMatching(/has 2 sentences; write 3 to 6/) });
    expect(checkSummary('One. Two. Three. Four. Five. Six. Seven.').ok).toBe(false);
  });

  it('trims a long summary to six with a note, keeps a short one with a note', () => {
    expect(fitSummary('S1. S2. S3. S4. S5. S6. S7. S8.')).toEqual({
      summary: 'S1. S2. S3. S4. S5. S6.',
      sentences: 6,
      note: 'summary trimmed from 8 to 6 sentences',
    });
    expect(fitSummary(' Only one. ')).toEqual({ summary: 'Only one.', sentences: 1, note: 'summary has 1 sentence, fewer than 3' });
    expect(fitSummary('One. Two. Three. Four.').note).toBeNull();
  });
});
