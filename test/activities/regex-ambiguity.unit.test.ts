/** The backtracking screen of submitted patterns: the classic catastrophic forms are caught, everyday patterns pass. */
import { describe, expect, it } from 'vitest';
import { backtrackingPatterns } from '../../activities/output-schema';
import { backtracks } from '../../activities/regex-ambiguity';

/** Twelve classic forms (OWASP's ReDoS page, the regex literature); the screen used to catch 4 of them. */
const CLASSIC = [
  '^(a+)+$',
  '([a-zA-Z]+)*',
  '(a|aa)+',
  '(a|a?)+',
  '(.*a){12}',
  '^(([a-z])+.)+[A-Z]([a-z])+$',
  '^([a-zA-Z0-9])(([\\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$',
  '^(\\w+\\s?)*$',
  '(x+x+)+y',
  '(a|b|ab)*c',
  '^(\\d+)*$',
  '(\\w|\\d)+$',
];

const FINE = [
  '^[a-z0-9-]+$',
  '^(-[a-z]+)*$',
  '^([a-z0-9]+\\.)+[a-z]{2,}$',
  '^\\d{4}-\\d{2}-\\d{2}$',
  '^(\\d{3}-)+\\d{4}$',
  '^(cat|car|dog)+$',
  '^(ab?)+$',
  '^(-?\\d)+$',
  '^[A-Z][a-z]{1,63}$',
  '^(foo|bar)(,(foo|bar))*$',
  '^https?://[^\\s/$.?#].[^\\s]*$',
  '^(?:[a-z]+_)*[a-z]+$',
  '\\p{L}+',
  '(?=.*\\d)[a-z\\d]{8,}',
];

describe('backtracking screen', () => {
  it.each(CLASSIC)('refuses %s', (p) => expect(backtracks(p)).toBe(true));
  it.each(FINE)('passes %s', (p) => expect(backtracks(p)).toBe(false));

  it('refuses nesting too deep to screen, and reads malformed patterns without throwing', () => {
    expect(backtracks(`${'('.repeat(500)}a${')'.repeat(500)}`)).toBe(true);
    for (const p of ['(', ')', '[', '\\', '(?', 'a{', '{1}', '[z-a]', '(?<n>a)\\1', '*a']) expect(() => backtracks(p)).not.toThrow();
  });

  it('names each refused pattern in a schema by its path', () => {
    const schema = { type: 'object', properties: CLASSIC.reduce((o, p, k) => ({ ...o, [`p${k}`]: { type: 'string', pattern: p } }), {}) };
    expect(backtrackingPatterns(schema)).toHaveLength(CLASSIC.length);
  });
});
