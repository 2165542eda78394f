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
  const backend = createHttpBackend(options);
  // the role tools are listed from the roles the API has at start (none when it cannot say: a wrong key, an API down)
  const roles = await backend.roles().catch(() => []);
  const server = createDelegateMcpServer(backend, { roles });
  await server.connect(new StdioServerTransport());
  return server;
}
