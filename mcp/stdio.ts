/**
 * `delegate mcp`: Delegate as an MCP server on stdin/stdout, for agent harnesses that spawn
 * their tools. Every tool calls a Delegate API over HTTP with the caller's key, so a wrong
 * key shows up as a clear tool error (401, "check DELEGATE_KEY") rather than a dead server.
 * stdout carries the protocol only: nothing else may be written to it.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createHttpBackend, type HttpBackendOptions } from './http-backend';
import { createDelegateMcpServer } from './server';

/** Options of `runMcpStdio`: the API to call and the key. */
export type McpStdioOptions = HttpBackendOptions;

/** Serves MCP on stdin/stdout until stdin closes; resolves once connected, with the server (close it to stop). */
export async function runMcpStdio(options: McpStdioOptions): Promise<McpServer> {
  const server = createDelegateMcpServer(createHttpBackend(options));
  await server.connect(new StdioServerTransport());
  return server;
}
