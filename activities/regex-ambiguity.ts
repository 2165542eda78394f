/**
 * Does a regular expression backtrack catastrophically in a backtracking engine? Pure, and
 * only a screen for submissions (Delegate itself matches with RE2, in linear time): the
 * pattern is parsed into a small tree, and every repetition of many iterations (unbounded, or
 * at least BIG times) is asked whether one string can be split into its iterations in more
 * than one way, which a backtracking engine then tries one by one:
 *
 *   body matches empty ............................ (a*)*  (a|a?)+
 *   two alternatives can start the same string .... (a|aa)+  (a|b|ab)*  (\w|\d)+
 *   a variable part and nothing that separates ..... (a+)+  (\w+\s?)*  (x+x+)+y  ([a-z]+.)+  (.*a){20}
 *
 * "Separates": a required character the variable parts cannot match, as "-" in `(-[a-z]+)*`
 * or "." in `([a-z0-9]+\.)+`; such patterns pass. Characters are modelled as the 128 ASCII
 * ones plus one for everything else, so the answer errs towards refusing.
 */

/** A set of characters: bits 0..127 are ASCII, bit 128 every other character. */
type CharSet = bigint;
const OTHER = 1n << 128n;
const ALL: CharSet = (1n << 129n) - 1n;
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
const BIG = 10;
/** Deeper nesting than this is refused outright (and would exhaust a recursive matcher's stack anyway). */
const MAX_DEPTH = 100;

type Node =
  | { k: 'char'; set: CharSet }
  | { k: 'empty' }
  | { k: 'seq'; items: Node[] }
  | { k: 'alt'; alts: Node[] }
  | { k: 'rep'; node: Node; min: number; max: number };

class TooDeep extends Error {}

/** Parses a JavaScript / RE2 pattern leniently: what it does not know it reads as a literal. */
function parse(src: string): Node {
  let i = 0;
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
        const c = src[i]!;
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
        const m = /^\?(:|=|!|<=|<!|<[A-Za-z]\w*>|P<[A-Za-z]\w*>|[imsx-]+:)?/.exec(src.slice(i))!;
        lookaround = ['=', '!', '<=', '<!'].includes(m[1] ?? '');
        i += m[0].length;
      }
      const inner = alternation(depth + 1);
      if (peek() === ')') i++;
      return lookaround ? { k: 'empty' } : inner;
    }
    if (c === '[') return { k: 'char', set: charClass() };
    if (c === '.') return { k: 'char', set: DOT };
    if (c === '^' || c === '$') return { k: 'empty' };
    if (c === '\\') {
      const e = peek();
      if (e !== undefined && 'bBAzZG'.includes(e)) {
        i++;
        return { k: 'empty' };
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

const nullable = (n: Node): boolean =>
  n.k === 'empty' ||
  (n.k === 'rep' && (n.min === 0 || nullable(n.node))) ||
  (n.k === 'seq' && n.items.every(nullable)) ||
  (n.k === 'alt' && n.alts.some(nullable));

/** The characters `n` can match anywhere, or (`first`) as the first character of its match. */
function charsOf(n: Node, first = false): CharSet {
  switch (n.k) {
    case 'char':
      return n.set;
    case 'empty':
      return 0n;
    case 'rep':
      return charsOf(n.node, first);
    case 'alt':
      return n.alts.reduce((s, x) => s | charsOf(x, first), 0n);
    case 'seq': {
      let s = 0n;
      for (const x of n.items) {
        s |= charsOf(x, first);
        // past a part that cannot be empty, no later part can start the match
        if (first && !nullable(x)) break;
      }
      return s;
    }
  }
}

const firstOf = (n: Node): CharSet => charsOf(n, true);

/** The characters of the parts inside `n` whose length varies (a `?`, `*`, `+` or `{m,n}`), which can shift an iteration's end. */
function variableChars(n: Node): CharSet {
  switch (n.k) {
    case 'char':
    case 'empty':
      return 0n;
    case 'rep':
      return n.max > n.min ? charsOf(n.node) : variableChars(n.node);
    case 'seq':
      return n.items.reduce((s, x) => s | variableChars(x), 0n);
    // alternatives of different lengths vary too
    case 'alt':
      return n.alts.reduce((s, x) => s | variableChars(x), 0n) | (new Set(n.alts.map(fixedLength)).size > 1 ? charsOf(n) : 0n);
  }
}

/** The character sets, position by position, of a node that is a fixed run of characters; undefined otherwise. */
function positions(n: Node): CharSet[] | undefined {
  if (n.k === 'char') return [n.set];
  if (n.k === 'empty') return [];
  if (n.k === 'rep' && n.min === n.max && n.max <= BIG) {
    const p = positions(n.node);
    return p && Array.from({ length: n.min }, () => p).flat();
  }
  if (n.k === 'seq') {
    const all = n.items.map(positions);
    return all.every((p) => p !== undefined) ? (all as CharSet[][]).flat() : undefined;
  }
  return undefined;
}

const fixedLength = (n: Node): number | undefined => positions(n)?.length;

/** Whether two alternatives of a repeated group can match the same text, or one a prefix of the other's. */
function overlapping(a: Node, b: Node): boolean {
  const pa = positions(a);
  const pb = positions(b);
  if (!pa || !pb) return (firstOf(a) & firstOf(b)) !== 0n;
  const shorter = Math.min(pa.length, pb.length);
  for (let k = 0; k < shorter; k++) if ((pa[k]! & pb[k]!) === 0n) return false;
  return true;
}

/** Whether one iteration of a repeated body can end at more than one place, or its iterations be told apart in more than one way. */
function ambiguousBody(body: Node): boolean {
  if (nullable(body)) return true;
  const alts = body.k === 'alt' ? body.alts : [body];
  for (let x = 0; x < alts.length; x++) for (let y = x + 1; y < alts.length; y++) if (overlapping(alts[x]!, alts[y]!)) return true;
  return alts.some((alt) => {
    const items = alt.k === 'seq' ? alt.items : [alt];
    const varying = items.reduce((s, it) => s | variableChars(it), 0n);
    if (varying === 0n) return false;
    // a required, fixed part the varying parts cannot match marks where each iteration is
    return !items.some((it) => !nullable(it) && variableChars(it) === 0n && (charsOf(it) & varying) === 0n);
  });
}

function backtracksIn(n: Node): boolean {
  switch (n.k) {
    case 'char':
    case 'empty':
      return false;
    case 'seq':
      return n.items.some(backtracksIn);
    case 'alt':
      return n.alts.some(backtracksIn);
    case 'rep':
      return (n.max >= BIG && ambiguousBody(n.node)) || backtracksIn(n.node);
  }
}

/** True when a backtracking engine may take exponential (or high-polynomial) time on `pattern`. */
export function backtracks(pattern: string): boolean {
  try {
    return backtracksIn(parse(pattern));
  } catch (err) {
    if (err instanceof TooDeep) return true;
    throw err;
  }
}
