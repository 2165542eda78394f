/** `delegate_<role>` tools are listed only when roles are configured (an in-memory client, a backend that is never called). */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import type { DelegateBackend } from '../../mcp/backend';
import { createDelegateMcpServer } from '../../mcp/server';

const role = (id: string) => ({
  id,
  agent: 'llm',
  requiredSkills: [],
  tools: [],
  outputKinds: { lit_review: ['report' as const] },
  maxOutputTokens: 16_384,
  maxDepth: 1,
});

async function toolNames(roles?: ReturnType<typeof role>[]): Promise<string[]> {
  const server = createDelegateMcpServer({} as DelegateBackend, roles ? { roles } : {});
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'unit', version: '1.0.0' });
  await Promise.all([server.connect(a), client.connect(b)]);
  const { tools } = await client.listTools();
  await client.close();
  return tools.map((t) => t.name);
}

describe('delegate_<role> tools', () => {
  it('are not listed without roles', async () => {
    const names = await toolNames();
    expect(names).toContain('delegate_fanout');
    expect(names.filter((n) => !['delegate_fanout', 'delegate_pipeline', 'delegate_vote'].includes(n) && /^delegate_/.test(n))).toEqual([
      'delegate_research_subtask',
      'delegate_scout',
      'delegate_approvals',
      'delegate_decide',
    ]);
  });

  it('are listed one per role; a role named like a tool of the server gets none', async () => {
    const names = await toolNames([role('literature'), role('review'), role('fanout'), role('decide')]);
    expect(names).toEqual(expect.arrayContaining(['delegate_literature', 'delegate_review']));
    expect(names.filter((n) => n === 'delegate_fanout' || n === 'delegate_decide')).toHaveLength(2);
  });
});
