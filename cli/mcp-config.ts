/**
 * `delegate mcp --print-config`: the `mcpServers` entry that starts this checkout's stdio MCP
 * server, ready to paste into a harness's configuration. Its paths are absolute because a harness
 * starts its servers from a folder of its own, where `npx delegate` would fetch npm's unrelated
 * `delegate` package and `node --import tsx` would not find tsx.
 */
import { fileURLToPath } from 'node:url';

/** This checkout's launcher (cli/bin.js); it runs from any folder. */
export const LAUNCHER = fileURLToPath(new URL('./bin.js', import.meta.url));

/** What a key the CLI was not given is printed as, for the reader to fill in. */
export const KEY_PLACEHOLDER = '<your key>';

/** One stdio server entry as Claude Desktop, Cursor and the MCP SDK's StdioClientTransport take it. */
export interface StdioServerEntry {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The harness configuration: node and the launcher by absolute path, the API and key the server calls. */
export function mcpConfig(url: string, key: string, node = process.execPath): { mcpServers: { delegate: StdioServerEntry } } {
  return {
    mcpServers: {
      delegate: { command: node, args: [LAUNCHER, 'mcp'], env: { DELEGATE_URL: url, DELEGATE_KEY: key || KEY_PLACEHOLDER } },
    },
  };
}
