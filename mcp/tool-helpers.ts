/** What every MCP tool body shares: JSON answers, tool errors, and Delegate's refusals turned into errors a model can read. */
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { DelegateError } from './backend';

/** Longest call-side wait, in long polls of at most this many seconds (the API caps one at 60). */
export const POLL_SECONDS = 20;

/** What a tool callback gets besides its arguments: the abort signal, the progressToken, notifications. */
export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A tool answer of one JSON text block. */
export const json = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] });

/** A tool error the model reads. */
export const failed = (message: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text: message }] });

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
