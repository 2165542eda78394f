/**
 * The polynomial degree of backtracking in a pattern: how many quantified parts in a row can
 * trade characters before something that can fail. A backtracking engine that fails there
 * tries every split of the traded run among them, about n^k ways for k parts on n characters,
 * and an unanchored search adds one part (it starts again at every position):
 *
 *   a*a*a*a*b ............. search · a* · a* · a* · a* ........ degree 5
 *   \d+\.?\d*x ............ search · \d+ · \d* (".?" may be empty) ... degree 3
 *   ^\d+\.?\d*$ ........... \d+ · \d* ............................. degree 2
 *   ^[a-z]+@[a-z]+$ ....... "@" separates ......................... degree 1
 *   (ab|a)(bc|c)*d ........ (ab|a) separates the search from (bc|c)* ... degree 1
 *
 * Parts P then Q trade when they share characters, Q can begin with one P takes, P can end
 * with one Q takes, and each part between them can be empty or take shared characters too. A
 * part that must take a character Q cannot is a wall: nothing before it trades with Q. A chain
 * counts where a part after it can fail (`$`, `x`); at the end of the pattern it just matches
 * (inside a group, a chain is taken to fail: the screen does not follow what comes after).
 * Bounded repetitions are unrolled (`(?:a*){3}` is a*a*a*); the answer errs towards refusing.
 */
import { ALL, BIG, charsOf, firstOf, lastOf, nullable, positions, type CharSet, type Node } from './regex-tree';

/** Parts a sequence is unrolled into at most; past it, a repetition is one part of `max` times its body's degree. */
const MAX_ITEMS = 512;
/** Earlier parts a part looks back over for a trading partner (a bound on time: patterns are short). */
const MAX_LOOKBACK = 32;
/** Items a part looks back through for a trading partner (a bound on time too). */
const MAX_REACH = 256;

/** A part that repeats many times, as a chain sees it. */
interface Part {
  /** The longest chain that ends with this part. */
  deg: number;
  chars: CharSet;
  first: CharSet;
  last: CharSet;
  /** Its index among the items (-1: the search's implicit leading `[^]*?`). */
  at: number;
}

/** A sequence's items with each bounded repetition unrolled, so that each copy's parts chain with their neighbours. */
function unrolled(n: Node, out: Node[] = []): Node[] {
  if (out.length >= MAX_ITEMS) out.push(n);
  else if (n.k === 'seq') for (const it of n.items) unrolled(it, out);
  else if (n.k === 'rep' && n.max < BIG && n.max > 1) {
    for (let c = 0; c < n.min; c++) unrolled(n.node, out);
    for (let c = n.min; c < n.max; c++) out.push({ k: 'rep', node: n.node, min: 0, max: 1 });
  } else out.push(n);
  return out;
}

/** Whether `n` matches however the input goes on (it can be empty without asserting anything). */
const alwaysMatches = (n: Node): boolean =>
  n.k === 'empty' ||
  (n.k === 'rep' && (n.min === 0 || alwaysMatches(n.node))) ||
  (n.k === 'seq' && n.items.every(alwaysMatches)) ||
  (n.k === 'alt' && n.alts.some(alwaysMatches));

/** The degree inside `n`, once per node: unrolled copies share their nodes, so nested `{9}`s cost their depth, not 9^depth. */
const inner = new WeakMap<Node, number>();
function innerDegree(n: Node): number {
  let d = inner.get(n);
  if (d === undefined) inner.set(n, (d = chainDegree(unrolled(n))));
  return d;
}

/** The degree `n` brings to a chain as one part: 0 without a repetition of many iterations inside. */
function ownDegree(n: Node): number {
  switch (n.k) {
    case 'char':
    case 'empty':
    case 'assert':
      return 0;
    case 'rep':
      // a bounded repetition left whole (past MAX_ITEMS) counts as if each copy traded with the next
      return n.max >= BIG ? Math.max(1, innerDegree(n.node)) : n.max * innerDegree(n.node);
    case 'alt':
      return Math.max(...n.alts.map(innerDegree));
    case 'seq':
      return innerDegree(n);
  }
}

/**
 * The degree of the longest chain of trading parts among `items`, counting only chains that a
 * later part can make fail (all of them inside a group: what follows it is not known here).
 * `search` puts the unanchored search's leading loop first; `top` says the items end the pattern.
 */
function chainDegree(items: Node[], search = false, top = false): number {
  const facts = items.map((n) => ({ nullable: nullable(n), chars: charsOf(n), first: firstOf(n), last: lastOf(n), at: positions(n) }));
  let lastFailing = items.length;
  if (top) while (lastFailing > 0 && alwaysMatches(items[lastFailing - 1]!)) lastFailing--;
  // a part that can fail at index k makes the chains that end before k count
  if (top) lastFailing--;
  const parts: Part[] = search ? [{ deg: 1, chars: ALL, first: ALL, last: ALL, at: -1 }] : [];
  let best = 0;
  items.forEach((item, i) => {
    const own = ownDegree(item);
    if (own === 0) return;
    const q: Part = { deg: own, chars: facts[i]!.chars, first: facts[i]!.first, last: facts[i]!.last, at: i };
    // the wall: the nearest earlier part that must take a character q cannot
    let wall = i - 1;
    while (wall >= 0 && (facts[wall]!.nullable || (facts[wall]!.first & q.chars) !== 0n)) wall--;
    for (
      let j = parts.length - 1, looked = 0;
      j >= 0 && parts[j]!.at >= Math.max(wall, i - MAX_REACH) && looked < MAX_LOOKBACK;
      j--, looked++
    ) {
      const p = parts[j]!;
      const shared = p.chars & q.chars;
      if (p.deg + own <= q.deg || shared === 0n || (q.first & p.chars) === 0n || (p.last & q.chars) === 0n) continue;
      const between = facts.slice(p.at + 1, i);
      const passable = between.every((f) =>
        f.nullable ? true : f.at ? f.at.every((s) => (s & shared) !== 0n) : (f.first & shared) !== 0n && (f.last & shared) !== 0n,
      );
      if (passable) q.deg = p.deg + own;
    }
    parts.push(q);
    // at the end, a chain just matches; a part's own chains fail inside it (`(?:a*a*a*b)*` tries an iteration first)
    best = Math.max(best, !top || i < lastFailing ? q.deg : own);
  });
  return best;
}

/** The polynomial degree of backtracking in a parsed pattern (each top-level alternative searched for on its own). */
export function polynomialDegree(tree: Node): number {
  const alts = tree.k === 'alt' ? tree.alts : [tree];
  return Math.max(
    ...alts.map((alt) => {
      const items = unrolled(alt);
      const anchored = items[0]?.k === 'assert' && items[0].start;
      return chainDegree(items, !anchored, true);
    }),
  );
}
