/**
 * The scout record's derived strings, pure: the scope key the per-scope cap counts, the
 * topic a scout is summed under, and the memory summary's line.
 *
 *   scope paths ── normalise, dedupe, sort, join ── scope_key
 *   feature slug ?? question ── topicOf ── "scouts dispatched: N (top topics a, b, c)"
 */
import { posix } from 'node:path';

/** Characters a topic keeps. */
const TOPIC_CHARS = 60;

/**
 * Words that say nothing about what a scout looked into: question words, auxiliaries,
 * pronouns, prepositions, and the verbs every code question uses ("where is X defined").
 */
const STOP = new Set(
  `a an the is are was were be been being do does did doing done have has had how what where when which who whom whose why
  that this these those there here it its of in on at to from for with by about into through over under between after before
  during whether and or but not no if then than so as can could should would will may might must shall we you our my your me us
  all any each every some get gets set find show list tell explain trace used use uses using called call calls defined define
  declared work works happen happens handled handle handles code file files function functions method methods implemented
  implement implementation logic part place places live lives`.split(/\s+/),
);

/**
 * The key scouts share when they survey the same scope: each path normalised (POSIX
 * separators, no `./`, no trailing `/`, `.` for the root), duplicates dropped, sorted
 * bytewise, joined by newlines (a character no path argument carries).
 */
export function scopeKey(paths: readonly string[]): string {
  const norm = paths.map((p) => {
    const n = posix.normalize(p.trim().replace(/\\/g, '/'));
    return n === '/' ? n : n.replace(/\/+$/, '') || '.';
  });
  return [...new Set(norm)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join('\n');
}

/** A token that names code: camelCase, snake_case, a dotted member or file name, or a path. */
const CODE_LIKE = /[a-z][A-Z]|\w_\w|\w\.\w|\w\/\w|^\/\w/;

/**
 * The topic of a scout without a feature, from its question. The rule:
 *  1. the first token of 4+ characters that names code (see CODE_LIKE: not "e.g"), as written, quotes and trailing punctuation (`()?`) stripped;
 *  2. otherwise the first two content words (3+ letters, not in STOP), lowercased, joined by a space;
 *  3. otherwise `other`.
 * At most 60 characters. "Where is createRecordStore defined?" → `createRecordStore`;
 * "How does the retry policy work for webhooks?" → `retry policy`.
 */
export function topicOf(question: string): string {
  const tokens = question
    .split(/\s+/)
    .map((t) => t.replace(/^[^\w/]+|\W+$/g, ''))
    .filter(Boolean);
  const code = tokens.find((t) => t.length >= 4 && CODE_LIKE.test(t));
  if (code) return code.slice(0, TOPIC_CHARS);
  const words = tokens
    .flatMap((t) => t.toLowerCase().split(/[^\p{L}\p{N}-]+/u))
    .filter((w) => /\p{L}/u.test(w) && w.length >= 3 && !STOP.has(w));
  return words.length ? words.slice(0, 2).join(' ').slice(0, TOPIC_CHARS) : 'other';
}

/** What `scoutSummaryLine` needs of a scout summary. */
export interface ScoutSummaryCounts {
  dispatched: number;
  topTopics: { topic: string; count: number }[];
}

/** The parent's memory summary line: `scouts dispatched: 12 (top topics auth-refresh, createRecordStore, retry policy)`. */
export function scoutSummaryLine(s: ScoutSummaryCounts): string {
  const topics = s.topTopics.map((t) => t.topic);
  return `scouts dispatched: ${s.dispatched}${topics.length ? ` (top topics ${topics.join(', ')})` : ''}`;
}
