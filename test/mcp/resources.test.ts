/**
 * resources/list a page at a time, with the SDK's own client: over both backends of the MCP server
 * (in-process, as /mcp serves it; over HTTP, as `delegate mcp` does) with pages of two jobs, the
 * tenant's finished jobs come page after page, each once, until a page has no nextCursor; and at
 * /mcp itself, the first page holds the tools' references and a cursor it never gave is refused.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { DelegateBackend } from '../../mcp/backend';
import { createHttpBackend } from '../../mcp/http-backend';
import { createInProcessBackend } from '../../api/mcp-backend';
import { createDelegateMcpServer } from '../../mcp/server';
import { useListeningApp, uniqueId } from '../helpers';
import { authHeader, TEST_TENANTS } from '../tenants';
import { connectMcp } from './connect';

const listening = useListeningApp({}, null);

/** Runs a one-task echo job to its end through the REST API; its id. */
async function finishedJob(prefix: string): Promise<string> {
  const jobId = uniqueId(prefix);
  const headers = authHeader('default');
  const tasks = [{ id: 'a', question: 'hello', agent: 'echo' }];
  const submit = await listening.app.inject({ method: 'POST', url: '/v1/jobs', headers, payload: { jobId, pattern: 'fanout', tasks } });
  expect(submit.statusCode, submit.body).toBe(201);
  const done = await listening.app.inject({ method: 'GET', url: `/v1/jobs/${jobId}/result?waitSeconds=30`, headers });
  expect(done.statusCode, done.body).toBe(200);
  return jobId;
}

/** A client of an MCP server over `backend` whose resources/list reads two jobs a page. */
async function pagedClient(backend: DelegateBackend): Promise<Client> {
  const server = createDelegateMcpServer(backend, { resourcePageSize: 2 });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'paging', version: '1.0.0' });
  await Promise.all([server.connect(a), client.connect(b)]);
  onTestFinished(() => client.close());
  return client;
}

const backends = {
  'in-process': () => createInProcessBackend(listening.app, 'default'),
  http: () => createHttpBackend({ url: listening.url, key: TEST_TENANTS.default.key }),
};

describe.each(Object.keys(backends) as (keyof typeof backends)[])('resources/list over the %s backend', (kind) => {
  it('pages with nextCursor until every finished job was listed once', async () => {
    // oldest first: the listing is newest first, so the walk meets them last to first
    const mine: string[] = [];
    for (let i = 0; i < 3; i++) mine.push(`delegate://jobs/${await finishedJob(`mcp-page-${kind}`)}/result`);
    const client = await pagedClient(backends[kind]());

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    // other test files add jobs meanwhile (newer ones, before the walk's place): bounded, not exact
    while (!mine.every((uri) => seen.includes(uri)) && pages < 200) {
      const page = await client.listResources(cursor === undefined ? {} : { cursor });
      const jobs = page.resources.filter((r) => r.uri.startsWith('delegate://jobs/')).map((r) => r.uri);
      expect(jobs.length).toBeLessThanOrEqual(2);
      seen.push(...jobs);
      pages++;
      if (!mine.every((uri) => seen.includes(uri))) expect(page.nextCursor, `page ${pages}`).toEqual(expect.any(String));
      cursor = page.nextCursor;
    }
    expect(pages).toBeGreaterThanOrEqual(2);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((uri) => mine.includes(uri))).toEqual([...mine].reverse());
  });
});

describe.each(['http', 'stdio'] as const)('resources/list at MCP over %s', (transport) => {
  it("lists the tools' references and the finished jobs on the first page, and refuses a cursor it never gave", async () => {
    const jobId = await finishedJob(`mcp-first-${transport}`);
    const client = await connectMcp(listening.url, transport);
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toEqual(expect.arrayContaining(['delegate://docs/tools/delegate_fanout', `delegate://jobs/${jobId}/result`]));
    await expect(client.listResources({ cursor: 'not-a-cursor' })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
  });
});
