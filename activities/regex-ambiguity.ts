/**
 * Does a regular expression backtrack catastrophically in a backtracking engine? Pure, and
 * only a screen for submissions (Delegate itself matches with RE2, in linear time): the
 * pattern is parsed into a small tree (regex-tree.ts), and every repetition of many iterations
 * (unbounded, or at least BIG times) is asked whether one string can be split into its
 * iterations in more than one way, which a backtracking engine then tries one by one:
 *
 *   body matches empty ............................ (a*)*  (a|a?)+
 *   two alternatives can start the same string .... (a|aa)+  (a|b|ab)*  (\w|\d)+
 *   a variable part and nothing that separates ..... (a+)+  (\w+\s?)*  (x+x+)+y  ([a-z]+.)+  (.*a){20}
 *
 * "Separates": a required character the variable parts cannot match, as "-" in `(-[a-z]+)*`
 * or "." in `([a-z0-9]+\.)+`; such patterns pass. That is the exponential kind; quantified
 * parts in a row that trade characters (`a*a*a*b`, `.*foo.*bar`) are polynomial, counted by
 * regex-degree.ts, and refused from degree POLYNOMIAL_DEGREE on.
 */
import { polynomialDegree } from './regex-degree';
import { BIG, charsOf, fixedLength, firstOf, nullable, parse, positions, TooDeep, type CharSet, type Node } from './regex-tree';

/**
 * The polynomial degree refused: n^3 steps on n characters. Degree 2 is what a backtracking engine
 * spends on any unanchored search for `\s+x` or `a+b` (a JSON Schema `pattern` is unanchored), about
 * 0.2-0.4 s on 16,384 characters in V8; refusing it would refuse most everyday patterns. Degree 3
 * is 3 s on 3,000 characters (`.*foo.*bar`, V8), and each degree more multiplies by n.
 */
export const POLYNOMIAL_DEGREE = 3;

/** The characters of the parts inside `n` whose length varies (a `?`, `*`, `+` or `{m,n}`), which can shift an iteration's end. */
function variableChars(n: Node): CharSet {
  switch (n.k) {
    case 'char':
    case 'empty':
    case 'assert':
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
    case 'assert':
      return false;
    case 'seq':
      return n.items.some(backtracksIn);
    case 'alt':
      return n.alts.some(backtracksIn);
    case 'rep':
      return (n.max >= BIG && ambiguousBody(n.node)) || backtracksIn(n.node);
  }
}

/** How a backtracking engine blows up on a pattern: exponentially, or as n^degree on n characters. */
export type Backtracking = { kind: 'exponential' } | { kind: 'polynomial'; degree: number };

/** How a backtracking engine may blow up on `pattern` (exponential, or polynomial of degree POLYNOMIAL_DEGREE or more); undefined when it may not. */
export function backtracking(pattern: string): Backtracking | undefined {
  try {
    const tree = parse(pattern);
    if (backtracksIn(tree)) return { kind: 'exponential' };
    const degree = polynomialDegree(tree);
    return degree >= POLYNOMIAL_DEGREE ? { kind: 'polynomial', degree } : undefined;
  } catch (err) {
    if (err instanceof TooDeep) return { kind: 'exponential' };
    throw err;
  }
}

/** True when a backtracking engine may take exponential (or high-polynomial) time on `pattern`. */
export function backtracks(pattern: string): boolean {
  return backtracking(pattern) !== undefined;
}
