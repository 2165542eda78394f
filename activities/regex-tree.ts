/**
 * A regular expression as a small tree, for the backtracking screens (regex-ambiguity.ts,
 * regex-degree.ts): characters as sets, sequences, alternations, repetitions and zero-width
 * assertions, read leniently from JavaScript / RE2 syntax.
 *
 *   "^(a|b)+\d*$" ──parse──> seq[ assert(start), rep(alt[a, b], 1..∞), rep([0-9], 0..∞), assert ]
 *
 * Characters are modelled as the 128 ASCII ones plus one for everything else, so an answer
 * built on these sets errs towards refusing.
 */

/** A set of characters: bits 0..127 are ASCII, bit 128 every other character. */
export type CharSet = bigint;
const OTHER = 1n << 128n;
/** Every character. */
export const ALL: CharSet = (1n << 129n) - 1n;
const one = (c: number): CharSet => (c < 128 ? 1n << BigInt(c) : OTHER);
const range = (a: number, b: number): CharSet => {
  let s = 0n;
  for (let c = a; c <= Math.min(b, 127); c++) s |= 1n << BigInt(c);
  return b >= 128 ? s | OTHER : s;
};
const DIGIT = range(48, 57);
const WORD = DIGIT | range(65, 90) | range(97, 122) | one(95);
const SPACE = one(32) | range(9, 13) | OTHER;
const DOT = ALL & ~one(10);

/** A repetition of at least this many iterations is screened like an unbounded one: `(.*a){20}` is n^20. */
export const BIG = 10;
/** Deeper nesting than this is refused outright (and would exhaust a recursive matcher's stack anyway). */
const MAX_DEPTH = 100;
/** Longest fixed run `positions` spells out (`((a{9}){9}){9}` is 729); a longer one counts as not fixed. */
const MAX_RUN = 1024;

/** A parsed pattern; `assert` is zero-width (`^`, `$`, `\b`, a lookaround), `start` when it pins the match to the input's start. */
export type Node =
  | { k: 'char'; set: CharSet }
  | { k: 'empty' }
  | { k: 'assert'; start: boolean }
  | { k: 'seq'; items: Node[] }
  | { k: 'alt'; alts: Node[] }
  | { k: 'rep'; node: Node; min: number; max: number };

/** Thrown when a pattern nests deeper than a screen follows. */
export class TooDeep extends Error {}

/** Parses a JavaScript / RE2 pattern leniently: what it does not know it reads as a literal. */
export function parse(src: string): Node {
  let i = 0;
  // under the multiline flag `^` matches after every newline, so it pins nothing
  const multiline = /\(\?[a-zA-Z]*m/.test(src);
  const peek = () => src[i];
  const escapeSet = (c: string): CharSet | undefined =>
    ({ d: DIGIT, D: ALL & ~DIGIT, w: WORD, W: ALL & ~WORD, s: SPACE, S: ALL & ~SPACE })[c];
  const escapedChar = (): CharSet => {
    const c = src[i++] ?? '\\';
    const set = escapeSet(c);
    if (set !== undefined) return set;
    if (c === 'p' || c === 'P') {
      if (peek() === '{') i = src.indexOf('}', i) < 0 ? src.length : src.indexOf('}', i) + 1;
      else i++;
      return ALL;
    }
    const controls: Record<string, number> = { n: 10, t: 9, r: 13, f: 12, v: 11, '0': 0 };
    if (c in controls) return one(controls[c]!);
    if (c === 'x' || c === 'u') {
      const m = /^(\{[0-9a-fA-F]+\}|[0-9a-fA-F]{4}|[0-9a-fA-F]{2})/.exec(src.slice(i));
      if (!m) return one(c.charCodeAt(0));
      i += m[0].length;
      return one(parseInt(m[0].replace(/[{}]/g, ''), 16));
    }
    return one(c.charCodeAt(0));
  };
  const charClass = (): CharSet => {
    let set = 0n;
    const negated = peek() === '^';
    if (negated) i++;
    let first = true;
    while (i < src.length && (src[i] !== ']' || first)) {
      first = false;
      let lo: CharSet;
      let code: number | undefined;
      if (src[i] === '\\') {
        i++;
        // a class cut off after its backslash reads it as one
        const c = src[i] ?? '\\';
        lo = escapedChar();
        code = escapeSet(c) === undefined ? c.charCodeAt(0) : undefined;
      } else {
        code = src.charCodeAt(i++);
        lo = one(code);
      }
      if (code !== undefined && src[i] === '-' && src[i + 1] !== undefined && src[i + 1] !== ']') {
        i++;
        if (src[i] === '\\') i++;
        const hi = src.charCodeAt(i++);
        set |= range(code, hi);
      } else set |= lo;
    }
    i++;
    return negated ? ALL & ~set : set;
  };
  const atom = (depth: number): Node => {
    const c = src[i++]!;
    if (c === '(') {
      let lookaround = false;
      if (peek() === '?') {
        const m = /^\?(:|=|!|<=|<!|<[A-Za-z]\w*>|P<[A-Za-z]\w*>|[imsxU-]+:|[imsxU-]+(?=\)))?/.exec(src.slice(i))!;
        lookaround = ['=', '!', '<=', '<!'].includes(m[1] ?? '');
        i += m[0].length;
      }
      const inner = alternation(depth + 1);
      if (peek() === ')') i++;
      return lookaround ? { k: 'assert', start: false } : inner;
    }
    if (c === '[') return { k: 'char', set: charClass() };
    if (c === '.') return { k: 'char', set: DOT };
    if (c === '^' || c === '$') return { k: 'assert', start: c === '^' && !multiline };
    if (c === '\\') {
      const e = peek();
      if (e !== undefined && 'bBAzZG'.includes(e)) {
        i++;
        return { k: 'assert', start: e === 'A' };
      }
      // a back-reference can match any text the group did
      if (e !== undefined && /[1-9]/.test(e)) {
        while (/\d/.test(src[i] ?? '')) i++;
        return { k: 'rep', node: { k: 'char', set: ALL }, min: 0, max: Infinity };
      }
      return { k: 'char', set: escapedChar() };
    }
    return { k: 'char', set: one(c.charCodeAt(0)) };
  };
  const quantified = (node: Node): Node => {
    const c = peek();
    let min: number;
    let max: number;
    if (c === '*' || c === '+' || c === '?') {
      i++;
      [min, max] = c === '*' ? [0, Infinity] : c === '+' ? [1, Infinity] : [0, 1];
    } else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(src.slice(i));
      if (!m) return node;
      i += m[0].length;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
    } else return node;
    // lazy and possessive marks change the order tried, not the ways to match
    if (peek() === '?' || peek() === '+') i++;
    return quantified({ k: 'rep', node, min, max });
  };
  const sequence = (depth: number): Node => {
    const items: Node[] = [];
    while (i < src.length && peek() !== '|' && peek() !== ')') {
      const n = quantified(atom(depth));
      if (n.k === 'seq') items.push(...n.items);
      else if (n.k !== 'empty') items.push(n);
    }
    return items.length === 1 ? items[0]! : items.length === 0 ? { k: 'empty' } : { k: 'seq', items };
  };
  function alternation(depth: number): Node {
    if (depth > MAX_DEPTH) throw new TooDeep();
    const alts = [sequence(depth)];
    while (peek() === '|') {
      i++;
      alts.push(sequence(depth));
    }
    return alts.length === 1 ? alts[0]! : { k: 'alt', alts };
  }
  const root = alternation(0);
  // a stray ")" ends the top level early: read the rest as more of the pattern
  return i < src.length ? { k: 'seq', items: [root, parse(src.slice(i + 1))] } : root;
}

/** Whether `n` can match the empty string (an assertion matches no characters). */
export const nullable = (n: Node): boolean =>
  n.k === 'empty' ||
  n.k === 'assert' ||
  (n.k === 'rep' && (n.min === 0 || nullable(n.node))) ||
  (n.k === 'seq' && n.items.every(nullable)) ||
  (n.k === 'alt' && n.alts.some(nullable));

/** The characters `n` can match anywhere, or (`end`) as the first or the last character of its match. */
export function charsOf(n: Node, end?: 'first' | 'last'): CharSet {
  switch (n.k) {
    case 'char':
      return n.set;
    case 'empty':
    case 'assert':
      return 0n;
    case 'rep':
      return charsOf(n.node, end);
    case 'alt':
      return n.alts.reduce((s, x) => s | charsOf(x, end), 0n);
    case 'seq': {
      let s = 0n;
      for (const x of end === 'last' ? [...n.items].reverse() : n.items) {
        s |= charsOf(x, end);
        // past a part that cannot be empty, no further part can begin (or end) the match
        if (end && !nullable(x)) break;
      }
      return s;
    }
  }
}

/** The characters that can begin a match of `n`. */
export const firstOf = (n: Node): CharSet => charsOf(n, 'first');
/** The characters that can end a match of `n`. */
export const lastOf = (n: Node): CharSet => charsOf(n, 'last');

/** The character sets, position by position, of a node that is a fixed run of characters; undefined otherwise. */
export function positions(n: Node): CharSet[] | undefined {
  if (n.k === 'char') return [n.set];
  if (n.k === 'empty' || n.k === 'assert') return [];
  if (n.k === 'rep' && n.min === n.max && n.max <= BIG) {
    const p = positions(n.node);
    return p && p.length * n.min <= MAX_RUN ? Array.from({ length: n.min }, () => p).flat() : undefined;
  }
  if (n.k === 'seq') {
    const all = n.items.map(positions);
    return all.every((p) => p !== undefined) && all.reduce((s, p) => s + p!.length, 0) <= MAX_RUN ? (all as CharSet[][]).flat() : undefined;
  }
  return undefined;
}

/** The length of every match of `n` when it is a fixed run of characters; undefined otherwise. */
export const fixedLength = (n: Node): number | undefined => positions(n)?.length;
