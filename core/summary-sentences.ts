/**
 * The research contract's summary rule: 3–6 sentences. The host counts, asks the agent once
 * for a better summary, and then trims what is too long, with a note.
 *
 *   summary ──splitSentences──> n ──3..6? ok : (once) re-prompt ──> fitSummary: first 6 + note
 *
 * A plain splitter, not Intl.Segmenter: the count must be the same on every Node release,
 * since a workflow decides on a re-prompt from it and replays that decision.
 */

/** Fewest sentences a contract summary has. */
export const MIN_SUMMARY_SENTENCES = 3;
/** Most sentences a contract summary has. */
export const MAX_SUMMARY_SENTENCES = 6;

/** Words whose trailing dot does not end a sentence (compared lower-case, without the dot). */
const ABBREVIATIONS = new Set(['e.g', 'i.e', 'vs', 'cf', 'al', 'dr', 'mr', 'mrs', 'ms', 'prof', 'fig', 'vol', 'approx']);

/**
 * The sentences of a text, each trimmed. A sentence ends at `.`, `!`, `?` or `…` (with any
 * closing quotes or brackets) followed by white space or the end; not after a known
 * abbreviation, a single letter ("J. Smith"), or inside a number or URL ("0.8", "a.com/x").
 * A line break also ends one (bulleted answers count a sentence per line).
 */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  const re = /[.!?…]+["')\]”’]*(?=\s|$)|\n+/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const end = m.index + m[0].length;
    if (m[0][0] === '.' && m[0].length === 1) {
      const word = /(\S+)$/.exec(text.slice(start, m.index))?.[1]?.toLowerCase() ?? '';
      if (ABBREVIATIONS.has(word.replace(/^[("'[]+/, '')) || /^[a-z]$/i.test(word)) continue;
    }
    const s = text.slice(start, end).trim();
    if (s !== '') out.push(s);
    start = end;
  }
  const rest = text.slice(start).trim();
  if (rest !== '') out.push(rest);
  return out;
}

/** Sentences in a text. */
export function countSentences(text: string): number {
  return splitSentences(text).length;
}

/** How a summary stands against the rule, and the re-prompt to send when it does not hold. */
export function checkSummary(text: string): { sentences: number; ok: boolean; reprompt: string | null } {
  const n = countSentences(text);
  const ok = n >= MIN_SUMMARY_SENTENCES && n <= MAX_SUMMARY_SENTENCES;
  return {
    sentences: n,
    ok,
    reprompt: ok
      ? null
      : `Your summary has ${n} sentence${n === 1 ? '' : 's'}; write ${MIN_SUMMARY_SENTENCES} to ${MAX_SUMMARY_SENTENCES} sentences on what was found.`,
  };
}

/**
 * The summary as reported after the one re-prompt: more than six sentences are cut to the
 * first six; fewer than three are kept as they are (nothing to invent). The note says which.
 */
export function fitSummary(text: string): { summary: string; sentences: number; note: string | null } {
  const parts = splitSentences(text);
  if (parts.length > MAX_SUMMARY_SENTENCES) {
    return {
      summary: parts.slice(0, MAX_SUMMARY_SENTENCES).join(' '),
      sentences: MAX_SUMMARY_SENTENCES,
      note: `summary trimmed from ${parts.length} to ${MAX_SUMMARY_SENTENCES} sentences`,
    };
  }
  const note =
    parts.length < MIN_SUMMARY_SENTENCES
      ? `summary has ${parts.length} sentence${parts.length === 1 ? '' : 's'}, fewer than ${MIN_SUMMARY_SENTENCES}`
      : null;
  return { summary: text.trim(), sentences: parts.length, note };
}
