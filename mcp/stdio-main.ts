/**
 * Entry point of the stdio MCP server alone, as the tests compile it: the API from DELEGATE_URL
 * (default http://localhost:3000), the key from DELEGATE_KEY. Messages go to stderr; stdout is
 * the protocol's. Users start the same server as `delegate mcp` (cli/bin.js), which runs from any
 * folder; `node --import tsx` on this file finds tsx only from inside the checkout.
 */
import { runMcpStdio } from './stdio';

const url = process.env.DELEGATE_URL ?? 'http://localhost:3000';
const key = process.env.DELEGATE_KEY ?? '';
if (!key) console.error('delegate mcp: DELEGATE_KEY is not set; every tool call will be refused (401)');
await runMcpStdio({ url, key });
