/**
 * Free text, tokenized the same way for both stores: SQLite's FTS5 and PostgreSQL's
 * `simple` text search split and fold differently, so the record indexes only text this
 * function produced and builds its queries from the same tokens (equal hits on both).
 */

/** Lower-case words of letters and digits, accents folded ("Café-v2.1" → cafe, v2, 1). */
export function tokens(text: string): string[] {
  return (
    text
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
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
