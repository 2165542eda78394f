/**
 * An MCP client of the SDK connected to the API under test, over streamable HTTP or stdio (shared by the MCP tests).
 * Over stdio it starts mcp/stdio-main.ts compiled once per test file (../compiled-entry.ts), or
 * with `{ launcher: true }` as `delegate mcp --print-config` tells a harness to start it (node and
 * cli/bin.js by absolute path), from a folder outside the checkout.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { tmpdir } from 'node:os';
import { onTestFinished } from 'vitest';
import { LAUNCHER } from '../../cli/mcp-config';
import { compiledEntry } from '../compiled-entry';
import { TEST_TENANTS } from '../tenants';

/**
 * A client connected to the API at `baseUrl` over `transport` with `key`, closed when the test ends.
 * It lists the tools first, as a harness does: from then on the SDK's client checks every answer's
 * structuredContent against the tool's outputSchema, and refuses an answer without one.
 */
export async function connectMcp(
  baseUrl: string,
  transport: 'http' | 'stdio',
  key: string = TEST_TENANTS.default.key,
  { launcher = false }: { launcher?: boolean } = {},
): Promise<Client> {
  const client = new Client({ name: 'delegate-test', version: '1.0.0' });
  const t =
    transport === 'http'
      ? new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } })
      : new StdioClientTransport({
          command: process.execPath,
          args: launcher ? [LAUNCHER, 'mcp'] : [await compiledEntry('mcp/stdio-main.ts')],
          ...(launcher ? { cwd: tmpdir() } : {}),
          env: { ...(process.env as Record<string, string>), DELEGATE_URL: baseUrl, DELEGATE_KEY: key },
          stderr: 'pipe',
        });
  await client.connect(t);
  onTestFinished(() => client.close());
  await client.listTools();
  return client;
}

/** A fan-out's spec (no pattern): three sim subtasks one at a time, slow enough to be seen running. */
export const threeWay = (jobId: string) => ({
  jobId,
  objective: 'three facts',
  maxParallel: 1,
  tasks: ['a', 'b', 'c'].map((id) => ({
    id,
    question: `What is ${id}?`,
    agent: 'sim',
    params: { answer: { [id]: id.toUpperCase() }, latencyMs: 400, steps: 2, costUsd: 0.01 },
  })),
});
