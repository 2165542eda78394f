/**
 * The terms semantic routing compares: lowercase words without stop words, cut to a stem by a
 * small suffix stemmer, so "translating", "translation" and "translate" meet as one term.
 * Pure; shared by the BM25 ranker and the fake embeddings server.
 */

/** Words that say nothing about which agent a question needs. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by can could ' +
    'did do does doing down during each few for from further had has have having he her here hers herself him himself his how i if in ' +
    'into is it its itself just let me more most my myself no nor not now of off on once only or other our ours ourselves out over own ' +
    'please same she should so some such than that the their theirs them themselves then there these they this those through to too ' +
    'under until up us very was we were what when where which while who whom why will with would you your yours yourself yourselves ' +
    'tell give need want get got know like also may might must shall thing things way use using used one two much many lot'
  ).split(' '),
);

/** Suffixes cut from a word's end (longest first), each with its replacement; the stem keeps at least 3 letters (4 for `ly`: reply, early). */
const SUFFIXES: [string, string][] = [
  ['izations', 'ize'],
  ['ization', 'ize'],
  ['isations', 'ize'],
  ['isation', 'ize'],
  ['ational', 'ate'],
  ['ations', 'ate'],
  ['ation', 'ate'],
  ['ators', 'ate'],
  ['ator', 'ate'],
  ['fulness', 'ful'],
  ['iveness', 'ive'],
  ['ousness', 'ous'],
  ['ments', ''],
  ['ment', ''],
  ['ness', ''],
  ['ities', ''],
  ['ity', ''],
  ['ings', ''],
  ['ing', ''],
  ['ers', ''],
  ['er', ''],
  ['ied', 'y'],
  ['ies', 'y'],
  ['ed', ''],
  ['ly', ''],
  ['es', ''],
  ['s', ''],
];

/** Cuts a word to its stem: a few English suffixes, then a final `e`, `ise` → `ize`, and a doubled final consonant. */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  let w = word;
  if (w.endsWith('ss') || w.endsWith('us') || w.endsWith('is')) return w;
  for (const [suffix, replacement] of SUFFIXES) {
    if (w.endsWith(suffix) && w.length - suffix.length >= (suffix === 'ly' ? 4 : 3)) {
      w = w.slice(0, w.length - suffix.length) + replacement;
      break;
    }
  }
  if (w.endsWith('ise')) w = `${w.slice(0, -3)}ize`;
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  // running → run, mapped → map
  if (w.length > 3 && w.at(-1) === w.at(-2) && !/[aeiouls]/.test(w.at(-1) ?? '')) w = w.slice(0, -1);
  return w;
}

/** Options of `terms`. */
export interface TermOptions {
  /** Cut words to stems. @default true */
  stem?: boolean;
  /** Drop stop words. @default true */
  stopWords?: boolean;
}

/** The words of a text (letters and digits, any script), lowercase, in order. */
export function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 1);
}

/** The routing terms of a text, in order (duplicates kept: term frequency counts). */
export function terms(text: string, opts: TermOptions = {}): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    const t = termOf(w, opts);
    if (t) out.push(t);
  }
  return out;
}

/** One word's routing term, or undefined when it is a stop word. */
export function termOf(word: string, { stem: cut = true, stopWords = true }: TermOptions = {}): string | undefined {
  const w = word.toLowerCase();
  if (w.length < 2 || (stopWords && STOP_WORDS.has(w))) return undefined;
  return cut ? stem(w) : w;
}
