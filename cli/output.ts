/**
 * How the CLI speaks: machine output (JSON) on stdout only, people's lines and errors on
 * stderr or as tables, and the exit codes scripts branch on.
 */
import { DelegateProblemError } from 'delegate/client';

/** The CLI's exit codes. */
export const ExitCode = {
  /** The call succeeded; a job (when waited for) succeeded. */
  ok: 0,
  /** A job failed, was partial or cancelled; or a call failed after the job was dispatched (server error, network). */
  failure: 1,
  /** Refused before dispatch: invalid spec, caps, auth (a 4xx), bad usage or an unreadable spec file. */
  refused: 2,
} as const;

/** An error the CLI itself raises before calling the API (bad input): exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** C0 controls but newline and tab, DEL, and C1 controls: what could move a terminal's cursor or recolour it. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text from job data as the terminal may show it: control characters removed, so an agent's
 * summary cannot clear the screen, retitle the window or fake a line (`\x1b[2J`, `\x9b…`).
 */
export function safeText(text: string): string {
  return text.replace(CONTROL, '');
}

/** Writes text (job data in it) on stdout, control characters removed. */
export function out(text: string): void {
  process.stdout.write(safeText(text));
}

/** Prints a value as JSON on stdout (the only thing `--json` writes there); C1 controls and DEL, which JSON may carry raw, are escaped. */
export function printJson(value: unknown): void {
  const json = JSON.stringify(value, null, 2).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  process.stdout.write(`${json}\n`);
}

/** Prints rows as an aligned text table on stdout (`-` for empty cells). */
export function printTable(headers: string[], rows: (string | number | undefined | null)[][]): void {
  const cells = rows.map((r) =>
    r.map((c) => (c === undefined || c === null || c === '' ? '-' : safeText(String(c)).replace(/[\n\t]/g, ' '))),
  );
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const fmt = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  process.stdout.write(`${[fmt(headers), ...cells.map(fmt)].join('\n')}\n`);
  if (rows.length === 0) process.stderr.write('(none)\n');
}

/** A human line on stderr (progress, notes): never mixed into machine output. */
export function note(line: string): void {
  process.stderr.write(`${safeText(line)}\n`);
}

/** The exit code of a finished job's status. */
export function exitCodeOfStatus(status: string | undefined): number {
  return status === 'success' ? ExitCode.ok : ExitCode.failure;
}

/**
 * Reports an error and answers its exit code: a refusal the API gave (4xx) is 2 unless the
 * job was already dispatched; anything else is 1. With `json`, the problem goes to stdout
 * as `{ "error": problem }` for scripts; a human summary always goes to stderr.
 */
export function reportError(
  err: unknown,
  { json, dispatched = false, keyMissing = false }: { json: boolean; dispatched?: boolean; keyMissing?: boolean },
): number {
  if (err instanceof DelegateProblemError) {
    const p = err.problem;
    if (json) printJson({ error: p });
    note(`error: ${p.status} ${p.title}${p.detail ? `: ${p.detail}` : ''}`);
    for (const f of err.errors) note(`  ${f.path}: ${f.message}`);
    // a coded refusal says why in a word, and a cap what remains
    if (p.code) note(`  code: ${p.code}${typeof p.cap === 'string' ? ` (the ${p.cap} cap)` : ''}`);
    if (p.caps && typeof p.caps === 'object') note(`  caps left: ${JSON.stringify(p.caps)}`);
    if (p.status === 401 && keyMissing) note('  set DELEGATE_KEY or pass --key');
    return p.status >= 400 && p.status < 500 && !dispatched ? ExitCode.refused : ExitCode.failure;
  }
  const refused = err instanceof UsageError;
  const message = err instanceof Error ? err.message : String(err);
  if (json) printJson({ error: { title: refused ? 'Usage error' : 'Failed', detail: message } });
  note(`error: ${message}`);
  return refused ? ExitCode.refused : ExitCode.failure;
}
