/**
 * Where an LLM agent's tools come from beyond its HTTP tools: something that lists tools and
 * runs them for the host (an MCP server today). The host decides which listed tools the
 * model is offered and checks every call against the task's scope before `call` runs it.
 */

/** A tool a source lists: its name there, what it does, and the JSON Schema of its arguments. */
export interface OfferedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** A source of tools the host runs itself. */
export interface ToolSource {
  /** The tools it has now; rejects naming the source when it cannot say. */
  list(signal: AbortSignal): Promise<OfferedTool[]>;
  /** Runs one tool and returns its answer as text for the model (capped by the source); a tool's own error is text too. */
  call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<string>;
  /** Releases what it holds (a connection, a process). */
  close(): Promise<void>;
}
