/** Which MCP tools a step offers the model, under which names (activities/agents/llm-mcp.ts), over a stub pool. */
import { describe, expect, it } from 'vitest';
import { mcpModelName, mcpToolsForStep } from '../../activities/agents/llm-mcp';
import type { McpPool } from '../../activities/agents/mcp-pool';
import type { OfferedTool } from '../../activities/agents/tool-source';
import { LlmAgentConfigSchema, McpServerSchema, type McpServer } from '../../schemas';

const server = (id: string, extra: object = {}) => McpServerSchema.parse({ id, stdio: { command: 'unused' }, ...extra });
const tool = (name: string): OfferedTool => ({ name, description: `does ${name}`, inputSchema: { type: 'object' } });

/** A pool whose servers list `tools[id]` and answer "<id>:<tool>"; `listed` records which were asked. */
function stubPool(tools: Record<string, OfferedTool[]>) {
  const listed: string[] = [];
  const pool: McpPool = {
    source: (s: McpServer) => ({
      list: async () => (listed.push(s.id), tools[s.id]),
      call: async (name) => `${s.id}:${name}`,
      close: async () => undefined,
    }),
    size: 0,
    close: async () => undefined,
  };
  return { pool, listed };
}
const signal = new AbortController().signal;

describe('MCP tools of a step', () => {
  it('offers only the tools the scope names as <server>.<tool>, under model-safe names, and runs them by those names', async () => {
    const { pool, listed } = stubPool({ docs: [tool('lookup'), tool('wipe')], idle: [tool('x')] });
    const mcp = await mcpToolsForStep([server('docs'), server('idle')], ['docs.lookup', 'search'], pool, ['search'], signal);
    expect(mcp.defs).toEqual([
      { type: 'function', function: { name: 'docs__lookup', description: 'does lookup', parameters: { type: 'object' } } },
    ]);
    // a server no scope entry names is never contacted
    expect(listed).toEqual(['docs']);
    expect(mcp.scopeName('docs__lookup')).toBe('docs.lookup');
    expect(mcp.scopeName('docs__wipe')).toBeUndefined();
    expect(await mcp.call('docs__lookup', {}, signal)).toBe('docs:lookup');
    await expect(mcp.call('docs__wipe', {}, signal)).rejects.toThrow(/no MCP tool offered as "docs__wipe"/);
  });

  it("keeps to the server's allow-list whatever the scope says", async () => {
    const { pool } = stubPool({ docs: [tool('lookup'), tool('wipe')] });
    const mcp = await mcpToolsForStep([server('docs', { tools: ['lookup'] })], ['docs.lookup', 'docs.wipe'], pool, [], signal);
    expect(mcp.defs.map((d) => d.function.name)).toEqual(['docs__lookup']);
  });

  it('rewrites characters model APIs refuse, and fails the step when two tools end up with one name', async () => {
    expect(mcpModelName('docs', 'files/read.v2')).toBe('docs__files_read_v2');
    expect(mcpModelName('d', 'x'.repeat(100))).toHaveLength(64);
    const { pool } = stubPool({ docs: [tool('read.v2'), tool('read_v2')] });
    await expect(mcpToolsForStep([server('docs')], ['docs.read.v2', 'docs.read_v2'], pool, [], signal)).rejects.toThrow(
      'MCP tool "docs.read_v2" and MCP tool "docs.read.v2" are both offered to the model as "docs__read_v2": rename one or narrow the scope',
    );
    const other = stubPool({ a: [tool('b')] });
    await expect(mcpToolsForStep([server('a')], ['a.b'], other.pool, ['a__b'], signal)).rejects.toThrow(/and tool "a__b" are both offered/);
  });

  it('offers nothing, and contacts no server, when the scope names no MCP tool', async () => {
    const { pool, listed } = stubPool({ docs: [tool('lookup')] });
    const mcp = await mcpToolsForStep([server('docs')], ['search'], pool, [], signal);
    expect(mcp.defs).toEqual([]);
    expect(listed).toEqual([]);
  });

  it('the agents file refuses a server with no transport or two, and duplicate ids', async () => {
    expect(McpServerSchema.safeParse({ id: 'x' }).error?.issues[0].message).toBe('give exactly one of stdio and http');
    expect(McpServerSchema.safeParse({ id: 'x', stdio: { command: 'a' }, http: { url: 'https://a.example/mcp' } }).success).toBe(false);
    expect(McpServerSchema.safeParse({ id: 'has.dot', stdio: { command: 'a' } }).success).toBe(false);
    const dup = LlmAgentConfigSchema.safeParse({
      kind: 'llm',
      id: 'a',
      baseUrl: 'https://api.example/v1',
      model: 'm',
      mcpServers: [server('docs'), server('docs')],
    });
    expect(dup.error?.issues[0]).toMatchObject({ path: ['mcpServers'], message: 'MCP server ids must be unique' });
  });
});
