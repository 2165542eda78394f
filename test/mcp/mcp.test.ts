/**
 * Delegate as an MCP server, driven by the SDK's own client over both transports: streamable
 * HTTP at /mcp of a listening API, and stdio (the entry spawned as a subprocess, calling that
 * API over HTTP; compiled once, and under tsx for the wrong key's case). Each runs a fan-out with progress, reads the result resource, uses the job
 * tools, and is refused with a wrong key.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import type { JobResult } from '../../schemas';
import { connectMcp, threeWay } from './connect';
import { useListeningApp, uniqueId } from '../helpers';
import { TEST_TENANTS } from '../tenants';

const listening = useListeningApp({}, null);

const KEY = TEST_TENANTS.default.key;

/** An MCP client connected over `transport` with `key`, closed when the test ends. */
const connect = (transport: 'http' | 'stdio', key: string = KEY, opts: { launcher?: boolean } = {}): Promise<Client> =>
  connectMcp(listening.url, transport, key, opts);

/** The text of a tool answer's first content block, parsed as JSON. */
function answer(res: Awaited<ReturnType<Client['callTool']>>): Record<string, unknown> {
  const first = (res.content as { type: string; text?: string }[])[0]!;
  expect(first.type).toBe('text');
  return JSON.parse(first.text!) as Record<string, unknown>;
}

describe.each(['http', 'stdio'] as const)('MCP over %s', (transport) => {
  it('lists the tools with their input schemas', async () => {
    const client = await connect(transport);
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect([...byName.keys()].sort()).toEqual([
      'delegate_approvals',
      'delegate_decide',
      'delegate_fanout',
      'delegate_pipeline',
      'delegate_research_subtask',
      // one per role of the shared test stack's agents file (role-tools.test.ts)
      'delegate_review',
      'delegate_review-claude',
      'delegate_scout',
      'delegate_vote',
      'job_add_budget',
      'job_cancel',
      'job_replay',
      'job_result',
      'job_status',
      'job_stop',
      'list_agents',
      'research_subtask_result',
      'scout_prep',
      'scout_report',
      'scout_submit_report',
    ]);
    const fanout = byName.get('delegate_fanout')!;
    expect(Object.keys(fanout.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['tasks', 'budget', 'aggregation', 'wait', 'waitSeconds']),
    );
    expect(fanout.inputSchema.required).toContain('tasks');
    expect(fanout.description).toContain('delegate://docs/tools/delegate_fanout');
    // how each behaves, and what each answers, for the harness that asks before it calls
    for (const t of tools) {
      expect(t.annotations, t.name).toEqual({
        readOnlyHint: expect.any(Boolean),
        destructiveHint: expect.any(Boolean),
        idempotentHint: expect.any(Boolean),
        openWorldHint: expect.any(Boolean),
      });
      expect(t.outputSchema, t.name).toMatchObject({ type: 'object' });
    }
    expect(byName.get('job_result')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('job_cancel')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(Object.keys(byName.get('delegate_vote')!.inputSchema.properties ?? {})).toContain('vote');
    expect(Object.keys(byName.get('job_result')!.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['jobId', 'waitSeconds']));
  });

  it('runs a fan-out with progress and returns its result, also as a resource', async () => {
    const client = await connect(transport);
    const jobId = uniqueId(`mcp-${transport}`);
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const res = await client.callTool({ name: 'delegate_fanout', arguments: threeWay(jobId) }, undefined, {
      onprogress: (p) => progress.push(p),
      resetTimeoutOnProgress: true,
    });
    expect(res.isError).toBeFalsy();
    const body = answer(res) as { jobId: string; status: string; result: JobResult };
    expect(body).toMatchObject({ jobId, status: 'success' });
    expect(body.result.results.map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect(body.result.output).toEqual({ a: { a: 'A' }, b: { b: 'B' }, c: { c: 'C' } });

    // progress: at least one notification, of 3 subtasks, only growing, ending at 3
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress.every((p) => p.total === 3)).toBe(true);
    expect(progress.map((p) => p.progress)).toEqual([...progress.map((p) => p.progress)].sort((x, y) => x - y));
    expect(new Set(progress.map((p) => p.progress)).size).toBe(progress.length);
    expect(progress.at(-1)!.progress).toBe(3);

    const link = (res.content as { type: string; uri?: string }[]).find((c) => c.type === 'resource_link');
    expect(link?.uri).toBe(`delegate://jobs/${jobId}/result`);
    const read = await client.readResource({ uri: link!.uri! });
    const resource = JSON.parse((read.contents[0] as { text: string }).text) as JobResult;
    expect(resource).toMatchObject({ jobId, status: 'success' });
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain(`delegate://jobs/${jobId}/result`);
  });

  it('answers job_status, job_result (waiting) and list_agents', async () => {
    const client = await connect(transport);
    const jobId = uniqueId(`mcp-tools-${transport}`);
    const started = await client.callTool({ name: 'delegate_fanout', arguments: { ...threeWay(jobId), wait: false } });
    expect(answer(started)).toMatchObject({ jobId, created: true, state: 'running' });

    const result = answer(await client.callTool({ name: 'job_result', arguments: { jobId, waitSeconds: 30 } }));
    expect(result).toMatchObject({ jobId, status: 'success', result: { status: 'success' } });
    const status = answer(await client.callTool({ name: 'job_status', arguments: { jobId } }));
    expect(status).toMatchObject({ jobId, state: 'completed', status: 'success', progress: { total: 3, succeeded: 3 } });
    // a finished job cannot be stopped: the API's 409, as a tool error
    const stop = await client.callTool({ name: 'job_stop', arguments: { jobId } });
    expect(stop.isError).toBe(true);

    const agents = answer(await client.callTool({ name: 'list_agents', arguments: {} })) as { agents: { id: string }[] };
    expect(agents.agents.map((a) => a.id)).toEqual(expect.arrayContaining(['echo', 'sim']));
  });

  it('answers JSON as structuredContent too, which the client checks against the outputSchema it listed', async () => {
    // connectMcp listed the tools: from then on the SDK's client refuses an answer whose structuredContent misses or breaks the schema
    const client = await connect(transport);
    const jobId = uniqueId(`mcp-structured-${transport}`);
    // slow enough to be running through the first four calls
    const slow = threeWay(jobId);
    slow.tasks.forEach((t) => (t.params.latencyMs = 1500));
    const calls = [
      { name: 'delegate_pipeline', arguments: { ...slow, budget: { costUsd: 1 }, wait: false } },
      // still running: its state and progress, not a result
      { name: 'job_result', arguments: { jobId, waitSeconds: 0 } },
      { name: 'job_status', arguments: { jobId } },
      { name: 'job_add_budget', arguments: { jobId, add: { costUsd: 0.5 } } },
      { name: 'job_result', arguments: { jobId, waitSeconds: 30 } },
      { name: 'list_agents', arguments: {} },
      { name: 'delegate_approvals', arguments: { jobId } },
    ];
    const answers = [];
    for (const call of calls) {
      const res = await client.callTool(call);
      expect(res.isError, `${call.name}: ${JSON.stringify(res.content)}`).toBeFalsy();
      expect(res.structuredContent, call.name).toEqual(answer(res));
      answers.push(res.structuredContent);
    }
    expect(answers[0]).toMatchObject({ jobId, state: 'running' });
    expect(answers[1]).toMatchObject({ jobId, state: 'running', progress: { total: 3 } });
    expect(answers[3]).toMatchObject({ jobId, ledger: { costUsd: expect.any(Object) } });
    expect(answers[4]).toMatchObject({ jobId, status: 'success' });

    // a top-up the compact listing lets through is still checked: a tool error, no structuredContent
    const negative = await client.callTool({ name: 'job_add_budget', arguments: { jobId, add: { costUsd: -1 } } });
    expect(negative.isError).toBe(true);
    expect(negative.structuredContent).toBeUndefined();
    expect((negative.content as { text: string }[])[0]!.text).toMatch(/^Invalid top-up:\n {2}add\.costUsd/);
  });

  it('reports refusals as tool errors a model can act on', async () => {
    const client = await connect(transport);
    const missing = await client.callTool({ name: 'job_status', arguments: { jobId: uniqueId('nope') } });
    expect(missing.isError).toBe(true);
    expect((missing.content as { text: string }[])[0]!.text).toMatch(/Not found \(404\)/);
    const dup = await client.callTool({
      name: 'delegate_vote',
      arguments: {
        tasks: [
          { id: 'x', question: 'q', agent: 'sim' },
          { id: 'x', question: 'q', agent: 'sim' },
        ],
      },
    });
    expect(dup.isError).toBe(true);
    expect((dup.content as { text: string }[])[0]!.text).toMatch(/tasks\.1\.id: duplicate task id "x"/);
  });
});

describe('a wrong key is refused', () => {
  it('over HTTP: 401 on the endpoint, and the SDK client cannot connect', async () => {
    const res = await fetch(`${listening.url}/mcp`, {
      method: 'POST',
      headers: { authorization: 'Bearer not-a-key', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    expect(res.status).toBe(401);
    expect((await fetch(`${listening.url}/mcp`, { method: 'POST' })).status).toBe(401);
    await expect(connect('http', 'not-a-key')).rejects.toThrow(/401|Unauthorized|not valid/);
  });

  it('over stdio (started as the docs say, under tsx): every tool call errors, saying the key is refused', async () => {
    const client = await connect('stdio', 'not-a-key', { launcher: true });
    const res = await client.callTool({ name: 'list_agents', arguments: {} });
    expect(res.isError).toBe(true);
    expect((res.content as { text: string }[])[0]!.text).toMatch(/Unauthorized \(401\).*DELEGATE_KEY/);
  });
});
