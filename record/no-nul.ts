/**
 * Text for a plain column of the record: PostgreSQL's text cannot hold NUL (the whole write would
 * fail, and an archive be retried forever), and an agent's summary or a scout's question may carry
 * one. JSON columns escape it, so only plain text columns go through here.
 */

/** `s` without its NUL characters. */
export const noNul = (s: string) => s.replace(/\0/g, '');
