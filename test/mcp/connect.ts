/**
 * An MCP client of the SDK connected to the API under test, over streamable HTTP or stdio (shared by the MCP tests).
 * Over stdio it starts mcp/stdio-main.ts compiled once per test file (../compiled-entry.ts), or
 * with `{ launcher: true }` as the docs tell a user to start it (`node --import tsx mcp/stdio-main.ts`).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { onTestFinished } from 'vitest';
import { compiledEntry } from '../compiled-entry';
import { TEST_TENANTS } from '../tenants';

/** A client connected to the API at `baseUrl` over `transport` with `key`, closed when the test ends. */
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
          args: launcher ? ['--import', 'tsx', 'mcp/stdio-main.ts'] : [await compiledEntry('mcp/stdio-main.ts')],
          env: { ...(process.env as Record<string, string>), DELEGATE_URL: baseUrl, DELEGATE_KEY: key },
          stderr: 'pipe',
        });
  await client.connect(t);
  onTestFinished(() => client.close());
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
