/**
 * What every harness reads on connect, measured: the default tool set's `tools/list` stays under
 * 16 KB, each tool says how it behaves (annotations) and what it answers (outputSchema), and the
 * long reference moved to resources. Also resources/list a page at a time. An in-memory client of
 * the SDK; the backend is a stand-in (only the listing is called).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ErrorCode, type ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DelegateError, type DelegateBackend, type JobSummary } from '../../mcp/backend';
import { createDelegateMcpServer, type DelegateMcpServerOptions } from '../../mcp/server';

/** The budget for the default tool set's tools/list, serialised. */
const TOOLS_LIST_MAX_BYTES = 16_384;

/** A client connected in memory to a server over `backend`. */
async function connect(backend: Partial<DelegateBackend> = {}, options: DelegateMcpServerOptions = {}): Promise<Client> {
  const server = createDelegateMcpServer(backend as DelegateBackend, options);
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'unit', version: '1.0.0' });
  await Promise.all([server.connect(a), client.connect(b)]);
  onTestFinished(() => client.close());
  return client;
}

/** The bytes of a result as it goes on the wire (JSON-RPC serialises it without spaces). */
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('tools/list of the default tool set', () => {
  it(`is at most ${TOOLS_LIST_MAX_BYTES} bytes`, async () => {
    const client = await connect();
    const listed: ListToolsResult = await client.listTools();
    const perTool = Object.fromEntries(listed.tools.map((t) => [t.name, bytes(t)]));
    expect(listed.tools.length).toBe(18);
    expect(bytes(listed), JSON.stringify(perTool)).toBeLessThanOrEqual(TOOLS_LIST_MAX_BYTES);
  });

  it('gives every tool a short description, all four annotations and an object outputSchema without a $schema line', async () => {
    const { tools } = await (await connect()).listTools();
    for (const t of tools) {
      expect(t.description!.length, t.name).toBeLessThanOrEqual(260);
      expect(Object.keys(t.annotations ?? {}).sort(), t.name).toEqual([
        'destructiveHint',
        'idempotentHint',
        'openWorldHint',
        'readOnlyHint',
      ]);
      expect(t.outputSchema, t.name).toMatchObject({ type: 'object' });
      expect(t.inputSchema, t.name).not.toHaveProperty('$schema');
      expect(t.outputSchema, t.name).not.toHaveProperty('$schema');
    }
    const hints = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    expect(hints.job_status).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(hints.job_cancel).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(hints.delegate_fanout).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    });
  });

  it('points the delegation tools at their reference, which holds the example and the full input schema', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const fanout = tools.find((t) => t.name === 'delegate_fanout')!;
    expect(fanout.description).toContain('delegate://docs/tools/delegate_fanout');
    // a JobSpec field the compact listing leaves out
    expect(Object.keys(fanout.inputSchema.properties ?? {})).not.toContain('callbackUrl');

    const read = await client.readResource({ uri: 'delegate://docs/tools/delegate_fanout' });
    const { text, mimeType } = read.contents[0] as { text: string; mimeType: string };
    expect(mimeType).toBe('text/markdown');
    expect(text).toMatch(/Example: \{"objective"/);
    expect(text).toContain('"callbackUrl"');
    await expect(client.readResource({ uri: 'delegate://docs/tools/no_such_tool' })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
  });

  it('lists a delegate_<role> tool with its annotations and output schema, its reference as a resource', async () => {
    const role = {
      id: 'lit',
      agent: 'llm',
      requiredSkills: [],
      tools: [],
      outputKinds: { lit_review: ['report' as const] },
      maxOutputTokens: 1000,
      maxDepth: 1,
    };
    const client = await connect({ list: async () => ({ jobs: [], nextPageToken: null }) }, { roles: [role] });
    const lit = (await client.listTools()).tools.find((t) => t.name === 'delegate_lit')!;
    expect(lit.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true });
    expect(lit.outputSchema).toMatchObject({ type: 'object', required: ['jobId'] });
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain('delegate://docs/tools/delegate_lit');
  });
});

/** A listing of `n` jobs, newest first, every third one still running; its page token is the index of the next job. */
function listingOf(n: number): Pick<DelegateBackend, 'list'> {
  const jobs: JobSummary[] = Array.from({ length: n }, (_, i) => ({
    jobId: `job-${i}`,
    state: i % 3 === 2 ? 'running' : 'completed',
    status: i % 3 === 2 ? 'running' : 'success',
    pattern: 'fanout',
    startedAt: new Date(Date.UTC(2026, 0, 1) - i * 1000).toISOString(),
  }));
  return {
    list: async ({ limit, pageToken }) => {
      if (!/^p\d+$/.test(pageToken ?? 'p0')) throw new DelegateError(400, 'Bad request', 'not a page token this API gave');
      const from = Number((pageToken ?? 'p0').slice(1));
      const next = from + limit;
      return { jobs: jobs.slice(from, next), nextPageToken: next < n ? `p${next}` : null };
    },
  };
}

describe('resources/list', () => {
  it('pages with nextCursor: the references first, then every finished job once, and no cursor after the last page', async () => {
    const client = await connect(listingOf(7), { resourcePageSize: 3 });
    const pages: { uris: string[]; nextCursor?: string }[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor === undefined ? {} : { cursor });
      pages.push({ uris: page.resources.map((r) => r.uri), nextCursor: page.nextCursor });
      cursor = page.nextCursor;
    } while (cursor !== undefined);

    expect(pages.map((p) => p.nextCursor)).toEqual(['p3', 'p6', undefined]);
    const references = pages[0].uris.filter((u) => u.startsWith('delegate://docs/tools/'));
    expect(references).toHaveLength(18);
    const results = pages.flatMap((p) => p.uris.filter((u) => u.startsWith('delegate://jobs/')));
    expect(results).toEqual(['job-0', 'job-1', 'job-3', 'job-4', 'job-6'].map((j) => `delegate://jobs/${j}/result`));
    expect(pages.slice(1).every((p) => p.uris.every((u) => u.startsWith('delegate://jobs/')))).toBe(true);
  });

  it('refuses a cursor it never gave with invalid params', async () => {
    const client = await connect(listingOf(2));
    await expect(client.listResources({ cursor: 'not-ours' })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
  });
});
