/** What every MCP tool body shares: JSON answers, tool errors, and Delegate's refusals turned into errors a model can read. */
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { DelegateError } from './backend';

/** Longest call-side wait, in long polls of at most this many seconds (the API caps one at 60). */
export const POLL_SECONDS = 20;

/** What a tool callback gets besides its arguments: the abort signal, the progressToken, notifications. */
export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A tool answer in JSON: `structuredContent` (checked against the tool's outputSchema), and the same as text for clients that read only text. */
export const json = (value: object): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
  structuredContent: value as Record<string, unknown>,
});

/** A tool error the model reads. */
export const failed = (message: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text: message }] });

/** The tool error of an input its zod schema refused, one field per line. */
export const invalid = (what: string, issues: readonly { path: PropertyKey[]; message: string }[]): CallToolResult =>
  failed([`Invalid ${what}:`, ...issues.map((i) => `  ${i.path.map(String).join('.') || '(root)'}: ${i.message}`)].join('\n'));

/** A tool body whose Delegate refusals become tool errors the model can read (and act on). */
export function tool<A>(run: (args: A, extra: ToolExtra) => Promise<CallToolResult>) {
  return async (args: A, extra: ToolExtra): Promise<CallToolResult> => {
    try {
      return await run(args, extra);
    } catch (err) {
      if (err instanceof DelegateError) return failed(err.message);
      return failed(`Delegate could not be reached: ${(err as Error).message}`);
    }
  };
}

/**
 * Polls `next` (long polls of POLL_SECONDS) from `first` until it is final, the wait has passed
 * or the call is cancelled; a poll answered well before its wait means nothing is left to wait for.
 */
export async function waitFor<T>(
  first: T,
  next: (seconds: number) => Promise<T>,
  final: (t: T) => boolean,
  deadline: number,
  extra: ToolExtra,
): Promise<T> {
  let answer = first;
  while (!final(answer) && Date.now() < deadline && !extra.signal.aborted) {
    const asked = Math.min(POLL_SECONDS, (deadline - Date.now()) / 1000);
    const began = Date.now();
    answer = await next(asked);
    if (Date.now() - began < asked * 1000 - 500) break;
  }
  return answer;
}
