/** The backtracking screen of submitted patterns: the classic catastrophic and polynomial forms are caught, everyday patterns pass. */
import { describe, expect, it } from 'vitest';
import { backtrackingPatterns } from '../../activities/output-schema';
import { backtracking, backtracks } from '../../activities/regex-ambiguity';

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

/**
 * Polynomial forms with the degree a backtracking engine shows (recheck's automaton agrees on each):
 * the first four are audit #8's (the first ran 407 s in V8 on 200 characters; `.*foo.*bar` takes
 * 3.2 s on 3,000). An unanchored search counts one part more than the pattern shows.
 */
const POLYNOMIAL: [string, number][] = [
  ['a*a*a*a*a*a*a*a*b', 9],
  ['(a+)(a+)(a+)(a+)(a+)(a+)b', 7],
  ['.*.*.*.*.*.*=', 7],
  ['\\s*\\s*\\s*\\s*\\s*\\s*x', 7],
  ['\\d+\\.?\\d*x', 3],
  ['.*foo.*bar', 3],
  ['^a*a*a*b$', 3],
  ['(?:a*){3}b', 4],
  ['(\\d+\\.?){3}x', 4],
  ['[ab]*[bc]*[cd]*x', 4],
  ['^(?:a*a*a*b)*c$', 3],
  // at the end but optional: a backtracking engine tries an iteration first (1.9 s on 2,000 characters)
  ['(?:a*a*a*b)*', 3],
];

/** Everyday patterns, several of degree 2 (anchored, or an unanchored `\s+$`): refusing those would refuse most patterns. */
const EVERYDAY = [
  '^[a-z]+@[a-z]+\\.[a-z]{2,}$',
  '^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$',
  '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$',
  '^[A-Z][a-z]*( [A-Z][a-z]*)*$',
  '^https?://[a-z0-9.-]+(:\\d+)?(/[^\\s]*)?$',
  '^(https?|ftp)://[^\\s/$.?#].[^\\s]*$',
  '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-((?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\\+([0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*))?$',
  '^\\d+\\.\\d+\\.\\d+(-[0-9A-Za-z.-]+)?(\\+[0-9A-Za-z.-]+)?$',
  '^-?\\d*\\.?\\d+$',
  '^\\d+\\.?\\d*$',
  '^\\s+|\\s+$',
  '^.*\\S.*$',
  '\\s*\\w+\\s*',
  'a+b',
  '^(\\d+\\.){3}\\d+$',
  '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$',
  '^\\$?\\d{1,3}(,\\d{3})*(\\.\\d{2})?$',
  '^(\\+\\d{1,3} ?)?\\(?\\d{3}\\)?[ .-]?\\d{3}[ .-]?\\d{4}$',
  // linear in V8 (0.4 ms on 48,000 characters of its worst inputs; recheck: linear): (ab|a) must
  // take the one "a" a run starts with, so no search position but that one gets far
  '(ab|a)(bc|c)*d',
];

describe('backtracking screen', () => {
  it.each(CLASSIC)('refuses %s', (p) => expect(backtracks(p)).toBe(true));
  it.each(FINE)('passes %s', (p) => expect(backtracks(p)).toBe(false));
  it.each(POLYNOMIAL)('refuses %s as polynomial of degree %i', (p, degree) =>
    expect(backtracking(p)).toEqual({ kind: 'polynomial', degree }),
  );
  it.each(EVERYDAY)('passes everyday %s', (p) => expect(backtracking(p)).toBeUndefined());
  it.each(CLASSIC)('calls %s exponential', (p) => expect(backtracking(p)?.kind).toBe('exponential'));

  it('counts the unanchored search as one part more, and a chain at the very end as matching', () => {
    expect(backtracking('^\\d+\\.?\\d*x')).toBeUndefined();
    expect(backtracking('\\d+\\.?\\d*x')).toEqual({ kind: 'polynomial', degree: 3 });
    // nothing after the last a* can fail, so the match never backtracks into the chain
    expect(backtracking('a*a*a*')).toBeUndefined();
    expect(backtracking('a*a*a*$')).toEqual({ kind: 'polynomial', degree: 4 });
    // a character neither side takes separates: only the search and one part are left
    expect(backtracking('x\\d*\\d*y')).toBeUndefined();
    expect(backtracking('(?m)^a*a*b')).toEqual({ kind: 'polynomial', degree: 3 });
  });

  it('refuses nesting too deep to screen, and reads malformed patterns without throwing', () => {
    expect(backtracks(`${'('.repeat(500)}a${')'.repeat(500)}`)).toBe(true);
    for (const p of ['(', ')', '[', '\\', '(?', 'a{', '{1}', '[z-a]', '(?<n>a)\\1', '*a', '[\\', 'a[b\\'])
      expect(() => backtracks(p)).not.toThrow();
  });

  it('names each refused pattern in a schema by its path', () => {
    const schema = { type: 'object', properties: CLASSIC.reduce((o, p, k) => ({ ...o, [`p${k}`]: { type: 'string', pattern: p } }), {}) };
    expect(backtrackingPatterns(schema)).toHaveLength(CLASSIC.length);
    expect(backtrackingPatterns({ type: 'string', pattern: '.*foo.*bar' })).toEqual([
      expect.stringMatching(/^pattern: pattern "\.\*foo\.\*bar" .* about n\^3 ways \(polynomial backtracking\)/),
    ]);
  });
});
