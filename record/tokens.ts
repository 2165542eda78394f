/**
 * Free text, tokenized the same way for both stores: SQLite's FTS5 and PostgreSQL's
 * `simple` text search split and fold differently, so the record indexes only text this
 * function produced and builds its queries from the same tokens (equal hits on both).
 */

/**
 * Characters kept of a word: PostgreSQL does not index a word over 2047 bytes (SQLite
 * does), so longer words are cut on both sides, in the index and in queries alike.
 */
export const TOKEN_MAX = 200;

/** Lower-case words of letters and digits, accents folded ("Café-v2.1" → cafe, v2, 1), each at most `TOKEN_MAX` characters. */
export function tokens(text: string): string[] {
  const words =
    text
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  // by code point: a cut never splits a surrogate pair
  return words.map((w) => (w.length > TOKEN_MAX ? Array.from(w).slice(0, TOKEN_MAX).join('') : w));
}

/** Most characters of search text kept per job (questions and summaries beyond it are not searchable). */
export const SEARCH_TEXT_MAX = 200_000;

/** The indexed text of a job: its parts' tokens, space-separated, at most `SEARCH_TEXT_MAX` characters. */
export function searchText(parts: Iterable<string | undefined>): string {
  let out = '';
  for (const part of parts) {
    if (!part) continue;
    const t = tokens(part).join(' ');
    if (!t) continue;
    out = out ? `${out} ${t}` : t;
    if (out.length >= SEARCH_TEXT_MAX) return out.slice(0, out.lastIndexOf(' ', SEARCH_TEXT_MAX) + 1 || SEARCH_TEXT_MAX).trimEnd();
  }
  return out;
}
