/**
 * The harness entry `delegate mcp --print-config` prints (docs/reference/mcp.md) starts the stdio
 * MCP server from any folder: the SDK's own client spawns it exactly as printed, from a folder
 * outside the checkout whose tsconfig would break the sources if tsx read it, and uses the tools.
 * Before, the docs' `npx delegate mcp` fetched npm's unrelated `delegate` package there, and
 * `node --import tsx …/mcp/stdio-main.ts` did not find tsx.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { KEY_PLACEHOLDER, LAUNCHER, type StdioServerEntry } from '../../cli/mcp-config';
import { useListeningApp } from '../helpers';
import { TEST_TENANTS } from '../tenants';

const listening = useListeningApp({}, null);

/** A folder outside the checkout with a tsconfig that maps `commander` (which the CLI imports) to a file that throws. */
function foreignFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'delegate-harness-'));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { commander: ['./trap.js'] } } }));
  writeFileSync(join(dir, 'trap.js'), 'throw new Error("the tsconfig of the current folder was applied to the checkout");\n');
  return dir;
}

/** Runs the launcher in `cwd` with `env` (and no other Delegate variables); its output. */
function launch(args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const { DELEGATE_URL: _u, DELEGATE_KEY: _k, ...rest } = process.env;
  return new Promise((resolve) =>
    execFile(process.execPath, [LAUNCHER, ...args], { cwd, env: { ...rest, ...env } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

describe('delegate mcp --print-config', () => {
  it('prints an entry that a harness starts from any folder, and its tools work with the printed key', async () => {
    const dir = foreignFolder();
    const printed = await launch(['mcp', '--print-config'], dir, { DELEGATE_URL: listening.url, DELEGATE_KEY: TEST_TENANTS.default.key });
    expect(printed.code, printed.stderr).toBe(0);
    const entry = (JSON.parse(printed.stdout) as { mcpServers: { delegate: StdioServerEntry } }).mcpServers.delegate;
    expect(isAbsolute(entry.command) && isAbsolute(entry.args[0]!)).toBe(true);
    expect(entry.env).toEqual({ DELEGATE_URL: listening.url, DELEGATE_KEY: TEST_TENANTS.default.key });

    // as a harness does: the printed command, args and env (the SDK adds only HOME, PATH and the like)
    const client = new Client({ name: 'harness', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ ...entry, cwd: dir, stderr: 'pipe' }));
    onTestFinished(() => client.close());
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('delegate_fanout');
    const agents = await client.callTool({ name: 'list_agents', arguments: {} });
    expect(agents.isError, JSON.stringify(agents.content)).toBeFalsy();
    expect((agents.content as { text: string }[])[0]!.text).toContain('echo');
  });

  it('without a key, prints a placeholder for it and says so on stderr', async () => {
    const printed = await launch(['mcp', '--print-config'], foreignFolder(), { DELEGATE_URL: listening.url });
    expect(printed.code).toBe(0);
    expect(JSON.parse(printed.stdout).mcpServers.delegate.env.DELEGATE_KEY).toBe(KEY_PLACEHOLDER);
    expect(printed.stderr).toMatch(/no key given/);
  });
});
