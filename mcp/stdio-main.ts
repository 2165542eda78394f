/**
 * Entry point of the stdio MCP server (`node --import tsx mcp/stdio-main.ts`): the API from
 * DELEGATE_URL (default http://localhost:3000), the key from DELEGATE_KEY. Messages go to
 * stderr; stdout is the protocol's.
 */
import { runMcpStdio } from './stdio';

const url = process.env.DELEGATE_URL ?? 'http://localhost:3000';
const key = process.env.DELEGATE_KEY ?? '';
if (!key) console.error('delegate mcp: DELEGATE_KEY is not set; every tool call will be refused (401)');
await runMcpStdio({ url, key });
